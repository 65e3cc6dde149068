"""What the command-line tests share: ``main`` called in-process, the one-line error, models.

Used by ``agents/test_cli_bad_input.py`` and ``agents/test_play_bad_input.py`` (issue 9).
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import sys
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType

from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
README_SPEC = "heuristic:noise=0.2,aim=1"


def load_script(name: str) -> ModuleType:
    """``scripts/<name>.py`` as a module; its sibling scripts import as they do when it runs."""
    if str(ROOT / "scripts") not in sys.path:
        sys.path.insert(0, str(ROOT / "scripts"))
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def call(main: Callable[..., int], argv: Sequence[str], **kw: object) -> tuple[int, str, str]:
    """``main(argv)`` with its streams captured: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv), **kw)
        except SystemExit as exc:  # the scripts' parsers exit by themselves
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


def one_line_error(err: str, prog: str, *names: str) -> str:
    """The one line on stderr (a rounding note aside): ``PROG: error: ...`` naming ``names``."""
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if not line.startswith("note:")]
    assert len(lines) == 1, err
    assert lines[0].startswith(f"{prog}: error: "), err
    for name in names:
        assert name in lines[0], (name, err)
    return lines[0]


def damaged_models(tmp_path: Path) -> dict[str, Path]:
    """Model paths that are missing, empty, garbage, a half zip, a run with nothing saved."""
    whole = io.BytesIO()
    with zipfile.ZipFile(whole, "w") as z:
        z.writestr("data", '{"policy_class": "x"}' * 200)
        z.writestr("policy.pth", os.urandom(4000))
    half = tmp_path / "half.zip"
    half.write_bytes(whole.getvalue()[: len(whole.getvalue()) // 2])
    garbage = tmp_path / "policy.pth"
    garbage.write_bytes(b"\x80\x04garbage, not a pickle or a zip" * 10)
    empty = tmp_path / "best.zip"
    empty.write_bytes(b"")
    garbage_zip = tmp_path / "model.zip"
    with zipfile.ZipFile(garbage_zip, "w") as z:
        z.writestr("data", '{"policy_class": 1}')
        z.writestr("policy.pth", os.urandom(400))
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    return {
        "missing": tmp_path / "nope" / "best.zip",
        "half": half,
        "garbage": garbage,
        "empty": empty,
        "zip of garbage": garbage_zip,
        "empty run": run,
    }


DAMAGED = ["missing", "half", "garbage", "empty", "zip of garbage", "empty run"]  # the keys

# agent specs as a hostile user types them: any text, any bytes, a known name with any options
SPEC = st.one_of(
    st.text(max_size=40),
    st.binary(max_size=40).map(lambda b: b.decode("utf-8", "surrogateescape")),
    st.builds(
        "{}:{}".format,
        st.sampled_from(["random", "greedy", "heuristic", "ppo", "human"]),
        st.text(max_size=30),
    ),
)
