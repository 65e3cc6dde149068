"""Hostile and damaged model files for the tests: a zip whose loading runs code, and damage.

:func:`doctor_zip` copies a real MaskablePPO zip and swaps one pickled value of its
``data`` entry for a payload whose only effect, when unpickled, is to create a file:
the file appearing is the sign that loading ran the author's code.
"""

from __future__ import annotations

import base64
import json
import pickle
import zipfile
from pathlib import Path


class _CreateFile:
    """Unpickles as ``open(path, "w")``: creating ``path`` is the payload's side effect."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)

    def __reduce__(self) -> tuple:
        return (open, (self.path, "w"))


def doctor_zip(source: Path, target: Path, marker: Path) -> Path:
    """``source`` with ``data``'s pickled ``policy_class`` replaced by the payload."""
    with zipfile.ZipFile(source) as z:
        entries = {name: z.read(name) for name in z.namelist()}
    data = json.loads(entries["data"])
    payload = base64.b64encode(pickle.dumps(_CreateFile(marker))).decode()
    data["policy_class"] = {":type:": "<class 'abc.ABCMeta'>", ":serialized:": payload}
    entries["data"] = json.dumps(data).encode()
    with zipfile.ZipFile(target, "w") as z:
        for name, content in entries.items():
            z.writestr(name, content)
    return target


def pickle_bomb(marker: Path) -> bytes:
    """A plain pickle that creates ``marker`` when loaded by an unrestricted unpickler."""
    return pickle.dumps({"body.0.weight": _CreateFile(marker)}, protocol=2)


def truncate(path: Path, keep: float = 0.5) -> None:
    """Cut a file to ``keep`` of its length (a copy interrupted halfway)."""
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])


def rewrite_member(zip_path: Path, name: str, content: bytes) -> None:
    """Replace one entry of a zip (e.g. a garbage ``policy.pth``)."""
    with zipfile.ZipFile(zip_path) as z:
        entries = {n: z.read(n) for n in z.namelist()}
    entries[name] = content
    with zipfile.ZipFile(zip_path, "w") as z:
        for n, c in entries.items():
            z.writestr(n, c)
