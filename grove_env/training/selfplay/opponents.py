"""Who plays the seats that are not the learner's: the opponent kinds and the snapshot pool.

An opponent *kind* is ``live`` (the learner's own current weights, sampling: self-play),
``pool`` (a frozen snapshot of the learner, drawn uniformly from the pool) or any agent
spec of :mod:`grove_env.agents.base` (``random``, ``heuristic``, ``greedy``, the
gauntlet's styles ``stack-avoider``, ``piler``, ``follower``, ``contrarian``,
``bluffer``, ``ppo:PATH`` ...). :class:`Opponents` takes a weight per kind; each
opponent seat of each game is given a kind id when its game starts:

======  ==========================================================================
id      kind
======  ==========================================================================
0       ``live``
1..     the agent specs, in the order the weights name them
P+i     snapshot ``i`` of the pool (``P``: the number of named kinds)
======  ==========================================================================

:meth:`Opponents.act` takes every game whose player to act has one kind and answers
them in one batched call (``act_batch`` of the agent; a forward pass of a network),
so a step of B games costs one call per kind in use, not one per game. While the pool
is empty a ``pool`` draw plays ``live``. When the pool is full the oldest snapshot's
slot is reused, and games already seated against it simply meet the newer one from
then on.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

from grove_env.agents.base import make_agent, parse_spec
from grove_env.agents.learned.actor import Actor
from grove_env.observation import COUNT_SCALE, OFF_COLOURED, OFF_PRESENT, OFF_SEEN

LIVE, POOL = "live", "pool"
NO_OPPONENT = -1
"""Kind id of the learner's own seat."""
LIVE_KIND = 0
"""Kind id of ``live`` seats (the first of :attr:`Opponents.names`)."""

MEMOISED = ("heuristic", "heuristic-trust")
"""Agents whose decisions cost enough that the training opponents cache them
(:class:`MemoisedAgent`); the styles are cheaper than the cache's keys."""


def check_kind(kind: str) -> str:
    """``kind`` if it is ``live``, ``pool`` or a registered agent's spec; else ValueError."""
    if kind in (LIVE, POOL):
        return kind
    name, _ = parse_spec(kind)
    if name == "human":
        raise ValueError("a human cannot be a training opponent")
    return kind


