"""The analysis command line, run for real in a subprocess on the smallest table."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np


def run(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "grove_env.analysis", *args], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_nashconv_prints_nash_conv_and_gains():
    out = json.loads(run("nashconv", "--rules", "classic", "--players", "2", "--json"))
    assert out["nash_conv"] > 0 and len(out["gains"]) == 2
    assert abs(sum(out["gains"]) - out["nash_conv"]) < 1e-12
    assert "NashConv" in run("nashconv", "--agent", "random")


def test_whole_game_nashconv_runs_with_a_round_limit():
    out = json.loads(run("nashconv", "--whole-game", "--max-rounds", "2", "--json"))
    assert out["unit"] == "outcome" and out["nash_conv"] >= 0


def test_solve_saves_a_strategy(tmp_path):
    path = tmp_path / "s.npz"
    out = run("solve", "--players", "2", "--seconds", "0.5", "--out", str(path))
    assert "saved" in out
    with np.load(path, allow_pickle=False) as f:
        assert f["probs"].shape[1] == 3 and str(f["table"]) == "classic 2"
