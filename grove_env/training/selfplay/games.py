"""The self-play core over the batched engine: one learner seat per game, opponents batched.

Both vectorised environments of the package are thin adapters over
:class:`SelfPlayGames`: the SB3 ``VecEnv`` (:mod:`grove_env.training.sb3.vec_env`) and the
standard ``gymnasium.vector.VectorEnv`` ``grove_env/SelfPlay-v0``
(:mod:`grove_env.training.selfplay.gym_env`). Neither SB3 nor Ray is imported here.

Design
------
Slot ``b`` is game ``b`` of one :class:`grove_env.vector.VectorGame`, and in that
game exactly one seat is the *learner* (``learner_seat[b]``). Every other seat is an
opponent of some kind (:mod:`grove_env.training.selfplay.opponents`): the learner's own live
weights, a snapshot from the pool, the heuristic or random, or any agent spec
(:class:`grove_env.training.selfplay.gym_env.AgentOpponents`). So one network plays every
seat, but each slot's trajectory is one seat's trajectory:

* **Only the learner seat's own decisions enter the rollout.** Between two learner
  decisions, :meth:`SelfPlayGames.advance` plays the opponents' moves, batched: all
  games whose player to act has the same kind are answered in one call, then the
  engine steps those games (``active`` mask), until every game is back at its
  learner's turn. The learner therefore never sees an opponent's observation in this
  slot, and a seat's value is never bootstrapped from another seat's state (the
  pitfall of PettingZoo's action-mask tutorial, where one trajectory interleaves seats).
* **Rewards reach the seat they belong to.** The reward of a step is
  ``rewards[b, learner_seat[b]]`` summed over the learner's move and all the
  opponent moves up to its next decision (or the game's end). The zero-sum terminal
  reward of a game that an opponent's last accusation ends is thus paid at the
  learner's last decision, losers included.
* **Episodes are games.** ``done`` is set when the game ends; a game cut off at
  ``max_rounds`` is a truncation (``truncated[b]``), and ``final_observations[b]`` is
  the learner seat's last observation of that game, so a value can bootstrap from it.
  Ended games are reset by the engine; the slot gets a new learner seat (rotating by
  default, so the learner plays every seat equally often) and new opponents, and the
  opponents who sit before the learner play their moves before the next observation.

Reward modes: the engine's ``outcome`` (zero-sum, by rank) and ``markers`` (dense, per
round), and ``win``, computed here: at the end of a finished game the learner gets
its win points minus the fair share, ``1/k - 1/n`` for a k-way tie for first, else
``-1/n`` (zero-sum, and exactly what the evaluations' win share measures).

**Every live seat a learner** (``learners="live"``, the batched backend's ``learn_from:
live_seats``): a seat that the learner's live weights play is as much an on-policy
sample as the learner's own, so in this mode every such seat of a game is a learning
seat (:attr:`SelfPlayGames.learning`). The opponents' moves are played until every game
waits for one of its learning seats (:attr:`acting`), whose observation
:meth:`observe` gives; :attr:`seat_rewards` holds each seat's rewards of the last
:meth:`advance`, and :attr:`ended` the games' ends with every seat's final observation,
so a collector can keep one trajectory per seat (:mod:`grove_env.training.batched.lanes`).
The learner seat's rewards, episodes and results are as in the default mode.

``infos[b]`` of an ended game holds ``episode`` (``r``: return, ``l``: learner
decisions), ``win_points`` (1 for a sole win, 1/k for a k-way tie for first, else 0),
``rank`` and ``opponents`` (the kind name of a ``game``-sampled table, else ``"mixed"``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from grove_env.observation import OBS_SIZE
from grove_env.standings import REWARD_MODES, win_point
from grove_env.training.selfplay.opponents import LIVE_KIND, NO_OPPONENT
from grove_env.vector import StepResult, VectorGame

REWARDS = (*REWARD_MODES, "win")
"""Reward modes: the engine's two, and ``win`` (see the module docstring)."""
LEARNERS = ("learner", "live")
"""Whose decisions a step returns: the learner seat's alone, or every live seat's."""


class OpponentSeats(Protocol):
    """Who plays the seats other than the learner's: seats kinds, and plays one kind batched."""

    def sample(self, learner_seats: np.ndarray, num_players: int) -> np.ndarray: ...

    def act(self, kind: int, observations: np.ndarray, masks: np.ndarray) -> np.ndarray: ...

    def label(self, kind: int) -> str: ...


MIXED = -2
"""Label code of a table whose opponent seats are of different kinds."""


