"""``backend: batched``: the run's learner is this package's PPO over the batched engine.

:class:`BatchedTrainer` is a :class:`~grove_env.training.schedule.RunSchedule` (the
schedule, evaluations, NashConv, the best policy, Ctrl-C: what the SB3 backend does
too) whose learner is a loop of :meth:`Collector.collect
<grove_env.training.batched.rollout.Collector.collect>` and :func:`~grove_env.training.
batched.update.ppo_update`. A checkpoint folder holds ``model.pt`` (network, optimiser
and generator state, :mod:`~grove_env.training.run.network`), the policy in the safe
format, ``pool.pt`` (the opponent snapshots, and the magnet's) and ``state.json``. The
best policy is ``best_policy.json``/``.pt`` (no SB3 zip).

Seeding: torch's global generator (the initial weights) and the learner's sampling
generator take ``seed``; the opponents ``seed + 1``; table ``i``'s games ``seed + 7919
i``, as the SB3 backend seeds them. A resume at step ``s`` restarts the games from
``seed + 7919 (1 + s)`` and restores the sampling generator, so two runs of one config
on the CPU give the same metrics, and a resumed run the same step count.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from torch.utils.tensorboard import SummaryWriter

from grove_env.agents.learned.actor import Actor
from grove_env.agents.learned.policy_files import BEST_POLICY
from grove_env.agents.learned.safe_policy import save_policy
from grove_env.training.config import TrainConfig
from grove_env.training.run import checkpoint
from grove_env.training.run.directory import atomic_write_text
from grove_env.training.run.network import (
    MODEL_FILE,
    ActorCritic,
    load_model,
    read_model,
    save_model,
)
from grove_env.training.schedule import RunSchedule
from grove_env.training.selfplay.tables import build_opponents, training_games
from grove_env.training.selfplay.teacher import fit_teacher, report_imitation, teacher_games

from .lanes import LaneCollector, LaneRollout
from .loss import LossWeights, masked_log_probs, scheduled
from .remote import RemoteCollector, owned
from .rollout import Collector, Rollout, RolloutStats, bootstrap_gamma
from .update import UpdateSettings, ppo_update


def read_checkpoint_model(ckpt: Path) -> dict[str, Any]:
    """``model.pt`` of a checkpoint folder (what ``--resume`` checks before it trusts one)."""
    return read_model(ckpt / MODEL_FILE)


class BatchedTrainer(RunSchedule):
    """One batched run: its games, network, opponent pool, evaluators and schedule."""

    @staticmethod
    def latest_checkpoint(run_dir: Path) -> Path | None:
        """The newest intact checkpoint (``model.pt``) a resume starts from."""
        return checkpoint.latest_intact(run_dir, read_checkpoint_model)

    def __init__(
        self, cfg: TrainConfig, run_dir: Path, ckpt: Path | None = None, device: str = "cpu"
    ) -> None:
        self.cfg = cfg
        self.run_dir = run_dir
        self.device = torch.device(device)
        torch.set_num_threads(cfg.torch_threads)
        torch.manual_seed(cfg.seed)
        self.card = checkpoint.policy_card(cfg, 0)
        self.model = ActorCritic(self.card, cfg.shared_trunk).to(self.device)
        # foreach: one call per operation over all twelve tensors, not a Python loop over
        # them (torch's default on a GPU; on the CPU the same values bit for bit, and a step
        # of the default network 0.85 -> 0.59 ms).
        self.optimizer = torch.optim.Adam(
            self.model.parameters(), lr=cfg.learning_rate, eps=1e-5, foreach=True
        )
        self.generator = torch.Generator().manual_seed(cfg.seed)
        self.actor: Actor = self.model.actor
        self.opponents = build_opponents(cfg, cfg.seed + 1)
        self.opponents.live = self.actor
        lanes = cfg.learn_from == "live_seats"
        self.rollout: Rollout | LaneRollout = (LaneRollout if lanes else Rollout).empty(
            cfg.n_steps,
            cfg.num_envs,
            self.card.input_size,
            torch.device("cpu") if cfg.overlap else self.device,
            magnet=cfg.magnet == "snapshot",
        )
        self.collector: Collector | None = None
        self.remote: RemoteCollector | None = None
        self.pending: RolloutStats | None = None
        """``overlap``: the results of the rollout in :attr:`rollout` not learnt from yet."""
        if cfg.overlap:
            self.remote = RemoteCollector(cfg, self.model, self.rollout)
        else:
            self.games, rounds = training_games(
                cfg, self.opponents, cfg.seed, "live" if lanes else "learner"
            )
            self.collector = (LaneCollector if lanes else Collector)(
                self.games,
                self.model,
                bootstrap_gamma(cfg),
                cfg.features == "advice",
                self.device,
                self.generator,
                rounds,
            )
        state = self._start(ckpt)
        self.settings = UpdateSettings(
            cfg.n_epochs,
            cfg.batch_size,
            cfg.gamma,
            cfg.gae_lambda,
            cfg.max_grad_norm,
            cfg.target_kl,
        )
        self.start_schedule(self._step, state, resumed=ckpt is not None)
        self.writer = SummaryWriter(str(run_dir / "tb"))
        if cfg.follow_worst and self.latest_eval:  # resumed: the mix the last one followed
            self.follow(self.latest_eval, self._step)

    def learn_teacher(self, teacher: str) -> None:
        """The warm start: the network learns the teacher's moves (``imitate``)."""
        cfg = self.cfg
        began = time.time()
        data = teacher_games(cfg, teacher, cfg.imitate_steps, seed=cfg.seed + 104729)

        def forward(rows: torch.Tensor, masks: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            logits, values = self.model(rows)
            return masked_log_probs(logits, masks), values

        self.model.train()
        stats = fit_teacher(
            forward,
            self.model.parameters(),
            data,
            cfg.imitate_epochs,
            cfg.batch_size,
            cfg.seed,
            lr=cfg.learning_rate,
            vf_coef=cfg.vf_coef,
            max_grad_norm=cfg.max_grad_norm,
            device=self.device,
        )
        report_imitation(teacher, len(data.actions), cfg.imitate_epochs, stats, began)

    # ----------------------------------------------------------------- the learner's part
    def _start(self, ckpt: Path | None) -> dict[str, Any]:
        """The weights, pool and games at the start: fresh (after the warm start, if
        any) or from ``ckpt``, whose saved state is returned."""
        cfg = self.cfg
        self.magnet: Actor | None = None
        self.last_magnet = 0
        state: dict[str, Any] = {}
        self._step = 0
        self.learning_began = time.perf_counter()
        if ckpt is None:
            if cfg.imitate is not None:
                self.learn_teacher(cfg.imitate)
            self.restart(cfg.seed)
        else:
            state = self._load(ckpt)
            self.restart(cfg.seed + 7919 * (1 + self._step))
        if cfg.magnet == "snapshot" and self.magnet is None:
            self.magnet = self.actor.frozen_copy()
        if self.collector is not None:
            self.collector.magnet = self.magnet
        return state

    def restart(self, seed: int) -> None:
        """Start every game afresh from ``seed`` (table ``i`` from ``seed + 7919 i``)."""
        if self.remote is not None:
            self.remote.restart(seed)
            self.pending = None
        else:
            assert self.collector is not None
            self.collector.restart(seed)

    @property
    def step(self) -> int:
        return self._step

    def rewind(self, step: int) -> None:
        self._step = step

    def train(self) -> None:
        self.learning_began = time.perf_counter()
        while self.progress() < 1.0:  # the steps' share or the seconds', the larger
            self.at_boundary(self._step)
            if not self.iterate():
                return  # interrupted: the rollout is dropped

    def progress(self) -> float:
        """How far the run is, 0 to 1: its steps' share of ``total_timesteps``, or of
        ``max_seconds`` the seconds this process has learnt for, whichever is larger."""
        done = self._step / self.cfg.total_timesteps
        if self.cfg.max_seconds is not None:
            seconds = time.perf_counter() - self.learning_began
            done = max(done, seconds / self.cfg.max_seconds)
        return min(done, 1.0)

    def iterate(self) -> bool:
        """One rollout and the update on it, logged; False if interrupted meanwhile.

        With ``overlap`` (:mod:`.remote`) the rollout learnt from is the one collected
        during the update before, and the next one is collected during this update (if
        interrupted meanwhile, that one is dropped at the next call).
        """
        cfg = self.cfg
        self._refresh_magnet()
        began = time.perf_counter()
        stats = self.pending if self.pending is not None else self.collect(self.after_step)
        self.pending = None
        if stats is None:
            return False
        collected = time.perf_counter()
        self._step += cfg.rollout_size
        weights, lr = self.weights(self.progress())
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        magnet_coef = weights.magnet_coef
        in_reward = magnet_coef if cfg.magnet_in == "reward" else 0.0
        samples = self.rollout.samples(cfg.gamma, cfg.gae_lambda, in_reward)
        if in_reward:  # the term leaves the loss for the rewards
            weights = dataclasses.replace(weights, magnet_coef=0.0)
        if self.remote is not None:
            samples = owned(samples, self.device)
            self.remote.begin(self.model, self.magnet, self.opponents.pool_state(), self.sent_mix())
        terms = ppo_update(
            self.model, self.optimizer, samples, weights, self.settings, self.generator
        )
        if self.remote is not None:
            self.pending = self.remote.finish(lambda: self.interrupted)
            self.after_step(cfg.rollout_size)
            collected = began + self.remote.seconds
        done = time.perf_counter()
        scalars = {f"train/{k}": v for k, v in terms.items()}
        scalars.update(stats.scalars())
        scalars.update(self.rollout_share(stats.results))
        scalars["train/learning_rate"] = lr
        scalars["train/ent_coef"] = weights.ent_coef
        scalars["train/magnet_coef"] = magnet_coef
        scalars["time/collect_steps_per_s"] = cfg.rollout_size / (collected - began)
        scalars["time/fps"] = cfg.rollout_size / (done - began)
        self.log(scalars, self._step)
        return True

    def collect(self, keep_going: Callable[[int], bool]) -> RolloutStats | None:
        """One rollout into :attr:`rollout` (``None``: ``keep_going`` said stop)."""
        if self.remote is not None:
            self.remote.begin(self.model, self.magnet, self.opponents.pool_state(), self.sent_mix())
            self.pending = self.remote.finish(lambda: not keep_going(0))
            return self.pending
        assert self.collector is not None
        if isinstance(self.rollout, LaneRollout):
            assert isinstance(self.collector, LaneCollector)
            return self.collector.collect(self.rollout, keep_going)
        return self.collector.collect(self.rollout, keep_going)

    def sent_mix(self) -> dict[str, float] | None:
        """The weights the collector process has not had yet (``None``: no change)."""
        mix, self.mix_to_send = self.mix_to_send, None
        return mix

    def close(self) -> None:
        """End the collector process (``overlap``)."""
        if self.remote is not None:
            self.remote.close()
            self.remote = None

    def weights(self, progress: float) -> tuple[LossWeights, float]:
        """The loss's coefficients and the step size at ``progress`` (0 to 1)."""
        cfg = self.cfg
        lr_end = cfg.learning_rate_end if cfg.lr_schedule == "linear" else None
        weights = LossWeights(
            clip_range=cfg.clip_range,
            vf_coef=cfg.vf_coef,
            ent_coef=scheduled(cfg.ent_coef, cfg.ent_coef_end, progress),
            magnet_coef=scheduled(cfg.magnet_coef, cfg.magnet_coef_end, progress),
            kl_coef=cfg.kl_coef,
        )
        return weights, scheduled(cfg.learning_rate, lr_end, progress)

    def _refresh_magnet(self) -> None:
        if self.magnet is not None and self._step - self.last_magnet >= self.cfg.magnet_every:
            self.magnet.load_state_dict(self.actor.state_dict())
            self.last_magnet = self._step

    def log(self, scalars: dict[str, float], step: int) -> None:
        for key, value in scalars.items():
            self.writer.add_scalar(key, value, step)
        self.writer.flush()

    def save_best(self, info: dict[str, Any]) -> None:
        card = checkpoint.policy_card(self.cfg, self._step)
        save_policy(self.actor, card, self.run_dir / BEST_POLICY)
        atomic_write_text(self.run_dir / "best.json", json.dumps(info, indent=2) + "\n")

    def write_checkpoint(self, state: dict[str, Any]) -> Path:
        pool = self.opponents.pool_state()
        if self.magnet is not None:
            pool["magnet"] = self.magnet.state_dict()
        return checkpoint.write(
            self.run_dir,
            self._step,
            lambda folder: save_model(
                folder / MODEL_FILE, self.model, self.optimizer, self.generator
            ),
            self.actor,
            pool,
            {"last_magnet": self.last_magnet, **state},
            self.cfg,
            self.cfg.keep_checkpoints,
        )

    def _load(self, ckpt: Path) -> dict[str, Any]:
        """The checkpoint's network, optimiser, generator, pool and magnet; its state."""
        meta = checkpoint.read_state(ckpt)
        checkpoint.check_fits(meta["config"], self.cfg, ckpt)
        state = read_checkpoint_model(ckpt)
        load_model(state, self.model, self.optimizer, self.generator, ckpt / MODEL_FILE)
        for group in self.optimizer.param_groups:  # a checkpoint written before foreach
            group["foreach"] = self.optimizer.defaults["foreach"]
        pool = checkpoint.read_pool(ckpt)
        self.opponents.load_pool_state(pool, self.actor)
        if "magnet" in pool:
            self.magnet = self.actor.frozen_copy()
            self.magnet.load_state_dict(pool["magnet"])
        self._step = int(meta["step"])
        self.last_magnet = int(meta.get("last_magnet", 0))
        return meta
