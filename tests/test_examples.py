"""The scripts in examples/ run at smoke size (each skipped where its library is missing)."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_example(name: str, *args: str, needs: str) -> str:
    """Run ``examples/<name>`` with ``args``; its stdout (skip if ``needs`` is missing)."""
    if importlib.util.find_spec(needs) is None:
        pytest.skip(f"{needs} is not installed (pip install grove-env[suites] / [rllib])")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAY_ADDRESS": ""}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / name), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    return proc.stdout


def test_cleanrl_ppo_over_the_selfplay_vector_env() -> None:
    out = run_example(
        "cleanrl_ppo.py",
        "--total-timesteps", "4096", "--num-envs", "64", "--num-steps", "16", "--eval-games", "32",
        needs="torch",
    )  # fmt: skip
    updates = re.findall(r"update (\d+): ([\d,]+) steps, (\d+) games", out)
    assert len(updates) == 4 and int(updates[-1][2]) > 0
    share = float(re.search(r"win share (\d\.\d+)", out).group(1))
    assert 0.0 <= share <= 1.0


def test_torchrl_rollout_with_a_masked_policy() -> None:
    out = run_example("torchrl_rollout.py", "--steps", "300", needs="torchrl")
    games = int(re.search(r"(\d+) games finished", out).group(1))
    worst = float(re.search(r"largest \|sum over seats\| ([\d.e+-]+)", out).group(1))
    assert games >= 1 and worst < 1e-5


def test_rllib_shared_policy_ppo_over_the_aec_env() -> None:
    out = run_example("rllib_ppo.py", "--iterations", "2", "--batch", "400", needs="ray")
    sums = re.findall(r"summed over seats ([+-]\d\.\d+) \(zero-sum\)", out)
    assert len(sums) == 2 and all(abs(float(s)) < 1e-3 for s in sums)