def table_kinds(kinds: np.ndarray, learner_seats: np.ndarray) -> np.ndarray:
    """Per game, the opponents' kind if every opponent seat has it, else :data:`MIXED`
    (``kinds``: ``int64[G, n]`` with :data:`NO_OPPONENT` at ``learner_seats``)."""
    g, n = kinds.shape
    first = kinds[np.arange(g), (learner_seats + 1) % n]
    same = ((kinds == first[:, None]) | (kinds == NO_OPPONENT)).all(axis=1)
    return np.where(same, first, MIXED)


def win_points(ranks: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """Per game, the share of the win of its seat ``seats[g]`` (``ranks``: ``int64[G, n]``)."""
    return np.asarray(win_point(ranks.T, ranks[np.arange(len(seats)), seats]), dtype=np.float64)


class SelfPlayGames:
    """``num_envs`` games, each contributing its learner seat's decisions (see module doc)."""

    def __init__(
        self,
        num_envs: int,
        opponents: OpponentSeats,
        rules: str = "classic",
        num_players: int = 4,
        reward: str = "outcome",
        max_rounds: int = 100,
        learner_seat: str = "rotate",
        seed: int | None = None,
        learners: str = "learner",
    ) -> None:
        if learner_seat not in ("rotate", "random"):
            raise ValueError(f"learner_seat must be 'rotate' or 'random', got {learner_seat!r}")
        if learners not in LEARNERS:
            raise ValueError(f"learners must be one of {LEARNERS}, got {learners!r}")
        self.every_live_seat = learners == "live"
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
        self.opponents = opponents
        self.num_players = num_players
        self.learner_seat_mode = learner_seat
        self._rng = np.random.default_rng(seed)
        self._base_seed = seed
        b = self.num_games = num_envs
        self._slots = np.arange(b)
        self.learner_seat = np.zeros(b, dtype=np.int64)
        self.kinds = np.zeros((b, num_players), dtype=np.int64)
        self.learning = np.zeros((b, num_players), dtype=bool)
        """Per game and seat: its decisions are returned (the learner seat; with
        ``learners="live"`` every seat that the live weights play as well)."""
        self.acting = np.zeros(b, dtype=np.int64)
        """Per game: the learning seat whose decision the next :meth:`advance` plays."""
        self.seat_rewards = np.zeros((b, num_players), dtype=np.float32)
        """Per game and seat: the rewards of the last :meth:`advance` (of the game that was
        going on when it began; a game that ended pays its last rewards here). Kept with
        ``learners="live"`` only."""
        self._games_started = np.zeros(b, dtype=np.int64)
        self._ep_return = np.zeros(b, dtype=np.float64)
        self._ep_len = np.zeros(b, dtype=np.int64)
        self._opp_obs = np.empty((b, OBS_SIZE), dtype=np.float32)
        self.truncated = np.zeros(b, dtype=bool)
        """Per slot: the game that ended in the last :meth:`advance` was cut off."""
        self.final_observations = np.zeros((b, OBS_SIZE), dtype=np.float32)
        """Per slot: the learner's last observation of the game that ended in the last step."""
        self.results: dict[str, list[float]] = {}
        """Per opponent label: ``[games, win points]`` since the last :meth:`pop_results`."""
        self.ended: list[EndedGames] = []
        """The games that ended in the last :meth:`advance`, in the order they ended."""

    # ----------------------------------------------------------------- stepping
    def restart(self, seed: int | None) -> np.ndarray:
        """Start every game afresh (``seed``: games and seating); the learners' observations."""
        if seed is None and not self._games_started.any():
            seed = self._base_seed
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.game.reset(seed=None if seed is None else seed + 1)
        self._games_started[:] = 0
        self._new_games(self._slots)
        dummy_rew = np.zeros(self.num_games, dtype=np.float32)
        self._play_opponents(dummy_rew, np.ones(self.num_games, bool))
        return self.observe()

    def advance(
        self, actions: np.ndarray, active: np.ndarray | None = None, infos: bool = True
    ) -> tuple[np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Play the learners' ``actions`` (where ``active``), then the opponents.

        Returns ``(rewards, dones, infos)``; :meth:`observe` gives the next observations.
        With ``infos=False`` the list is empty (no Python object per game): the games that
        ended are in :attr:`ended` instead.
        """
        b = self.num_games
        rewards = np.zeros(b, dtype=np.float32)
        dones = np.zeros(b, dtype=bool)
        self.truncated[:] = False
        self.ended = []
        self.seat_rewards[:] = 0.0
        played = self.acting == self.learner_seat
        self._ep_len += played if active is None else played & active
        self._absorb(self.game.step(actions, active=active), rewards, dones)
        self._play_opponents(rewards, dones)
        return rewards, dones, self._infos() if infos else []

    def observe(self) -> np.ndarray:
        """``float32[num_envs, 125]``: every slot's acting learning seat's observation."""
        return self.game.observe(self.acting)

    def action_masks(self) -> np.ndarray:
        """``bool[num_envs, 10]``: the legal moves of every slot's acting learning seat."""
        return self.game.action_masks()

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
        learning = np.arange(n) == seats[:, None]
        if self.every_live_seat:
            learning |= self.kinds[rows] == LIVE_KIND
        self.learning[rows] = learning
        self._ep_return[rows] = 0.0
        self._ep_len[rows] = 0

    def _play_opponents(self, rewards: np.ndarray, dones: np.ndarray) -> None:
        """Opponents move, batched per kind, until every game waits for a learning seat."""
        game = self.game
        while True:
            current = game.current_player
            need = ~self.learning[self._slots, current]
            if not need.any():
                self.acting[:] = current
                return
            obs = game.observe(out=self._opp_obs)
            masks = game.action_masks()
            kinds = self.kinds[self._slots, current]
            actions = np.zeros(self.num_games, dtype=np.int64)
            waiting = kinds[need]
            for kind in np.unique(waiting):
                rows = np.flatnonzero(need & (kinds == kind))
                actions[rows] = self.opponents.act(int(kind), obs[rows], masks[rows])
            self._absorb(game.step(actions, active=need), rewards, dones)

    def _absorb(self, result: StepResult, rewards: np.ndarray, dones: np.ndarray) -> None:
        """Credit the learner seats' rewards of one engine step; close games that ended.

        Games already done in this step started a new game; what happens in it before
        the learner's first decision belongs to no returned step (under both reward
        modes nothing is paid there: a round needs the learner's accusation).
        """
        ended = result.ended_games
        if self.win_reward:
            seat_r = np.zeros((self.num_games, self.num_players), dtype=np.float32)
            won = ended[result.terminated[ended]]
            ranks = result.final_ranks[won]
            seat_r[won] = win_point(ranks.T, ranks.T).T - 1.0 / self.num_players
        else:
            seat_r = result.rewards
        r = seat_r[self._slots, self.learner_seat]
        live = ~dones
        rewards[live] += r[live]
        self._ep_return[live] += r[live]
        if self.every_live_seat:
            self.seat_rewards[live] += seat_r[live]
        if not ended.size:
            return
        assert result.final_observations is not None
        assert not dones[ended].any(), "a game ended twice between two learner decisions"
        seats = self.learner_seat[ended]
        closed = EndedGames(
            games=ended,
            win_points=win_points(result.final_ranks[ended], seats),
            ranks=result.final_ranks[ended, seats],
            labels=table_kinds(self.kinds[ended], seats),
            returns=self._ep_return[ended].copy(),
            lengths=self._ep_len[ended].copy(),
            truncated=result.truncated[ended].copy(),
            learning=self.learning[ended].copy(),
            seat_observations=result.final_observations if self.every_live_seat else None,
        )
        self.ended.append(closed)
        for code in np.unique(closed.labels).tolist():
            label = "mixed" if code == MIXED else self.opponents.label(code)
            tally = self.results.setdefault(label, [0, 0.0])
            tally[0] += int((closed.labels == code).sum())
            tally[1] += float(closed.win_points[closed.labels == code].sum())
        self.truncated[ended] = result.truncated[ended]
        self.final_observations[ended] = result.final_observations[np.arange(ended.size), seats]
        dones[ended] = True
        self._new_games(ended)

    def _infos(self) -> list[dict[str, Any]]:
        """One dict per game (module docstring), from :attr:`ended`."""
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_games)]
        for closed in self.ended:
            for i, g in enumerate(closed.games.tolist()):
                code = int(closed.labels[i])
                infos[g] = {
                    "episode": {"r": float(closed.returns[i]), "l": int(closed.lengths[i])},
                    "win_points": float(closed.win_points[i]),
                    "rank": int(closed.ranks[i]),
                    "opponents": "mixed" if code == MIXED else self.opponents.label(code),
                }
        return infos


@dataclass(frozen=True)
class EndedGames:
    """The games that one engine step ended, from their learner seats' side (arrays of G)."""

    games: np.ndarray
    """Slot of each game."""
    win_points: np.ndarray
    """The learner seat's share of the win."""
    ranks: np.ndarray
    """The learner seat's rank (1 best)."""
    labels: np.ndarray
    """The opponents' kind id (:func:`table_kinds`)."""
    returns: np.ndarray
    """The learner's return over the game."""
    lengths: np.ndarray
    """The learner's decisions in the game."""
    truncated: np.ndarray
    """The game was cut off at ``max_rounds``."""
    learning: np.ndarray
    """``bool[G, n]``: the game's learning seats."""
    seat_observations: np.ndarray | None = None
    """``float32[G, n, 125]``: every seat's last observation (``learners="live"`` only)."""
