"""``overlap: true``: the next rollout is collected in a process of its own during the update.

Collection and the update run one after the other in one process, and Python's lock
lets two threads of it share the cores no better (measured: a collector thread beside
the update made a default-mix iteration slower, not faster). So the games, the
opponents and a copy of the actor-critic (the *behaviour* weights) live in a second
process, spawned at the start of the run, and the two meet in shared memory:

* the rollout's arrays (:class:`~.rollout.Rollout` or :class:`~.lanes.LaneRollout`)
  are allocated once in shared memory; the collector writes them in place, step by
  step, as it does in one process, and nothing on the per-step path is copied or sent;
* the behaviour weights are a shared copy of the learner's, overwritten by the learner
  (:meth:`RemoteCollector.begin`) while the collector waits, never while it plays;
* the pipe carries the orders (restart the games, collect) and, once per rollout, the
  snapshot magnet, the opponent pool and the opponents' weights where they changed,
  and the rollout's results.

The learner takes what it learns from out of the shared arrays (:func:`owned`) before it
orders the next rollout, then updates while the collector plays: the rollout an update
learns from was played by the weights one update older (a staleness of one rollout). Each
process draws from a generator of its own (the collector's seeded with the games), so a
run with the overlap is reproducible at a seed. The collector ignores SIGINT and SIGTERM:
the learner stops it through :attr:`RemoteCollector.stop` (the rollout in progress is
dropped), and it exits when the learner closes the pipe or dies.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import signal
import time
import traceback
from multiprocessing.connection import Connection
from typing import Any

import numpy as np
import torch
import torch.multiprocessing as mp

from grove_env.training.config import TrainConfig
from grove_env.training.run.network import ActorCritic
from grove_env.training.selfplay.tables import build_opponents, training_games

from .lanes import LaneCollector, LaneRollout
from .rollout import Collector, Rollout, RolloutStats, bootstrap_gamma
from .update import Samples

AnyRollout = Rollout | LaneRollout


def share(rollout: AnyRollout) -> tuple[dict[str, Any], list[str]]:
    """Move ``rollout``'s arrays into shared memory, in place (its NumPy arrays become
    views of shared tensors); its fields as tensors, and the names of the NumPy ones."""
    fields: dict[str, Any] = {}
    numpy_names = []
    for f in dataclasses.fields(rollout):
        value = getattr(rollout, f.name)
        if isinstance(value, np.ndarray):
            value = torch.from_numpy(value).clone().share_memory_()
            setattr(rollout, f.name, value.numpy())
            numpy_names.append(f.name)
        elif isinstance(value, torch.Tensor):
            value.share_memory_()
        fields[f.name] = value
    return fields, numpy_names


def owned(samples: Samples, device: torch.device) -> Samples:
    """``samples`` copied out of the shared rollout onto ``device`` (the collector is
    about to overwrite it)."""
    copies: dict[str, Any] = {}
    for f in dataclasses.fields(samples):
        column = getattr(samples, f.name)
        copies[f.name] = None if column is None else column.to(device, copy=True)
    return dataclasses.replace(samples, **copies)


def _numpy_state(state: dict[str, torch.Tensor]) -> dict[str, np.ndarray]:
    """A state dict as NumPy arrays, for the pipe (a tensor would be moved into shared
    memory by torch's pickler)."""
    return {k: v.detach().cpu().numpy() for k, v in state.items()}


def _tensor_state(state: dict[str, np.ndarray]) -> dict[str, torch.Tensor]:
    return {k: torch.from_numpy(v) for k, v in state.items()}


class RemoteCollector:
    """The learner's side of the collector process: orders, waits, closes."""

    def __init__(self, cfg: TrainConfig, model: ActorCritic, rollout: AnyRollout) -> None:
        fields, numpy_names = share(rollout)
        self.behaviour = copy.deepcopy(model).cpu().requires_grad_(False)
        self.behaviour.share_memory()
        context = mp.get_context("spawn")
        self.conn, child = context.Pipe()
        self.stop = context.Event()
        """Set by the learner: drop the rollout in progress."""
        self.process = context.Process(
            target=serve,
            args=(cfg, self.behaviour, type(rollout), fields, numpy_names, child, self.stop),
            name="grove-collector",
            daemon=True,
        )
        self.process.start()
        child.close()
        self.busy = False
        self.pool_sent: list[int] | None = None
        self.seconds = 0.0
        """How long the collector took over the last rollout."""
        self.cpu_seconds = 0.0
        """The collector process's CPU time so far (at the end of the last rollout)."""

    def restart(self, seed: int) -> None:
        """Restart the games from ``seed`` (as :meth:`.rollout.Collector.restart`)."""
        self.conn.send(("restart", seed))

    def begin(
        self, model: ActorCritic, magnet: Any, pool: dict, mix: dict[str, float] | None = None
    ) -> None:
        """Copy ``model``'s weights into the behaviour copy and start the next rollout,
        with the snapshot ``magnet`` (an actor, or None), the opponent ``pool`` and, where
        they changed, the opponents' weights ``mix`` (``follow_worst``)."""
        assert not self.busy, "a rollout is in progress"
        self.behaviour.load_state_dict(model.state_dict())
        changed = pool["steps"] != self.pool_sent
        if changed:
            pool = {**pool, "states": [_numpy_state(s) for s in pool["states"]]}
            self.pool_sent = list(pool["steps"])
        sent_magnet = None if magnet is None else _numpy_state(magnet.state_dict())
        self.stop.clear()
        self.conn.send(("collect", (sent_magnet, pool if changed else None, mix)))
        self.busy = True

    def finish(self, should_stop: Any) -> RolloutStats | None:
        """Wait for the rollout; ``None`` if ``should_stop()`` turned true meanwhile."""
        while not self.conn.poll(0.02):
            if should_stop():
                self.stop.set()
            if not self.process.is_alive():
                code = self.process.exitcode
                raise RuntimeError(f"the collector process died (exit code {code})")
        reply, self.seconds, self.cpu_seconds = self.conn.recv()
        self.busy = False
        if isinstance(reply, str):
            raise RuntimeError(f"the collector process failed:\n{reply}")
        return reply

    def close(self) -> None:
        """End the collector process (at once, whatever it was doing)."""
        if self.process.is_alive():
            self.stop.set()
            with contextlib.suppress(OSError):
                self.conn.send(("close", None))
            self.process.join(timeout=10)
            if self.process.is_alive():
                self.process.kill()
                self.process.join()
        self.conn.close()


def serve(
    cfg: TrainConfig,
    behaviour: ActorCritic,
    kind: type,
    fields: dict[str, Any],
    numpy_names: list[str],
    conn: Connection,
    stop: Any,
) -> None:
    """The collector process: the run's games and opponents, played by ``behaviour``'s
    shared weights into the shared rollout, at the learner's orders."""
    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, signal.SIG_IGN)  # the learner decides when to stop
    torch.set_num_threads(1)  # the other core is the learner's
    rollout = kind(**{k: v.numpy() if k in numpy_names else v for k, v in fields.items()})
    lanes = isinstance(rollout, LaneRollout)
    opponents = build_opponents(cfg, cfg.seed + 1)
    opponents.live = behaviour.actor
    games, rounds = training_games(cfg, opponents, cfg.seed, "live" if lanes else "learner")
    generator = torch.Generator().manual_seed(cfg.seed)
    collector = (LaneCollector if lanes else Collector)(
        games,
        behaviour,
        bootstrap_gamma(cfg),
        cfg.features == "advice",
        torch.device("cpu"),
        generator,
        rounds,
    )
    while True:
        try:
            order, payload = conn.recv()
        except EOFError:
            return  # the learner is gone
        if order == "close":
            return
        try:
            if order == "restart":
                collector.restart(payload)
                generator.manual_seed(payload)
                continue
            magnet, pool, mix = payload
            if mix is not None:
                opponents.set_weights(mix)
            if pool is not None:
                pool = {**pool, "states": [_tensor_state(s) for s in pool["states"]]}
                opponents.load_pool_state(pool, behaviour.actor)
            collector.magnet = None
            if magnet is not None:
                collector.magnet = behaviour.actor.frozen_copy()
                collector.magnet.load_state_dict(_tensor_state(magnet))
            began = time.perf_counter()
            stats = collector.collect(rollout, lambda n: not stop.is_set())  # type: ignore[arg-type]
            reply: Any = (stats, time.perf_counter() - began, time.process_time())
        except Exception:
            reply = (traceback.format_exc(), 0.0, time.process_time())
        try:
            conn.send(reply)
        except OSError:
            return
