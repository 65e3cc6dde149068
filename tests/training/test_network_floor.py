"""``benchmarks/network_floor.py``: the network fitted to the CFR solution, measured exactly.

At revised 2p cut to 3 rounds (19 public states; the shipped solution is of the
100-round game, so it is not that game's equilibrium, but its moves are a fixed target),
one pass of the fit must move fresh weights far towards the solution's NashConv."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "network_floor.py"


def load_script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("network_floor", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow  # about 20 s: one pass over 578,550 information sets, three exact walks
def test_a_pass_of_the_fit_brings_fresh_weights_near_the_solution() -> None:
    floor = load_script()
    args = floor.parse_args(
        ["--max-rounds", "3", "--epochs", "1", "--rounds", "1", "--start", "fresh"]
    )
    result = floor.run(args)
    assert (result["states"], result["rows"]) == (19, 578_550)
    before, after = (p["nash_conv"] for p in result["points"])
    solved = result["cfr_nash_conv"]
    assert before > 3 * solved  # fresh weights are far from the solution
    assert after < before / 3
    assert abs(after - solved) < (before - solved) / 3
    assert result["points"][1]["loss"] < 0.5


def test_bad_budgets_are_refused_in_one_line() -> None:
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--epochs", "0"], capture_output=True, text=True
    )
    assert out.returncode == 2
    assert "--epochs, --rounds and --max-rounds must be at least 1" in out.stderr
    assert "Traceback" not in out.stderr


def test_a_missing_policy_file_is_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "nothing.json"
    written = tmp_path / "out.json"
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--policy", str(missing), "--json", str(written)],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2, out.stderr
    assert out.stderr.startswith("error: ") and len(out.stderr.strip().splitlines()) == 1
    assert str(missing) in out.stderr
    assert not written.exists()
