"""An SB3 ``VecEnv`` over the batched engine, one learner seat per game: shared-weight self-play.

Design
------
Slot ``b`` of :class:`GroveSelfPlayVecEnv` is game ``b`` of one
:class:`grove_env.vector.VectorGame`, and in that game exactly one seat is the
*learner* (``learner_seat[b]``). Every other seat is an opponent of some kind
(:mod:`grove_env.training.opponents`): the learner's own live weights, a snapshot
from the pool, the heuristic or random. So one network plays every seat, but each
slot's trajectory is one seat's trajectory:

* **Only the learner seat's own decisions enter the rollout.** Between two learner
  decisions, :meth:`step_wait` plays the opponents' moves, batched: all games
  whose player to act has the same kind are answered in one call, then the engine
  steps those games (``active`` mask), until every game is back at its learner's
  turn. SB3 therefore never sees an opponent's observation in this slot, and a
  seat's value is never bootstrapped from another seat's state (the pitfall of
  PettingZoo's action-mask tutorial, where one trajectory interleaves seats).
* **Rewards reach the seat they belong to.** The reward of a step is
  ``rewards[b, learner_seat[b]]`` summed over the learner's move and all the
  opponent moves up to its next decision (or the game's end). The zero-sum terminal
  reward of a game that an opponent's last accusation ends is thus paid at the
  learner's last decision, losers included.
* **Episodes are games.** ``done`` is set when the game ends. A game cut off at
  ``max_rounds`` is an SB3 truncation: ``infos[b]["TimeLimit.truncated"] = True``
  and ``infos[b]["terminal_observation"]`` is the learner seat's last observation of
  that game, so MaskablePPO bootstraps its value. Ended games are reset by the
  engine; the slot gets a new learner seat (rotating by default, so the learner
  plays every seat equally often) and new opponents, and the opponents who sit
  before the learner play their moves before the returned observation.

Reward modes: the engine's ``outcome`` (zero-sum, by rank) and ``markers`` (dense, per
round), and ``win``, computed here: at the end of a finished game the learner gets
its win points minus the fair share, ``1/k - 1/n`` for a k-way tie for first, else
``-1/n`` (zero-sum, and exactly what the evaluations' win share measures).

``infos[b]`` of an ended game also holds ``episode`` (``r``: return, ``l``: learner
decisions; SB3 logs ``rollout/ep_rew_mean`` from it), ``win_points`` (1 for a sole
win, 1/k for a k-way tie for first, else 0), ``rank`` and ``opponents`` (the kind
name of a ``game``-sampled table, else ``"mixed"``).

MaskablePPO reads legal moves through ``env_method("action_masks")``; here it
returns the learner seats' masks as one ``bool[num_envs, 10]`` array.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from grove_env.actions import NUM_ACTIONS
from grove_env.observation import OBS_HIGH, OBS_SIZE
from grove_env.standings import REWARD_MODES
from grove_env.standings import win_points as seats_win_points
from grove_env.training.opponents import KIND_NAMES, NO_OPPONENT, POOL_0, Opponents
from grove_env.vector import StepResult, VectorGame

REWARDS = (*REWARD_MODES, "win")
"""Reward modes: the engine's two, and ``win`` (see the module docstring)."""


def kind_label(kinds: np.ndarray) -> str:
    """Name of the opponents at one table (``"mixed"`` if the seats differ)."""
    opp = kinds[kinds != NO_OPPONENT]
    if (opp == opp[0]).all():
        return KIND_NAMES[min(int(opp[0]), POOL_0)]
    return "mixed"


def win_points(ranks: np.ndarray, seat: int) -> float:
    """The seat's share of the win: 1/k if it is among k seats ranked first, else 0."""
    return seats_win_points([int(r) for r in ranks])[seat]


