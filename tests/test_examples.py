"""The scripts in examples/ run at smoke size (each skipped where its library is missing)."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.slow  # the suites' examples train briefly

ROOT = Path(__file__).resolve().parents[1]


def run_example(name: str, *args: str, needs: str) -> str:
    """Run ``examples/<name>`` with ``args``; its stdout (skip if ``needs`` is missing)."""
    if importlib.util.find_spec(needs) is None:
        extras = "[suites] / [rllib] / [openspiel]"
        pytest.skip(f"{needs} is not installed (pip install grove-env{extras})")
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


def test_tianshou_collector_stores_zero_sum_returns_over_the_aec_env() -> None:
    """Tianshou stacks infos into fixed-shape arrays: 40 whole games go through."""
    pytest.importorskip("tianshou")
    spec = importlib.util.spec_from_file_location("tianshou_dqn", ROOT / "examples/tianshou_dqn.py")
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    from tianshou.env import DummyVectorEnv

    envs = DummyVectorEnv([lambda: example.make_env(4, "classic")] * 4)
    envs.seed(0)
    algorithm = example.make_algorithm(example.make_env(4, "classic"), hidden=16)
    stats = example.collect_episodes(algorithm, envs, 40)
    returns = np.asarray(stats.returns)
    assert stats.n_collected_episodes == 40 and returns.shape == (40, 4)
    np.testing.assert_allclose(returns.sum(axis=1), 0.0, atol=1e-6)
    assert (returns != 0).any()


def test_tianshou_dqn_trains_at_smoke_size() -> None:
    out = run_example(
        "tianshou_dqn.py", "--epochs", "1", "--steps-per-epoch", "128", "--eval-episodes", "8",
        needs="tianshou",
    )  # fmt: skip
    assert "epoch 1:" in out
    worst = float(re.search(r"largest \|sum over seats\| ([\d.e+-]+)", out).group(1))
    assert worst < 1e-6


def test_openspiel_shimmy_plays_zero_sum_games() -> None:
    """Shimmy's PettingZoo env over python_grove; skipped where pyspiel or shimmy is missing."""
    if importlib.util.find_spec("pyspiel") is None:
        pytest.skip("pyspiel is not installed (pip install grove-env[openspiel])")
    out = run_example("openspiel_shimmy.py", "--games", "8", needs="shimmy")
    assert "3 seats" in out and "'players': 3, 'rules': 'revised'" in out
    sums = re.findall(r"game \d+: returns .*, sum ([+-][\d.e+-]+)", out)
    worst = float(re.search(r"largest \|sum over seats\| ([\d.e+-]+)", out).group(1))
    assert len(sums) == 8 and all(abs(float(s)) < 1e-9 for s in sums) and worst < 1e-9