class Opponents:
    """Samples opponent kinds for new games and plays them, batched per kind."""

    def __init__(
        self,
        weights: Mapping[str, float],
        pool_size: int = 5,
        sampling: str = "game",
        seed: int | None = None,
        live: Actor | None = None,
    ) -> None:
        for kind in weights:
            check_kind(kind)
        self.names = [LIVE] + [k for k in weights if k not in (LIVE, POOL)]
        self.set_weights(weights)
        if sampling not in ("game", "seat"):
            raise ValueError(f"sampling must be 'game' or 'seat', got {sampling!r}")
        self.pool_size = pool_size
        self.sampling = sampling
        self.rng = np.random.default_rng(seed)
        self.torch_rng = torch.Generator().manual_seed(int(self.rng.integers(2**62)))
        self.live = live
        self.pool: list[Actor] = []
        self.pool_steps: list[int] = []
        self._next_slot = 0
        self._seed = seed
        self.agents: dict[int, Any] = {}
        for index in range(1, len(self.names)):
            if self.weights[index] > 0:
                self.agents[index] = self._build(index)

    def set_weights(self, weights: Mapping[str, float]) -> None:
        """New sampling weights, normalised, for the kinds this mix names (``live``,
        ``pool`` and the agents it was built with; a kind left out gets 0). Games already
        seated keep their opponents; new games are seated by the new weights."""
        unknown = sorted(set(weights) - {*self.names, POOL})
        if unknown:
            raise ValueError(f"opponent weights: {unknown[0]!r} is not a kind of this mix")
        w = np.array([float(weights.get(k, 0.0)) for k in (*self.names, POOL)])
        if not np.isfinite(w).all() or (w < 0).any() or w.sum() <= 0:
            raise ValueError(f"opponent weights must be >= 0 with a positive sum, got {weights}")
        self.weights = w / w.sum()

    def _build(self, kind: int) -> Any:
        spec = self.names[kind]
        seed = None if self._seed is None else self._seed + kind
        try:
            agent: Any = make_agent(spec, seed=seed)
        except ImportError as e:
            raise RuntimeError(
                f"opponent {spec!r} failed to import ({e}); set its weight to 0 and leave "
                "it out of eval_opponents"
            ) from None
        if parse_spec(spec)[0] in MEMOISED:
            agent = MemoisedAgent(agent, seed=seed)
        return agent

    @property
    def pool_kind(self) -> int:
        """Kind id of the pool's first snapshot (the draw's last entry)."""
        return len(self.names)

    # ----------------------------------------------------------------- pool
    def add_snapshot(self, actor: Actor, step: int) -> None:
        """Freeze a copy of ``actor`` into the pool (replacing the oldest when full)."""
        snap = actor.frozen_copy()
        if len(self.pool) < self.pool_size:
            self.pool.append(snap)
            self.pool_steps.append(step)
        else:
            self.pool[self._next_slot] = snap
            self.pool_steps[self._next_slot] = step
            self._next_slot = (self._next_slot + 1) % self.pool_size

    def pool_state(self) -> dict:
        """Everything needed to rebuild the pool on resume (state dicts, steps)."""
        return {
            "states": [a.state_dict() for a in self.pool],
            "steps": list(self.pool_steps),
            "next_slot": self._next_slot,
        }

    def load_pool_state(self, state: dict, template: Actor) -> None:
        """Rebuild the pool from :meth:`pool_state`, each snapshot shaped like ``template``."""
        self.pool = []
        for sd in state["states"]:
            snap = template.frozen_copy()
            snap.load_state_dict(sd)
            self.pool.append(snap)
        self.pool_steps = list(state["steps"])
        self._next_slot = int(state["next_slot"])

    # ----------------------------------------------------------------- seating
    def sample(self, learner_seats: np.ndarray, num_players: int) -> np.ndarray:
        """Kind id per seat, ``int64[G, n]`` for G new games (``-1`` at the learner's seat)."""
        g = len(learner_seats)
        if self.sampling == "game":
            kinds = np.repeat(self._draw(g)[:, None], num_players, axis=1)
        else:
            kinds = self._draw(g * num_players).reshape(g, num_players)
        kinds[np.arange(g), learner_seats] = NO_OPPONENT
        return kinds

    def _draw(self, count: int) -> np.ndarray:
        kinds = self.rng.choice(len(self.weights), size=count, p=self.weights)
        pool = kinds == self.pool_kind
        if pool.any():
            if self.pool:
                drawn = self.rng.integers(len(self.pool), size=int(pool.sum()))
                kinds[pool] = self.pool_kind + drawn
            else:
                kinds[pool] = 0  # live, until the first snapshot
        return kinds.astype(np.int64)

    # ----------------------------------------------------------------- playing
    def label(self, kind: int) -> str:
        """The kind's name (every pool snapshot is ``"pool"``)."""
        return self.names[kind] if kind < self.pool_kind else POOL

    def act(self, kind: int, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Actions ``int64[K]`` of opponent ``kind`` for K games at once."""
        if kind == 0:
            if self.live is None:
                raise RuntimeError("no live actor set for 'live' opponents")
            return self.live.act(observations, masks, generator=self.torch_rng)
        if kind >= self.pool_kind:
            snapshot = self.pool[kind - self.pool_kind]
            return snapshot.act(observations, masks, generator=self.torch_rng)
        if kind not in self.agents:  # seated by a weight of 0: an evaluation asked for it
            self.agents[kind] = self._build(kind)
        return np.asarray(self.agents[kind].act_batch(observations, masks), dtype=np.int64)


def follow_worst(
    base: Mapping[str, float], shares: Mapping[str, float], strength: float, num_players: int
) -> dict[str, float]:
    """The weights of the kinds both ``base`` (weight > 0) and ``shares`` (the last quick
    evaluation's win shares) name, moved towards the kinds the learner did worst against:
    kind ``k`` gets ``base[k] * exp(strength * (fair - shares[k]) / fair)``, ``fair`` being
    ``1 / num_players``, then all of them are scaled back to the total ``base`` gave them
    (the rest of the mix, ``live`` and ``pool`` included, keeps its weight).

    >>> w = follow_worst({"live": 1.0, "greedy": 0.2, "random": 0.2},
    ...                  {"greedy": 0.25, "random": 0.75}, 2.0, 2)
    >>> {k: round(v, 3) for k, v in w.items()}
    {'greedy': 0.352, 'random': 0.048}
    """
    kinds = [k for k, w in base.items() if w > 0 and k in shares and k not in (LIVE, POOL)]
    if not kinds:
        return {}
    fair = 1.0 / num_players
    exponents = {k: strength * (fair - shares[k]) / fair for k in kinds}
    top = max(exponents.values())  # exp of at most 0: no overflow at any strength
    moved = {k: base[k] * float(np.exp(exponents[k] - top)) for k in kinds}
    scale = sum(base[k] for k in kinds) / sum(moved.values())
    return {k: w * scale for k, w in moved.items()}


class MemoisedAgent:
    """A deterministic, stateless agent's ``act_batch`` behind a cache of its answers.

    The heuristic is costly per decision (its search over the deals), and over a
    training run the same information states recur. The cache key is the observation
    without the round number (which the heuristic does not read), packed: the 0/1 entries
    as bits, the rule and tile-count block as float16, the marker counts as bytes. That
    the round does not matter is checked, not assumed: a fraction ``audit`` of the hits
    is recomputed, and at the first disagreement the cache is switched off (with a
    warning) and every later call goes to the agent.
    """

    def __init__(
        self, agent: Any, audit: float = 0.01, max_size: int = 1_000_000, seed: int | None = None
    ) -> None:
        self.agent = agent
        self.name = getattr(agent, "name", type(agent).__name__)
        self.audit = audit
        self.max_size = max_size
        self.enabled = True
        self.cache: dict[bytes, int] = {}
        self.hits = self.calls = 0
        self._rng = np.random.default_rng(seed)

    @staticmethod
    def keys(observations: np.ndarray) -> list[bytes]:
        """One bytes key per row (see the class docstring)."""
        head = observations[:, :OFF_SEEN].astype(np.float16).view(np.uint8)
        binary = np.packbits(observations[:, OFF_SEEN:OFF_COLOURED] != 0, axis=1)
        counts = np.rint(observations[:, OFF_COLOURED:OFF_PRESENT] * COUNT_SCALE).astype(np.uint8)
        rows = np.ascontiguousarray(np.concatenate([head, binary, counts], axis=1))
        return rows.view(f"S{rows.shape[1]}").ravel().tolist()

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if not self.enabled:
            return np.asarray(self.agent.act_batch(observations, masks), dtype=np.int64)
        keys = self.keys(observations)
        cached = [self.cache.get(k, -1) for k in keys]
        actions = np.array(cached, dtype=np.int64)
        miss = np.flatnonzero(actions < 0)
        self.calls += len(keys)
        self.hits += len(keys) - miss.size
        hit = np.flatnonzero(actions >= 0)
        check = hit[self._rng.random(hit.size) < self.audit] if hit.size else hit
        todo = np.concatenate([miss, check])
        if todo.size:
            fresh = np.asarray(self.agent.act_batch(observations[todo], masks[todo]), np.int64)
            if (fresh[miss.size :] != actions[check]).any():
                warnings.warn(
                    f"{type(self.agent).__name__}'s actions depend on the marker counts or "
                    "the round; its action cache is switched off",
                    stacklevel=2,
                )
                self.enabled = False
                self.cache.clear()
                return np.asarray(self.agent.act_batch(observations, masks), dtype=np.int64)
            actions[miss] = fresh[: miss.size]
            if len(self.cache) + miss.size > self.max_size:
                self.cache.clear()
            self.cache.update(zip([keys[i] for i in miss], fresh[: miss.size].tolist()))
        return actions
