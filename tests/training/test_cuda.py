"""Training with the learner on a GPU (``device: auto`` and ``device: cuda``).

Skipped where torch finds no CUDA device (CI has none). On a machine with one, these are
what a GPU user runs: both backends train on it with ``device: auto``, a batched run
with imitation, NashConv while training and the final gauntlet (spawned workers), kill
-9 then ``--resume`` on the GPU, and the checkpoint a GPU wrote, played as ``ppo:`` by a
process that sees no GPU. The games always run on the CPU (``device``'s docstring).
"""

from __future__ import annotations

import csv
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from training_runs import ENV, ROOT, final_step, kill_then_resume, run_train

from grove_env.agents.learned.policy_files import latest_checkpoint
from grove_env.training.config import load_config
from grove_env.training.measure.exploit import ROUND
from grove_env.training.run import checkpoint

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="torch finds no CUDA device"),
]


def smoke_on_auto(run_dir: Path, backend: str, *more: str) -> subprocess.CompletedProcess:
    proc = run_train(
        *("--config", "configs/smoke.yaml", "--set", f"backend={backend}"),
        *("--set", "device=auto", "--set", f"run_dir={run_dir}", *more),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "device: auto -> cuda" in proc.stdout
    assert json.loads((run_dir / "run.json").read_text())["device"] == "cuda"
    assert (run_dir / "final_eval.json").is_file() and (run_dir / "learning_curve.png").is_file()
    return proc


def plays_without_a_gpu(run_dir: Path) -> None:
    """The run's last checkpoint plays a tournament in a process with CUDA hidden."""
    ckpt = latest_checkpoint(run_dir)
    assert ckpt is not None
    cfg = load_config(run_dir / "config.yaml")
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "grove_env.agents.cli.tournament"),
            *("--rules", cfg.rules, "--players", str(cfg.num_players), "--games", "8"),
            *("--agents", ",".join([f"ppo:{ckpt}"] + ["random"] * (cfg.num_players - 1))),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**ENV, "CUDA_VISIBLE_DEVICES": ""},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"ppo:{ckpt}" in proc.stdout


def test_the_batched_backend_trains_on_the_gpu(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    proc = smoke_on_auto(
        run_dir,
        "batched",
        *("--set", "imitate=heuristic", "--set", "imitate_steps=2048"),
        *("--set", "exploit_every=2048", "--set", "best_by=nashconv"),
        *("--set", "rules=revised", "--set", "num_players=3"),  # a round tree built in seconds
    )
    assert "imitated heuristic: " in proc.stdout and "Gauntlet of ppo:" in proc.stdout
    rows = list(csv.DictReader((run_dir / "metrics.csv").open()))
    nash = [float(r[ROUND]) for r in rows if r[ROUND]]
    assert len(nash) == 3 and all(math.isfinite(v) and v > 0.0 for v in nash)
    assert checkpoint.read_state(latest_checkpoint(run_dir))["step"] == final_step(4096)
    plays_without_a_gpu(run_dir)


def test_the_sb3_backend_trains_on_the_gpu(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    smoke_on_auto(run_dir, "sb3")
    plays_without_a_gpu(run_dir)


@pytest.mark.parametrize("backend", ["batched", "sb3"])
def test_kill_9_then_resume_on_the_gpu(tmp_path: Path, backend: str) -> None:
    run_dir = tmp_path / "run"
    kill_then_resume(run_dir, "--set", f"backend={backend}", "--set", "device=cuda")
    info = json.loads((run_dir / "run.json").read_text())
    assert info["device"] == "cuda" and info["resumes"][-1]["device"] == "cuda"
