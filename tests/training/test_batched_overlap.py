"""``overlap: true``: the next rollout collected in a second process during the update.

What the overlap promises (:mod:`grove_env.training.batched.remote`): each update learns
from a rollout that the weights one update older played, a run is reproducible at a
seed, ``run.json`` records the staleness, and Ctrl-C, kill -9, resume and the final
evaluation work as without it, with the collector process gone at the end.
"""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest
import torch
from training_runs import (
    ROOT,
    SMOKE,
    kill_then_resume,
    run_train,
    start_and_wait_for_checkpoint,
)

from grove_env.agents.learned.policy_files import latest_checkpoint
from grove_env.training.batched.trainer import BatchedTrainer
from grove_env.training.config import ConfigError, config_from_dict, load_config
from grove_env.training.run import checkpoint

pytestmark = pytest.mark.slow  # training runs of the batched backend

torch.set_num_threads(1)
OVERLAP = ("--set", "backend=batched", "--set", "overlap=true")


def trainer(tmp_path: Path, overlap: bool, learn_from: str = "live_seats") -> BatchedTrainer:
    cfg = load_config(ROOT / "configs" / "smoke.yaml").model_copy(
        update={"backend": "batched", "overlap": overlap, "learn_from": learn_from}
    )
    return BatchedTrainer(cfg, tmp_path)


def weights(model: torch.nn.Module) -> list[torch.Tensor]:
    return [p.detach().clone() for p in model.state_dict().values()]


def same(a: list[torch.Tensor], b: list[torch.Tensor]) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a, b, strict=True))


def trained(tmp_path: Path, overlap: bool, learn_from: str, updates: int) -> list[torch.Tensor]:
    tmp_path.mkdir()
    run = trainer(tmp_path, overlap, learn_from)
    try:
        for _ in range(updates):
            assert run.iterate()
        return weights(run.model)
    finally:
        run.close()
        run.writer.close()


@pytest.mark.parametrize("learn_from", ["learner", "live_seats"])
def test_each_update_learns_from_the_weights_one_update_older(
    tmp_path: Path, learn_from: str
) -> None:
    run = trainer(tmp_path, True, learn_from)
    try:
        assert run.remote is not None and run.collector is None
        before = weights(run.model)
        assert run.iterate()  # the first rollout is collected before its update
        for _ in range(3):
            # The rollout collected during this update was played by the weights before it.
            before = weights(run.model)
            assert run.iterate()
            assert same(weights(run.remote.behaviour), before)
            assert not same(weights(run.model), before)
        assert run.pending is not None  # the next rollout waits, collected
        assert run.remote.process.is_alive()
    finally:
        run.close()
        run.writer.close()
    assert run.remote is None


@pytest.mark.parametrize("learn_from", ["learner", "live_seats"])
def test_a_run_with_the_overlap_is_reproducible_and_differs_from_one_without(
    tmp_path: Path, learn_from: str
) -> None:
    runs = [
        trained(tmp_path / name, overlap, learn_from, updates=3)
        for name, overlap in (("a", True), ("b", True), ("off", False))
    ]
    assert same(runs[0], runs[1])
    assert not same(runs[0], runs[2])  # later rollouts were played by older weights


def test_the_overlap_is_a_batched_setting_and_run_json_states_the_staleness(
    tmp_path: Path,
) -> None:
    data = {**SMOKE.to_dict(), "overlap": True}
    with pytest.raises(ConfigError, match="overlap: read by the batched backend only"):
        config_from_dict(data)
    run_dir = tmp_path / "run"
    done = run_train("--config", "configs/smoke.yaml", *OVERLAP, "--set", f"run_dir={run_dir}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads((run_dir / "run.json").read_text())["staleness_rollouts"] == 1
    assert (run_dir / "final_eval.json").is_file() and "Gauntlet of ppo:" in done.stdout
    off = tmp_path / "off"
    done = run_train("--config", "configs/smoke.yaml", "--set", "backend=batched",
                     "--set", f"run_dir={off}")  # fmt: skip
    assert json.loads((off / "run.json").read_text())["staleness_rollouts"] == 0


def children(pid: int) -> list[int]:
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return [int(c) for c in text.split()]


def gone(pid: int, within: float = 60.0) -> bool:
    """The process ended (a zombie counts: its parent has not reaped it)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except FileNotFoundError:
            return True
        if "\nState:\tZ" in status:
            return True
        time.sleep(0.1)
    return False


def test_ctrl_c_with_the_overlap_saves_a_checkpoint_and_ends_the_collector(
    tmp_path: Path,
) -> None:
    run_dir = tmp_path / "run"
    proc = start_and_wait_for_checkpoint(run_dir, *OVERLAP)
    collectors = children(proc.pid)
    assert collectors  # the collector process
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 130, out
    assert "Traceback" not in out and f"--resume {run_dir}" in out
    assert checkpoint.read_state(latest_checkpoint(run_dir))["step"] % SMOKE.rollout_size == 0
    assert all(gone(pid) for pid in collectors)


def test_kill_9_with_the_overlap_then_resume_reaches_the_same_step_count(
    tmp_path: Path,
) -> None:
    kill_then_resume(tmp_path / "run", *OVERLAP)
