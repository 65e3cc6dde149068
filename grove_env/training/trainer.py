"""Self-play MaskablePPO with shared weights: build, train, checkpoint, evaluate, resume.

Read top to bottom: :class:`Trainer` owns one run (its directory, opponent pool,
evaluators, schedule) and is the :class:`~grove_env.training.builders.RunHooks` of the
callback that :mod:`~grove_env.training.builders` makes, with the env and the model;
:mod:`~grove_env.training.runs` holds the entry points ``train.py`` calls.

Everything periodic happens at a rollout boundary (:meth:`Trainer.at_boundary`,
right after a PPO update): snapshots into the opponent pool, quick evaluations (and
``best.zip``), checkpoints. SIGINT/SIGTERM set a flag; the current rollout is
dropped, the step count goes back to the last boundary, a checkpoint is written and
the run exits with code 130. ``--resume`` reloads the newest checkpoint and trains
on to the same ``total_timesteps``.
"""

from __future__ import annotations

import json
import math
import signal
import sys
import time
from pathlib import Path
from typing import Any

import torch
from stable_baselines3.common.logger import Logger, configure
from tqdm import tqdm

from grove_env.agents.learned.actor import Actor
from grove_env.agents.learned.policy_files import BEST_POLICY, CHECKPOINT_PREFIX, latest_checkpoint
from grove_env.training import checkpoint
from grove_env.training.builders import RunCallback, build_env, build_model
from grove_env.training.config import (
    TrainConfig,
)
from grove_env.training.evaluate import eval_names, eval_score, evaluators, finish_run, metrics_row
from grove_env.training.imitation import imitate, teacher_games
from grove_env.training.run_dir import MetricsLog, metrics_columns, plot_learning_curve

RESUMABLE_FIELDS = (
    "total_timesteps",
    "eval_every",
    "eval_games",
    "final_eval_games",
    "final_eval_workers",
    "checkpoint_every",
    "keep_checkpoints",
    "progress",
    "torch_threads",
    "device",
)
"""Keys ``--set`` may change when resuming; the others shaped the checkpoint."""


