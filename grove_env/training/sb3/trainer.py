"""Self-play MaskablePPO with shared weights (``backend: sb3``): build, train, checkpoint, resume.

:class:`Trainer` is the SB3 learner inside a :class:`~grove_env.training.schedule.
RunSchedule` (the schedule, evaluations, the best policy and Ctrl-C, which every
backend shares), and the :class:`~grove_env.training.sb3.builders.RunHooks` of the callback
that :mod:`~grove_env.training.sb3.builders` makes, with the env and the model;
:mod:`~grove_env.training.front` holds the entry points ``train.py`` calls.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import torch
from stable_baselines3.common.logger import Logger, configure

from grove_env.agents.learned.actor import Actor
from grove_env.agents.learned.policy_files import CHECKPOINT_PREFIX
from grove_env.training.config import TrainConfig
from grove_env.training.run import checkpoint
from grove_env.training.sb3.builders import RunCallback, build_env, build_model
from grove_env.training.schedule import RunSchedule
from grove_env.training.selfplay.teacher import imitate, report_imitation, teacher_games


class Trainer(RunSchedule):
    """One SB3 run: its directory, model, opponent pool, evaluators and schedule."""

    @staticmethod
    def latest_checkpoint(run_dir: Path) -> Path | None:
        """The newest intact checkpoint (``model.zip``) a resume starts from."""
        return checkpoint.latest_intact(run_dir)

    def __init__(
        self, cfg: TrainConfig, run_dir: Path, ckpt: Path | None = None, device: str = "cpu"
    ) -> None:
        self.cfg = cfg
        self.run_dir = run_dir
        torch.set_num_threads(cfg.torch_threads)
        state: dict[str, Any] = {}
        if ckpt is None:
            self.env = build_env(cfg)
            self.model = build_model(cfg, self.env, device)
            if cfg.imitate is not None:
                self.learn_teacher(cfg.imitate)
        else:
            self.env = build_env(cfg, seed=cfg.seed + 7919 * (1 + step_of(ckpt)))
            model = build_model(cfg, self.env, device)
            self.model, pool, state = checkpoint.load(ckpt, model, cfg)
            self.model.set_random_seed(cfg.seed + step_of(ckpt))
        self.actor = Actor.of(self.model.policy)
        self.opponents = self.env.opponents
        self.opponents.live = self.actor
        if ckpt is not None:
            self.opponents.load_pool_state(pool, self.actor)
        self.start_schedule(self.step, state, resumed=ckpt is not None)
        self.model.set_logger(configure(str(run_dir / "tb"), ["tensorboard"]))

    def learn_teacher(self, teacher: str) -> None:
        """The warm start: the network learns the teacher's moves (``imitate``)."""
        cfg = self.cfg
        began = time.time()
        data = teacher_games(cfg, teacher, cfg.imitate_steps, seed=cfg.seed + 104729)
        stats = imitate(self.model, data, cfg.imitate_epochs, cfg.batch_size, seed=cfg.seed)
        report_imitation(teacher, len(data.actions), cfg.imitate_epochs, stats, began)

    # ----------------------------------------------------------------- the learner's part
    @property
    def step(self) -> int:
        return int(self.model.num_timesteps)

    def rewind(self, step: int) -> None:
        self.model.num_timesteps = step

    def train(self) -> None:
        self.model.learn(
            total_timesteps=self.cfg.total_timesteps - self.step,
            callback=RunCallback(self),
            reset_num_timesteps=False,
            progress_bar=False,
        )

    def log(self, scalars: dict[str, float], step: int) -> None:
        for key, value in scalars.items():
            self.model.logger.record(key, value)
        self.model.logger.dump(step)

    def save_best(self, info: dict[str, Any]) -> None:
        checkpoint.save_best(self.run_dir, self.model, info, self.cfg)

    def write_checkpoint(self, state: dict[str, Any]) -> Path:
        return checkpoint.save(
            self.run_dir,
            self.model,
            self.opponents.pool_state(),
            state,
            self.cfg,
            keep=self.cfg.keep_checkpoints,
        )

    def after_rollout(self, logger: Logger) -> None:
        """Log the learner's win share in the games the rollout finished."""
        for key, value in self.rollout_share(self.env.pop_results()).items():
            logger.record(key, value)


def step_of(ckpt: Path) -> int:
    return int(ckpt.name.removeprefix(CHECKPOINT_PREFIX))
