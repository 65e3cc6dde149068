"""``train.py`` end to end: a smoke run's artefacts, the ppo agent, kill -9 and Ctrl-C resumes.

The runs are real subprocesses of ``train.py`` with ``configs/smoke.yaml`` (a few
seconds of training) in a temporary folder. The runs that are killed or interrupted
are given a budget they cannot reach (:data:`UNENDING`), so the signal never races with
the end of the run; a resume then sets the budget from where the run stopped.
"""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from training_runs import (
    SMOKE,
    final_step,
    kill_then_resume,
    run_train,
    start_and_wait_for_checkpoint,
)

from grove_env.agents.arena.tournament import run_tournament
from grove_env.agents.base import make_agent
from grove_env.agents.learned.policy_files import ModelFileError, latest_checkpoint
from grove_env.agents.learned.sb3 import load_model
from grove_env.training.config import load_config
from grove_env.training.run import checkpoint

pytestmark = pytest.mark.slow  # training runs in subprocesses (minutes)

torch.set_num_threads(1)


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess]:
    root = tmp_path_factory.mktemp("runs")
    proc = run_train("--config", "configs/smoke.yaml", "--set", f"runs_root={root}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (run_dir,) = root.iterdir()
    return run_dir, proc


def test_smoke_run_writes_every_artefact(smoke_run) -> None:
    run_dir, proc = smoke_run
    assert run_dir.name.startswith(f"smoke-s{SMOKE.seed}-")
    for name in (
        "config.yaml",
        "versions.json",
        "run.json",
        "metrics.csv",
        "learning_curve.png",
        "best.zip",
        "best_policy.json",
        "best_policy.pt",
        "best.json",
        "final_eval.txt",
        "final_eval.json",
    ):
        assert (run_dir / name).is_file(), name
    used = load_config(run_dir / "config.yaml")
    assert used == SMOKE.model_copy(update={"runs_root": used.runs_root})
    versions = json.loads((run_dir / "versions.json").read_text())
    needed = {"python", "torch", "stable-baselines3", "sb3-contrib", "grove-env", "numpy"}
    assert needed <= set(versions)
    assert json.loads((run_dir / "run.json").read_text())["seed"] == SMOKE.seed
    ckpt = latest_checkpoint(run_dir)
    assert ckpt is not None
    assert ckpt.name == checkpoint.checkpoint_name(final_step(SMOKE.total_timesteps))
    names = {p.name for p in ckpt.iterdir()}
    assert names == {"model.zip", "policy.json", "policy.pt", "pool.pt", "state.json"}
    rows = (run_dir / "metrics.csv").read_text().splitlines()
    assert rows[0].startswith("step,wall_time_s,eval/win_share_vs_random,eval/win_share_vs_h")
    assert len(rows) >= 3
    # The final tables come from the tournament, with the trained agent as "ppo:PATH".
    final = json.loads((run_dir / "final_eval.json").read_text())
    assert final["spec"].startswith("ppo:")
    for table in ("vs_heuristic", "vs_random"):
        learner = final[table]["learner"]
        assert learner["ci_low"] <= learner["win_share"] <= learner["ci_high"]
    assert f"Gauntlet of {final['spec']}" in proc.stdout
    rule_based = {c["opponent"] for c in final["gauntlet"]["cells"] if c["rule_based"]}
    assert {"random", "greedy", "piler"} <= rule_based
    assert final["gauntlet"]["rule_based_worst"]["opponent"] in rule_based
    assert (run_dir / "final_eval.png").is_file()
    assert "win share" in proc.stdout


def test_tensorboard_scalars_are_namespaced(smoke_run) -> None:
    run_dir, _ = smoke_run
    acc = EventAccumulator(str(run_dir / "tb"))
    acc.Reload()
    tags = set(acc.Tags()["scalars"])
    assert {
        "eval/win_share_vs_random",
        "eval/win_share_vs_heuristic",
        "train/loss",
        "train/entropy_loss",
        "rollout/ep_rew_mean",
        "rollout/win_share",
    } <= tags
    assert all("/" in t for t in tags)


def test_ppo_agent_through_the_registry_and_tournament(smoke_run) -> None:
    run_dir, _ = smoke_run
    agent = make_agent(f"ppo:{run_dir}", seed=0)  # a run directory means its best policy
    assert agent.name == "ppo"
    mask = np.array([0] * 7 + [1, 0, 1], dtype=np.int8)
    for _ in range(5):
        obs = np.random.default_rng(0).random(125).astype(np.float32)
        assert agent.act({"observation": obs, "action_mask": mask}) in (7, 9)
    masks = np.zeros((6, 10), bool)
    masks[np.arange(6), np.arange(6)] = True
    np.testing.assert_array_equal(
        agent.act_batch(np.zeros((6, 125), np.float32), masks), np.arange(6)
    )
    result = run_tournament(
        [f"ppo:{run_dir / 'best_policy.json'}", "random", "random", "random"], games=8, seed=0
    )
    assert result.games == 8


def test_ppo_agent_errors(tmp_path: Path) -> None:
    with pytest.raises(ModelFileError, match="no policy at"):
        make_agent(f"ppo:{tmp_path / 'nothing.json'}")
    with pytest.raises(ModelFileError, match="holds no intact best_policy.json"):
        make_agent(f"ppo:{tmp_path}")
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"not a zip at all")
    with pytest.raises(ModelFileError, match="not a MaskablePPO checkpoint"):
        make_agent(f"sb3:{bad}")