class Trainer:
    """One run: its directory, model, opponent pool, evaluators and schedule."""

    def __init__(
        self, cfg: TrainConfig, run_dir: Path, ckpt: Path | None = None, device: str = "cpu"
    ) -> None:
        self.cfg = cfg
        self.run_dir = run_dir
        self.interrupted = False
        self.started = time.time()
        torch.set_num_threads(cfg.torch_threads)
        state: dict[str, Any] = {}
        if ckpt is None:
            self.env = build_env(cfg)
            self.model = build_model(cfg, self.env, device)
            if cfg.imitate is not None:
                self.learn_teacher(cfg.imitate)
        else:
            self.env = build_env(cfg, seed=cfg.seed + 7919 * (1 + _step_of(ckpt)))
            model = build_model(cfg, self.env, device)
            self.model, pool, state = checkpoint.load(ckpt, model, cfg)
            self.model.set_random_seed(cfg.seed + _step_of(ckpt))
        self.actor = Actor.of(self.model.policy)
        self.env.opponents.live = self.actor
        if ckpt is not None:
            self.env.opponents.load_pool_state(pool, self.actor)
        step = int(self.model.num_timesteps)
        self.boundary_step = step
        self.last_eval = int(state.get("last_eval", -(10**18)))
        self.last_snapshot = int(state.get("last_snapshot", 0))
        self.last_checkpoint = step
        self.best_score = max(float(state.get("best_score", -math.inf)), _best_so_far(run_dir))
        self.latest_eval: dict[str, float] = dict(state.get("latest_eval", {}))
        self._rollout_share: float | None = None
        self.metrics = MetricsLog(
            run_dir / "metrics.csv",
            metrics_columns(eval_names(cfg)),
            resume_step=step if ckpt else None,
        )
        self.evaluators = evaluators(cfg)
        self.model.set_logger(configure(str(run_dir / "tb"), ["tensorboard"]))
        self.bar: tqdm | None = None

    def learn_teacher(self, teacher: str) -> None:
        """The warm start: the network learns the teacher's moves (``imitate``)."""
        cfg = self.cfg
        began = time.time()
        data = teacher_games(cfg, teacher, cfg.imitate_steps, seed=cfg.seed + 104729)
        stats = imitate(self.model, data, cfg.imitate_epochs, cfg.batch_size, seed=cfg.seed)
        print(
            f"imitated {teacher}: {len(data.actions):,} decisions, {cfg.imitate_epochs} epochs, "
            f"{stats['agreement']:.1%} of its moves, {time.time() - began:.0f} s",
            flush=True,
        )

    # ----------------------------------------------------------------- schedule
    def at_boundary(self, step: int) -> None:
        """Snapshot, evaluate, checkpoint, whichever is due (right after an update)."""
        cfg = self.cfg
        self.boundary_step = step
        if step - self.last_snapshot >= cfg.snapshot_every:
            self.env.opponents.add_snapshot(self.actor, step)
            self.last_snapshot = step
        if step - self.last_eval >= cfg.eval_every:
            self.evaluate(step)
        if step - self.last_checkpoint >= cfg.checkpoint_every:
            self.save_checkpoint()

    def evaluate(self, step: int) -> None:
        """Quick evaluations; log them, update ``best.zip`` and the learning curve."""
        self.last_eval = step
        self.actor.eval()
        results = {e.name: e.run(self.actor, seed=self.cfg.seed + step) for e in self.evaluators}
        self.latest_eval = {k: r.win_share for k, r in results.items()}
        score = eval_score(self.latest_eval, self.cfg.best_by)
        logger = self.model.logger
        for name, r in results.items():
            logger.record(f"eval/win_share_vs_{name}", r.win_share)
            logger.record(f"eval/mean_reward_vs_{name}", r.mean_reward)
        logger.record("eval/score", score)
        logger.record("opponents/pool_size", len(self.env.opponents.pool))
        logger.dump(step)
        is_best = score > self.best_score
        if is_best:
            self.best_score = score
            info = {"step": step, "score": score, "criterion": self.cfg.best_by}
            checkpoint.save_best(self.run_dir, self.model, {**info, **self.latest_eval}, self.cfg)
        self.metrics.append(
            metrics_row(
                step,
                time.time() - self.started,
                self.latest_eval,
                score,
                **{"rollout/win_share": self._rollout_share},
                pool_size=len(self.env.opponents.pool),
            )
        )
        plot_learning_curve(self.run_dir / "metrics.csv", self.run_dir / "learning_curve.png")
        shown = ", ".join(f"vs {k} {v:.3f}" for k, v in self.latest_eval.items())
        line = f"step {step:,}: win share {shown}{'  (best)' if is_best else ''}"
        if self.bar is not None:
            self.bar.set_postfix_str(shown.replace("vs ", ""), refresh=False)
            self.bar.write(line)
        else:
            print(line, flush=True)

    def save_checkpoint(self) -> Path:
        self.last_checkpoint = int(self.model.num_timesteps)
        state: dict[str, Any] = {
            "last_eval": self.last_eval,
            "last_snapshot": self.last_snapshot,
            "latest_eval": self.latest_eval,
            "saved_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
        }
        if math.isfinite(self.best_score):
            state["best_score"] = self.best_score
        return checkpoint.save(
            self.run_dir,
            self.model,
            self.env.opponents.pool_state(),
            state,
            self.cfg,
            keep=self.cfg.keep_checkpoints,
        )

    # ----------------------------------------------------------------- callback hooks
    def after_step(self, slots: int) -> bool:
        """Advance the progress bar; False once SIGINT/SIGTERM asked to stop."""
        if self.bar is not None:
            self.bar.update(slots)
        return not self.interrupted

    def after_rollout(self, logger: Logger) -> None:
        """Log the learner's win share in the games the rollout finished."""
        results = self.env.pop_results()
        games = sum(g for g, _ in results.values())
        if games:
            share = sum(g * p for g, p in results.values()) / games
            self._rollout_share = share
            logger.record("rollout/win_share", share)
            for label, (_, p) in results.items():
                logger.record(f"rollout/win_share_vs_{label}", p)

    # ----------------------------------------------------------------- running
    def learn(self) -> bool:
        """Train to ``total_timesteps``; False if interrupted (checkpoint written)."""
        cfg = self.cfg
        remaining = cfg.total_timesteps - int(self.model.num_timesteps)
        previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}

        def stop(signum: int, frame: Any) -> None:
            if self.interrupted:  # a second Ctrl-C: stop waiting
                signal.signal(signal.SIGINT, signal.default_int_handler)
                raise KeyboardInterrupt
            self.interrupted = True

        for s in previous:
            signal.signal(s, stop)
        self.bar = tqdm(
            total=cfg.total_timesteps,
            initial=int(self.model.num_timesteps),
            unit="step",
            unit_scale=True,
            dynamic_ncols=True,
            disable=None if cfg.progress else True,
            file=sys.stderr,
        )
        try:
            if remaining > 0:
                self.model.learn(
                    total_timesteps=remaining,
                    callback=RunCallback(self),
                    reset_num_timesteps=False,
                    progress_bar=False,
                )
        finally:
            self.bar.close()
            self.bar = None
            for s, handler in previous.items():
                signal.signal(s, handler)
        if self.interrupted:
            # The rollout in progress was never trained on: drop its steps.
            self.model.num_timesteps = self.boundary_step
            path = self.save_checkpoint()
            print(
                f"interrupted at step {self.boundary_step:,}; checkpoint {path}\n"
                f"resume with: python train.py --resume {self.run_dir}",
                flush=True,
            )
            return False
        step = int(self.model.num_timesteps)
        if self.last_eval != step:
            self.evaluate(step)
        if self.last_checkpoint != step or latest_checkpoint(self.run_dir) is None:
            self.save_checkpoint()
        return True

    def finish(self) -> str | None:
        """Final tournament on ``best_policy`` (skipped with ``final_eval_games: 0``)."""
        plot_learning_curve(self.run_dir / "metrics.csv", self.run_dir / "learning_curve.png")
        return finish_run(self.cfg, self.run_dir, self.run_dir / BEST_POLICY)


def _best_so_far(run_dir: Path) -> float:
    """Score of ``best.zip`` (it may be newer than the checkpoint a resume starts from)."""
    try:
        return float(json.loads((run_dir / "best.json").read_text())["score"])
    except (OSError, ValueError, KeyError, TypeError):
        return -math.inf


def _step_of(ckpt: Path) -> int:
    return int(ckpt.name.removeprefix(CHECKPOINT_PREFIX))
