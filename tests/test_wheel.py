"""The wheel installs one import name, ``grove_env``, with the agents inside it.

Built as a user builds it: ``python -m build`` makes the sdist, then the wheel from the
unpacked sdist, so a file the sdist leaves out is missing from the wheel too.
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_installs_only_grove_env(tmp_path: Path) -> None:
    built = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    (sdist,) = tmp_path.glob("grove_env-*.tar.gz")
    assert "Building wheel from sdist" in built.stdout + built.stderr
    with tarfile.open(sdist) as packed_sdist:
        packed = {name.split("/", 1)[-1] for name in packed_sdist.getnames()}
    assert {"pyproject.toml", "grove_env/agents/base.py"} <= packed
    (wheel,) = tmp_path.glob("grove_env-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert top == {"grove_env"}
    assert "grove_env/agents/heuristic/search.py" in names and "grove_env/vector/engine.py" in names
    assert "grove_env/web/static/index.html" in names  # the page ships as package data
    assert {"grove_env/data/cfr_revised_2p.npz", "grove_env/data/cfr_revised_2p_game.npz"} <= set(
        names
    )
    zoo = {  # the zoo's policies and cards, as many as the package ships
        f"grove_env/{p.relative_to(ROOT / 'grove_env').as_posix()}"
        for p in (ROOT / "grove_env" / "data" / "zoo").glob("*/*")
        if p.suffix in (".json", ".pt")
    }
    assert zoo <= set(names)
    assert {n for n in names if n.startswith("grove_env/data/zoo/")} == zoo
    check_release_metadata(wheel, sdist)


def check_release_metadata(wheel: Path, sdist: Path) -> None:
    """The wheel's metadata names the licence and carries its file and the classifiers;
    ``twine check`` (what ``make dist`` runs in CI) passes both files."""
    packed = zipfile.ZipFile(wheel)
    (metadata,) = [n for n in packed.namelist() if n.endswith(".dist-info/METADATA")]
    fields = packed.read(metadata).decode().split("\n\n")[0].splitlines()
    assert "License-Expression: MIT" in fields and "License-File: LICENSE" in fields
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in packed.namelist())
    classifiers = [f for f in fields if f.startswith("Classifier: ")]
    assert "Classifier: Topic :: Games/Entertainment :: Board Games" in classifiers
    assert len(classifiers) >= 8
    pytest.importorskip("twine")
    checked = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", str(wheel), str(sdist)],
        capture_output=True,
        text=True,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