def test_checkpoint_of_another_game_is_refused(tmp_path: Path) -> None:
    class Other(gym.Env):
        observation_space = gym.spaces.Box(0, 1, (10,), np.float32)
        action_space = gym.spaces.Discrete(4)

        def reset(self, seed=None, options=None):
            return np.zeros(10, np.float32), {}

        def step(self, action):
            return np.zeros(10, np.float32), 0.0, True, False, {}

        def action_masks(self):
            return np.ones(4, bool)

    path = tmp_path / "other.zip"
    MaskablePPO("MlpPolicy", Other(), n_steps=8, batch_size=8).save(path)
    with pytest.raises(ModelFileError, match=r"observations of shape \(10,\)"):
        load_model(path)
    with pytest.raises(ModelFileError, match=r"observations of shape \(10,\)"):
        make_agent(f"sb3:{path}")


def test_kill_9_then_resume_reaches_the_same_step_count(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    final = kill_then_resume(run_dir, "--set", "final_eval_games=8")
    assert load_model(latest_checkpoint(run_dir) / "model.zip").num_timesteps == final


def test_ctrl_c_saves_a_checkpoint_and_exits_cleanly(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    proc = start_and_wait_for_checkpoint(run_dir, "--set", "final_eval_games=8")
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 130, out
    assert "Traceback" not in out
    assert f"resume with: python train.py --resume {run_dir}" in out
    step = checkpoint.read_state(latest_checkpoint(run_dir))["step"]
    assert step % SMOKE.rollout_size == 0 and step > 0


def test_corrupt_or_mismatched_checkpoint_gives_a_clear_error(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    proc = start_and_wait_for_checkpoint(run_dir, "--set", "final_eval_games=8")
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    ckpt = latest_checkpoint(run_dir)

    changed = run_train("--resume", str(run_dir), "--set", "net_arch=[8]")
    assert changed.returncode == 2
    assert "--resume cannot change net_arch" in changed.stderr

    state = json.loads((ckpt / "state.json").read_text())
    state["config"]["num_players"] = 3
    (ckpt / "state.json").write_text(json.dumps(state))
    mismatched = run_train("--resume", str(run_dir))
    assert mismatched.returncode == 1
    assert "does not fit this run's config (num_players: checkpoint 3, run 4)" in mismatched.stderr
    assert "Traceback" not in mismatched.stderr

    state["config"]["num_players"] = 4
    (ckpt / "state.json").write_text(json.dumps(state))
    (ckpt / "model.zip").write_bytes(b"PK\x03\x04 truncated")
    corrupt = run_train("--resume", str(run_dir))
    assert corrupt.returncode == 1
    assert "error: " in corrupt.stderr and "model.zip" in corrupt.stderr
    assert "Traceback" not in corrupt.stderr
