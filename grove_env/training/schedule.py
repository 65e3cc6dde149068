"""What every backend's run does alike: the schedule, evaluations, the best policy, Ctrl-C.

:class:`RunSchedule` is the part of a run that does not depend on who computes the
update: the SB3 backend (:class:`~grove_env.training.sb3.trainer.Trainer`) and the batched
one (:class:`~grove_env.training.batched.trainer.BatchedTrainer`) subclass it and supply
the learner (:meth:`~RunSchedule.train`, the step count, the files of a checkpoint and
of the best policy, the TensorBoard writer).

Everything periodic happens at a rollout boundary (:meth:`RunSchedule.at_boundary`,
right after an update): snapshots into the opponent pool, quick evaluations (and the
opponent mix moved by them, ``follow_worst``), exact NashConvs (``exploit_every``), the
best policy, checkpoints. A boundary that measures
anything appends one ``metrics.csv`` row (a cell left blank where that measure was
not due). SIGINT/SIGTERM set a flag; the current rollout is dropped, the step count
goes back to the last boundary, a checkpoint is written and the run exits with code
130. ``--resume`` reloads the newest checkpoint and trains on to the same
``total_timesteps``.
"""

from __future__ import annotations

import json
import math
import signal
import sys
import time
from pathlib import Path
from typing import Any

from tqdm import tqdm

from grove_env.agents.learned.actor import Actor
from grove_env.agents.learned.policy_files import BEST_POLICY, latest_checkpoint
from grove_env.training.config import TrainConfig
from grove_env.training.measure.evaluate import (
    eval_names,
    eval_score,
    evaluators,
    finish_run,
    metrics_row,
)
from grove_env.training.measure.exploit import (
    ExploitMeter,
    exploit_columns,
    nashconv_score,
    plot_nashconv,
)
from grove_env.training.run.directory import MetricsLog, metrics_columns, plot_learning_curve
from grove_env.training.selfplay.opponents import POOL, Opponents, follow_worst
from grove_env.training.selfplay.tables import FIRST_ROUND

NEVER = -(10**18)


