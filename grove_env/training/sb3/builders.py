"""The pieces of a run, built from its config: opponents, the VecEnv, the model, the callback.

Each builder reads only :class:`~grove_env.training.config.TrainConfig` (and a seed), so
:mod:`~grove_env.training.sb3.trainer` reads as the loop alone. The order in which a run
calls them is the order in which the random generators are seeded; it is fixed there.
"""

from __future__ import annotations

import functools
from typing import Any, Protocol, cast

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import Logger

from grove_env.training.config import TrainConfig
from grove_env.training.run.device import resolve_device
from grove_env.training.sb3.features import GroveFeatures
from grove_env.training.sb3.vec_env import GroveSelfPlayVecEnv, TablesVecEnv
from grove_env.training.selfplay.tables import build_opponents, table_games


def build_env(cfg: TrainConfig, seed: int | None = None) -> GroveSelfPlayVecEnv | TablesVecEnv:
    """The training VecEnv with its opponents (seeded ``seed + 1``; ``seed`` defaults to the
    config's): one table's games, or every table's of ``tables``, ``num_envs`` in all."""
    seed = cfg.seed if seed is None else seed
    opponents = build_opponents(cfg, seed + 1)
    face = functools.partial(GroveSelfPlayVecEnv, advice=cfg.features == "advice")
    envs = cast(list[GroveSelfPlayVecEnv], table_games(cfg, opponents, seed, make=face))
    return envs[0] if len(envs) == 1 else TablesVecEnv(envs)


def policy_kwargs(cfg: TrainConfig) -> dict[str, Any]:
    """Network shape: hidden layers, activation, and the input features."""
    kwargs: dict[str, Any] = {
        "net_arch": {"pi": list(cfg.net_arch), "vf": list(cfg.net_arch)},
        "activation_fn": {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[cfg.activation],
    }
    if cfg.features != "observation":
        kwargs["features_extractor_class"] = GroveFeatures
        kwargs["features_extractor_kwargs"] = {"kind": cfg.features}
    return kwargs


class LinearSchedule:
    """SB3 learning-rate schedule: linear from ``start`` to ``end`` over the training."""

    def __init__(self, start: float, end: float = 0.0) -> None:
        self.start = start
        self.end = end

    def __call__(self, progress_remaining: float) -> float:
        return self.end + (self.start - self.end) * progress_remaining


def build_model(
    cfg: TrainConfig, env: GroveSelfPlayVecEnv | TablesVecEnv, device: str | None = None
) -> MaskablePPO:
    """A fresh MaskablePPO whose MLP policy and value nets have ``net_arch`` hidden layers,
    on ``device`` (default: :func:`resolve_device` of the config's)."""
    lr: float | LinearSchedule = cfg.learning_rate
    if cfg.lr_schedule == "linear":
        lr = LinearSchedule(cfg.learning_rate, cfg.learning_rate_end)
    return MaskablePPO(
        "MlpPolicy",
        env,
        learning_rate=lr,
        n_steps=cfg.n_steps,
        batch_size=cfg.batch_size,
        n_epochs=cfg.n_epochs,
        gamma=cfg.gamma,
        gae_lambda=cfg.gae_lambda,
        clip_range=cfg.clip_range,
        ent_coef=cfg.ent_coef,
        vf_coef=cfg.vf_coef,
        max_grad_norm=cfg.max_grad_norm,
        target_kl=cfg.target_kl,
        policy_kwargs=policy_kwargs(cfg),
        seed=cfg.seed,
        device=resolve_device(cfg.device) if device is None else device,
        verbose=0,
    )


class RunHooks(Protocol):
    """What the callback calls on the run (:class:`~grove_env.training.sb3.trainer.Trainer`)."""

    def at_boundary(self, step: int) -> None:
        """Right after a PPO update (and before the first rollout)."""

    def after_step(self, slots: int) -> bool:
        """After one VecEnv step of ``slots`` learner decisions; False stops training."""

    def after_rollout(self, logger: Logger) -> None:
        """After a rollout is collected, before the update trains on it."""


class RunCallback(BaseCallback):
    """Connects a run to ``MaskablePPO.learn``: schedule, progress, stop flag, rollout stats."""

    def __init__(self, run: RunHooks) -> None:
        super().__init__()
        self.run = run

    def _on_rollout_start(self) -> None:
        self.run.at_boundary(int(self.model.num_timesteps))

    def _on_step(self) -> bool:
        return self.run.after_step(self.training_env.num_envs)

    def _on_rollout_end(self) -> None:
        self.run.after_rollout(self.logger)