class GroveSelfPlayVecEnv(VecEnv):
    """``num_envs`` games, each contributing its learner seat's decisions (see module doc)."""

    def __init__(
        self,
        num_envs: int,
        opponents: Opponents,
        rules: str = "classic",
        num_players: int = 4,
        reward: str = "outcome",
        max_rounds: int = 100,
        learner_seat: str = "rotate",
        seed: int | None = None,
    ) -> None:
        if learner_seat not in ("rotate", "random"):
            raise ValueError(f"learner_seat must be 'rotate' or 'random', got {learner_seat!r}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
        self.win_reward = reward == "win"
        engine_reward = "outcome" if self.win_reward else reward
        self.game = VectorGame(
            num_envs,
            rules,
            num_players,
            engine_reward,
            max_rounds,
            seed=seed,
            final_observations=True,
        )
        self.render_mode = None
        super().__init__(
            num_envs,
            spaces.Box(0.0, OBS_HIGH, (OBS_SIZE,), np.float32),
            spaces.Discrete(NUM_ACTIONS),
        )
        self.opponents = opponents
        self.num_players = num_players
        self.learner_seat_mode = learner_seat
        self._rng = np.random.default_rng(seed)
        self._base_seed = seed
        b = num_envs
        self._slots = np.arange(b)
        self.learner_seat = np.zeros(b, dtype=np.int64)
        self.kinds = np.zeros((b, num_players), dtype=np.int64)
        self._games_started = np.zeros(b, dtype=np.int64)
        self._ep_return = np.zeros(b, dtype=np.float64)
        self._ep_len = np.zeros(b, dtype=np.int64)
        self._opp_obs = np.empty((b, OBS_SIZE), dtype=np.float32)
        self._actions: np.ndarray | None = None
        self.results: dict[str, list[float]] = {}
        """Per opponent label: ``[games, win points]`` since the last :meth:`pop_results`."""

    # ----------------------------------------------------------------- VecEnv API
    def reset(self) -> np.ndarray:
        seed = self._seeds[0]  # set by VecEnv.seed(), used once
        if seed is None and not self._games_started.any():
            seed = self._base_seed
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._reset_seeds()
        self.game.reset(seed=None if seed is None else seed + 1)
        self._games_started[:] = 0
        self._new_games(self._slots)
        dummy_rew = np.zeros(self.num_envs, dtype=np.float32)
        self._play_opponents(dummy_rew, np.ones(self.num_envs, bool), [{}] * self.num_envs)
        return self.game.observe(self.learner_seat)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        assert self._actions is not None, "step_async first"
        b = self.num_envs
        rewards = np.zeros(b, dtype=np.float32)
        dones = np.zeros(b, dtype=bool)
        infos: list[dict[str, Any]] = [{} for _ in range(b)]
        self._ep_len += 1
        self._absorb(self.game.step(self._actions), rewards, dones, infos)
        self._actions = None
        self._play_opponents(rewards, dones, infos)
        return self.game.observe(self.learner_seat), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """``bool[num_envs, 10]``: the legal moves of every slot's learner seat."""
        return self.game.action_masks()

    def close(self) -> None:
        return None

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        value = getattr(self, attr_name)
        return [value] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> Any:
        rows = self._indices(indices)
        if method_name == "action_masks":  # one array; get_action_masks np.stack()s it
            return self.action_masks()[rows]
        value = getattr(self, method_name)(*method_args, **method_kwargs)
        return [value] * len(rows)

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def _indices(self, indices: Any) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    # ----------------------------------------------------------------- statistics
    def pop_results(self) -> dict[str, tuple[int, float]]:
        """Games and mean win points per opponent label since the last call."""
        out = {k: (int(g), p / g) for k, (g, p) in self.results.items() if g}
        self.results = {}
        return out

    # ----------------------------------------------------------------- internals
    def _new_games(self, rows: np.ndarray) -> None:
        """Seat the learner and draw opponents for the games just (re)started in ``rows``."""
        n = self.num_players
        if self.learner_seat_mode == "rotate":
            seats = (rows + self._games_started[rows]) % n
        else:
            seats = self._rng.integers(n, size=len(rows))
        self.learner_seat[rows] = seats
        self._games_started[rows] += 1
        self.kinds[rows] = self.opponents.sample(seats, n)
        self._ep_return[rows] = 0.0
        self._ep_len[rows] = 0

    def _play_opponents(
        self, rewards: np.ndarray, dones: np.ndarray, infos: list[dict[str, Any]]
    ) -> None:
        """Opponents move, batched per kind, until every game waits for its learner."""
        game = self.game
        while True:
            current = game.current_player
            need = current != self.learner_seat
            if not need.any():
                return
            obs = game.observe(out=self._opp_obs)
            masks = game.action_masks()
            kinds = self.kinds[self._slots, current]
            actions = np.zeros(self.num_envs, dtype=np.int64)
            waiting = kinds[need]
            for kind in np.unique(waiting):
                rows = np.flatnonzero(need & (kinds == kind))
                actions[rows] = self.opponents.act(int(kind), obs[rows], masks[rows])
            self._absorb(game.step(actions, active=need), rewards, dones, infos)

    def _absorb(
        self,
        result: StepResult,
        rewards: np.ndarray,
        dones: np.ndarray,
        infos: list[dict[str, Any]],
    ) -> None:
        """Credit the learner seats' rewards of one engine step; close games that ended.

        Games already done in this ``step_wait`` started a new game; what happens in
        it before the learner's first decision belongs to no returned step (under both
        reward modes nothing is paid there: a round needs the learner's accusation).
        """
        ended = result.ended_games
        if self.win_reward:
            r = np.zeros(self.num_envs, dtype=np.float32)
            for g in ended[result.terminated[ended]].tolist():
                seat = int(self.learner_seat[g])
                r[g] = win_points(result.final_ranks[g], seat) - 1.0 / self.num_players
        else:
            r = result.rewards[self._slots, self.learner_seat]
        live = ~dones
        rewards[live] += r[live]
        self._ep_return[live] += r[live]
        if not ended.size:
            return
        for i, g in enumerate(ended.tolist()):
            assert not dones[g], "a game ended twice between two learner decisions"
            seat = int(self.learner_seat[g])
            ranks = result.final_ranks[g]
            points = win_points(ranks, seat)
            label = kind_label(self.kinds[g])
            tally = self.results.setdefault(label, [0, 0.0])
            tally[0] += 1
            tally[1] += points
            truncated = bool(result.truncated[g])
            final_obs = result.final_observations
            infos[g].update(
                {
                    "episode": {"r": float(self._ep_return[g]), "l": int(self._ep_len[g])},
                    "win_points": points,
                    "rank": int(ranks[seat]),
                    "opponents": label,
                    "TimeLimit.truncated": truncated,
                    "terminal_observation": None if final_obs is None else final_obs[i, seat],
                }
            )
            dones[g] = True
        self._new_games(ended)