class RunSchedule:
    """One run's directory, schedule and measurements (module docstring)."""

    cfg: TrainConfig
    run_dir: Path
    actor: Actor
    """The live policy (sharing the learner's weights)."""
    opponents: Opponents

    def complete(self) -> bool:
        """Trained to ``total_timesteps`` and finally evaluated (``final_eval.json``)."""
        done = self.step >= self.cfg.total_timesteps
        return done and (self.run_dir / "final_eval.json").is_file()

    def close(self) -> None:
        """Nothing outside this process to let go of."""

    @staticmethod
    def check(cfg: TrainConfig) -> None:
        """Nothing beyond the config's own checks."""

    def start_schedule(self, step: int, state: dict[str, Any], resumed: bool) -> None:
        """The counters at ``step`` (a checkpoint's ``state``, or none), and the logs."""
        cfg = self.cfg
        self.interrupted = False
        self.started = time.time()
        self.boundary_step = step
        self.last_eval = int(state.get("last_eval", NEVER))
        self.last_exploit = int(state.get("last_exploit", NEVER))
        self.last_snapshot = int(state.get("last_snapshot", 0))
        self.last_checkpoint = step
        self.best_score = max(float(state.get("best_score", -math.inf)), _best_so_far(self.run_dir))
        self.latest_eval: dict[str, float] = dict(state.get("latest_eval", {}))
        self._rollout_share: float | None = None
        columns = metrics_columns(eval_names(cfg), exploit_columns(cfg))
        self.metrics = MetricsLog(
            self.run_dir / "metrics.csv", columns, resume_step=step if resumed else None
        )
        self.evaluators = evaluators(cfg)
        self.exploit_meter = ExploitMeter(cfg) if cfg.exploit_every is not None else None
        self.bar: tqdm | None = None
        self.mix_to_send: dict[str, float] | None = None
        """Opponent weights (``follow_worst``) a collector process has not had yet."""

    # ----------------------------------------------------------------- the learner's part
    @property
    def step(self) -> int:
        """Learner steps trained on so far."""
        raise NotImplementedError

    def rewind(self, step: int) -> None:
        """Set the step count back to ``step`` (the rollout in progress was dropped)."""
        raise NotImplementedError

    def train(self) -> None:
        """Train to ``total_timesteps``, calling :meth:`at_boundary` after each update and
        :meth:`after_step` after each step; stop early once that returns False."""
        raise NotImplementedError

    def log(self, scalars: dict[str, float], step: int) -> None:
        """Write scalars to TensorBoard at ``step``."""
        raise NotImplementedError

    def save_best(self, info: dict[str, Any]) -> None:
        """Replace the best policy's files with the live policy (``info``: best.json)."""
        raise NotImplementedError

    def write_checkpoint(self, state: dict[str, Any]) -> Path:
        """Write a checkpoint at :attr:`step` holding ``state``; its folder."""
        raise NotImplementedError

    # ----------------------------------------------------------------- schedule
    def at_boundary(self, step: int) -> None:
        """Snapshot, evaluate, checkpoint, whichever is due (right after an update)."""
        cfg = self.cfg
        self.boundary_step = step
        if step - self.last_snapshot >= cfg.snapshot_every:
            self.opponents.add_snapshot(self.actor, step)
            self.last_snapshot = step
        evaluate = step - self.last_eval >= cfg.eval_every
        exploit = cfg.exploit_every is not None and step - self.last_exploit >= cfg.exploit_every
        if evaluate or exploit:
            self.measure(step, evaluate, exploit)
        if step - self.last_checkpoint >= cfg.checkpoint_every:
            self.save_checkpoint()

    def measure(self, step: int, evaluate: bool, exploit: bool) -> None:
        """Quick evaluations and/or NashConv: log them, keep the best policy, one row."""
        self.actor.eval()
        shares: dict[str, float] = {}
        score: float | None = None
        scalars: dict[str, float] = {"opponents/pool_size": len(self.opponents.pool)}
        if evaluate:
            self.last_eval = step
            results = {
                e.name: e.run(self.actor, seed=self.cfg.seed + step) for e in self.evaluators
            }
            shares = self.latest_eval = {k: r.win_share for k, r in results.items()}
            for name, r in results.items():
                scalars[f"eval/win_share_vs_{name}"] = r.win_share
                scalars[f"eval/mean_reward_vs_{name}"] = r.mean_reward
            if self.cfg.best_by != "nashconv":
                score = eval_score(shares, self.cfg.best_by)
                scalars["eval/score"] = score
        nash: dict[str, float] = {}
        if exploit and self.exploit_meter is not None:
            self.last_exploit = step
            nash = self.exploit_meter.measure(self.actor)
            scalars.update(nash)
            if self.cfg.best_by == "nashconv":
                score = nashconv_score(nash)
        self.log(scalars, step)
        is_best = score is not None and score > self.best_score
        if is_best:
            self.best_score = float(score)  # type: ignore[arg-type]
            info = {"step": step, "score": score, "criterion": self.cfg.best_by}
            self.save_best({**info, **self.latest_eval, **nash})
        columns = set(self.metrics.columns)
        more = {k: v for k, v in nash.items() if k in columns}
        row = metrics_row(step, time.time() - self.started, shares, score, **more)
        row.update(
            {"rollout/win_share": self._rollout_share, "pool_size": len(self.opponents.pool)}
        )
        self.metrics.append(row)
        self.plot()
        self.say(step, shares, nash, is_best)
        if evaluate and self.cfg.follow_worst:
            self.follow(shares, step)

    def follow(self, shares: dict[str, float], step: int) -> None:
        """Move the opponent mix towards the kinds the quick evaluation's ``shares`` were
        lowest against (``follow_worst``; the batched backend's collector process takes
        :attr:`mix_to_send` with its next order); logged as ``opponents/weight_<kind>``."""
        cfg = self.cfg
        base = cfg.opponents.weights()
        mix = {**base, **follow_worst(base, shares, cfg.follow_worst, cfg.num_players)}
        self.opponents.set_weights(mix)
        self.mix_to_send = mix
        kinds = (*self.opponents.names, POOL)
        weights = dict(zip(kinds, self.opponents.weights.tolist()))
        self.log({f"opponents/weight_{k}": w for k, w in weights.items() if w > 0}, step)

    def say(self, step: int, shares: dict[str, float], nash: dict[str, float], best: bool) -> None:
        parts = [", ".join(f"vs {k} {v:.3f}" for k, v in shares.items())] if shares else []
        parts += [f"{k.removeprefix('exploit/')} {v:.4f}" for k, v in nash.items() if "nash" in k]
        line = f"step {step:,}: {'win share ' if shares else ''}{'; '.join(parts)}"
        line += "  (best)" if best else ""
        if self.bar is not None:
            if shares:
                shown = ", ".join(f"{k} {v:.3f}" for k, v in shares.items())
                self.bar.set_postfix_str(shown, refresh=False)
            self.bar.write(line)
        else:
            print(line, flush=True)

    def plot(self) -> None:
        metrics = self.run_dir / "metrics.csv"
        plot_learning_curve(metrics, self.run_dir / "learning_curve.png")
        if self.exploit_meter is not None:
            plot_nashconv(metrics, self.run_dir / "nashconv.png")

    def save_checkpoint(self) -> Path:
        self.last_checkpoint = self.step
        state: dict[str, Any] = {
            "last_eval": self.last_eval,
            "last_exploit": self.last_exploit,
            "last_snapshot": self.last_snapshot,
            "latest_eval": self.latest_eval,
            "saved_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
        }
        if math.isfinite(self.best_score):
            state["best_score"] = self.best_score
        return self.write_checkpoint(state)

    def after_step(self, slots: int) -> bool:
        """Advance the progress bar; False once SIGINT/SIGTERM asked to stop."""
        if self.bar is not None:
            self.bar.update(slots)
        return not self.interrupted

    def rollout_share(self, results: dict[str, tuple[int, float]]) -> dict[str, float]:
        """The learner's win share in the games a rollout finished, as scalars to log: the
        whole games' together (``round_games``' are logged per label only)."""
        whole = [r for label, r in results.items() if not label.endswith(FIRST_ROUND)]
        games = sum(g for g, _ in whole)
        if not games:
            return {}
        share = sum(g * p for g, p in whole) / games
        self._rollout_share = share
        scalars = {"rollout/win_share": share}
        scalars.update({f"rollout/win_share_vs_{label}": p for label, (_, p) in results.items()})
        return scalars

    # ----------------------------------------------------------------- running
    def learn(self) -> bool:
        """Train to ``total_timesteps``; False if interrupted (checkpoint written)."""
        cfg = self.cfg
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
            initial=self.step,
            unit="step",
            unit_scale=True,
            dynamic_ncols=True,
            disable=None if cfg.progress else True,
            file=sys.stderr,
        )
        try:
            if self.step < cfg.total_timesteps:
                self.train()
        finally:
            self.bar.close()
            self.bar = None
            for s, handler in previous.items():
                signal.signal(s, handler)
        if self.interrupted:
            self.rewind(self.boundary_step)  # the rollout in progress was never trained on
            path = self.save_checkpoint()
            print(
                f"interrupted at step {self.boundary_step:,}; checkpoint {path}\n"
                f"resume with: python train.py --resume {self.run_dir}",
                flush=True,
            )
            return False
        step = self.step
        exploit = cfg.exploit_every is not None and self.last_exploit != step
        if self.last_eval != step or exploit:
            self.measure(step, self.last_eval != step, exploit)
        if self.last_checkpoint != step or latest_checkpoint(self.run_dir) is None:
            self.save_checkpoint()
        return True

    def finish(self) -> str | None:
        """Final tournament on ``best_policy`` (skipped with ``final_eval_games: 0``)."""
        self.plot()
        return finish_run(self.cfg, self.run_dir, self.run_dir / BEST_POLICY)


def _best_so_far(run_dir: Path) -> float:
    """Score of the best policy (it may be newer than the checkpoint a resume starts from)."""
    try:
        return float(json.loads((run_dir / "best.json").read_text())["score"])
    except (OSError, ValueError, KeyError, TypeError):
        return -math.inf
