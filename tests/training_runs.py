"""Training runs in subprocesses, as the tests of both backends start them.

``train.py`` on ``configs/smoke.yaml``, one torch thread, from the repository root:
:func:`run_train` runs it to the end, :func:`start_and_wait_for_checkpoint` starts one
that cannot end by itself and hands it over once its first checkpoint is on disk (for
the Ctrl-C tests), and :func:`kill_then_resume` is the kill -9 test of either backend.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from grove_env.agents.learned.policy_files import latest_checkpoint
from grove_env.training.config import load_config
from grove_env.training.run import checkpoint

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


def kill_then_resume(run_dir: Path, *more: str) -> int:
    """Kill -9 a run (``more``: extra ``--set`` pairs) after its first checkpoint, resume
    it to a total that is not a multiple of the rollout, and check that it stops on the
    next rollout boundary, evaluated, and that resuming again finds nothing to do;
    the total's final step, for the backend's own checks of its model file."""
    proc = start_and_wait_for_checkpoint(run_dir, *more)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    killed_at = checkpoint.read_state(latest_checkpoint(run_dir))["step"]
    assert killed_at % SMOKE.rollout_size == 0
    total = killed_at + 2 * SMOKE.rollout_size + 100
    done = run_train("--resume", str(run_dir), "--set", f"total_timesteps={total}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "resuming" in done.stdout
    meta = checkpoint.read_state(latest_checkpoint(run_dir))
    assert meta["step"] == final_step(total) == killed_at + 3 * SMOKE.rollout_size
    assert (run_dir / "final_eval.json").is_file()
    rows = (run_dir / "metrics.csv").read_text().splitlines()[1:]
    steps = [int(line.split(",")[0]) for line in rows]
    assert steps == sorted(steps) and len(steps) == len(set(steps))
    again = run_train("--resume", str(run_dir))
    assert again.returncode == 0 and "already complete" in again.stdout
    return final_step(total)
