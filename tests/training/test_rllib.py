"""``backend: rllib``: the masked module, the policy export, and the smoke run with resume.

Skipped where Ray RLlib is not installed (``pip install grove-env[rllib]``).
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

from grove_env.agents.base import make_agent  # noqa: E402
from grove_env.training.config import config_from_dict  # noqa: E402
from grove_env.training.rllib.backend import export_policy  # noqa: E402
from grove_env.training.rllib.module import MaskedActorCritic, actor_of  # noqa: E402
from grove_env.training.selfplay.gym_env import SINGLE_OBSERVATION_SPACE, SelfPlayVectorEnv  # noqa: E402

pytestmark = pytest.mark.slow  # RLlib starts Ray

ROOT = Path(__file__).resolve().parents[2]


def module(net_arch: list[int], activation: str) -> MaskedActorCritic:
    return MaskedActorCritic(
        observation_space=SINGLE_OBSERVATION_SPACE,
        action_space=SelfPlayVectorEnv(1).single_action_space,
        model_config={"net_arch": net_arch, "activation": activation},
    )


def observations(count: int) -> tuple[np.ndarray, np.ndarray]:
    envs = SelfPlayVectorEnv(count, "random", seed=0)
    obs, _ = envs.reset(seed=0)
    return obs["observation"], obs["action_mask"].astype(bool)


@pytest.mark.parametrize(("net_arch", "activation"), [([32, 16], "relu"), ([8], "tanh")])
def test_exported_policy_plays_as_ppo_exactly_like_the_module(
    tmp_path: Path, net_arch: list[int], activation: str
) -> None:
    import torch

    m = module(net_arch, activation)
    cfg = config_from_dict(
        {"net_arch": net_arch, "activation": activation, "features": "observation"}
    )
    path = export_policy(m, cfg, 1000, tmp_path / "policy.json")
    assert path.is_file() and path.with_suffix(".pt").is_file()
    obs, masks = observations(64)
    agent = make_agent(f"ppo:{path}")
    mine = actor_of(m).act(obs, masks, deterministic=True)
    np.testing.assert_array_equal(agent.act_batch(obs, masks), mine)
    assert masks[np.arange(64), mine].all()
    with torch.no_grad():  # and the module masks illegal moves itself
        logits = m.forward_inference(
            {"obs": {"observation": torch.as_tensor(obs), "action_mask": torch.as_tensor(masks)}}
        )["action_dist_inputs"]
    assert masks[np.arange(64), logits.argmax(dim=1).numpy()].all()


def test_rllib_config_must_leave_live_and_pool_out() -> None:
    from grove_env.training.config import ConfigError

    with pytest.raises(ConfigError, match="opponents.live=0 and opponents.pool=0"):
        config_from_dict({"backend": "rllib"})


def run_train(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAY_ADDRESS": ""}
    return subprocess.run(
        [sys.executable, str(ROOT / "train.py"), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_rllib_smoke_config_trains_checkpoints_and_resumes(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    first = run_train(
        "--config",
        "configs/rllib_smoke.yaml",
        "--set",
        f"run_dir={run_dir}",
        "--set",
        "final_eval_games=0",
    )
    assert first.returncode == 0, first.stdout[-2000:] + first.stderr[-3000:]
    for name in (
        "config.yaml",
        "best_policy.json",
        "best.json",
        "metrics.csv",
        "learning_curve.png",
    ):
        assert (run_dir / name).is_file(), name
    assert list((run_dir / "tb").glob("events.out.tfevents.*"))
    checkpoints = sorted((run_dir / "rllib_checkpoints").glob("step_*"))
    assert checkpoints and (checkpoints[-1] / "state.json").is_file()
    rows = list(csv.DictReader((run_dir / "metrics.csv").read_text().splitlines()))
    assert len(rows) >= 2 and float(rows[-1]["step"]) >= 2048

    second = run_train("--resume", str(run_dir), "--set", "total_timesteps=3072")
    assert second.returncode == 0, second.stdout[-2000:] + second.stderr[-3000:]
    assert f"from checkpoint {checkpoints[-1].name}" in second.stdout
    steps = [
        int(p.name.removeprefix("step_")) for p in (run_dir / "rllib_checkpoints").glob("step_*")
    ]
    assert max(steps) >= 3072 > int(checkpoints[-1].name.removeprefix("step_"))
    assert make_agent(f"ppo:{run_dir}").act_batch(*observations(4)).shape == (4,)
