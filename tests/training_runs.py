"""Training runs in subprocesses, as the tests of both backends start them.

``train.py`` on ``configs/smoke.yaml``, one torch thread, from the repository root:
:func:`run_train` runs it to the end, :func:`start_and_wait_for_checkpoint` starts one
that cannot end by itself and hands it over once its first checkpoint is on disk (for
the kill -9 and Ctrl-C tests).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from grove_env.agents.learned.policy_files import latest_checkpoint
from grove_env.training.config import load_config

ROOT = Path(__file__).resolve().parents[1]
SMOKE = load_config(ROOT / "configs" / "smoke.yaml")
ENV = {**os.environ, "OMP_NUM_THREADS": "1"}
UNENDING = 10**12
"""A ``total_timesteps`` no test run reaches: it trains until it is signalled."""
HANG_POLLS = 6000
"""Polls of 0.05 s for a first checkpoint before a run counts as hung (a guard, not a
speed check: the first checkpoint comes after one rollout)."""


def train_cmd(*args: str) -> list[str]:
    return [sys.executable, "train.py", *args]


def run_train(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        train_cmd(*args), cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=ENV
    )


def final_step(total: int) -> int:
    """Where an uninterrupted smoke run stops: whole rollouts past ``total``."""
    rollout = SMOKE.rollout_size
    return -(-total // rollout) * rollout


def start_and_wait_for_checkpoint(run_dir: Path, *more: str) -> subprocess.Popen:
    """A smoke run (``more``: extra ``--set`` pairs) that cannot end by itself, once its
    first checkpoint is on disk."""
    proc = subprocess.Popen(
        train_cmd(
            "--config",
            "configs/smoke.yaml",
            *more,
            "--set",
            f"run_dir={run_dir}",
            "--set",
            f"total_timesteps={UNENDING}",
        ),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=ENV,
    )
    for _ in range(HANG_POLLS):
        if latest_checkpoint(run_dir) is not None:
            return proc
        try:
            out, _ = proc.communicate(timeout=0.05)
        except subprocess.TimeoutExpired:
            continue
        pytest.fail(f"the run ended before its first checkpoint:\n{out}")
    proc.kill()
    pytest.fail("no checkpoint after a long wait: the run hangs")
