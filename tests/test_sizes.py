"""Sizes a reader can hold: modules of at most 350 lines and functions of at most 60 in the
package, the scripts and ``train.py``; test files of at most 400 lines (a longer one
holds two concepts). Read from the source with ``ast``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_MODULE, MAX_FUNCTION, MAX_TEST_FILE = 350, 60, 400
SOURCES = sorted(
    [*(ROOT / "grove_env").rglob("*.py"), *(ROOT / "scripts").glob("*.py"), ROOT / "train.py"]
)


def lines(path: Path) -> int:
    return len(path.read_text().splitlines())


def long_functions(path: Path, limit: int) -> list[str]:
    """``module:line name (n lines)`` for each function or method longer than ``limit``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > limit:
                where = path.relative_to(ROOT)
                found.append(f"{where}:{node.lineno} {node.name} ({length} lines)")
    return found


def test_modules_are_short() -> None:
    long = {str(p.relative_to(ROOT)): lines(p) for p in SOURCES if lines(p) > MAX_MODULE}
    assert long == {}


def test_functions_are_short() -> None:
    assert [f for path in SOURCES for f in long_functions(path, MAX_FUNCTION)] == []


def test_test_files_are_short() -> None:
    tests = sorted((ROOT / "tests").rglob("*.py"))
    long = {str(p.relative_to(ROOT)): lines(p) for p in tests if lines(p) > MAX_TEST_FILE}
    assert long == {}


@pytest.mark.parametrize("body, caught", [(61, True), (60, False)])
def test_the_function_check_counts_the_def_line_too(
    tmp_path: Path, body: int, caught: bool
) -> None:
    source = "def f():\n" + "    x = 1\n" * (body - 1)
    path = ROOT / "tests" / "_planted_size.py"
    try:
        path.write_text(source)
        assert bool(long_functions(path, MAX_FUNCTION)) is caught
    finally:
        path.unlink()
