"""Batched engine: thousands of games of In a Grove stepped at once with NumPy.

A :class:`VectorGame` holds B independent games of one rule set and table size and
plays one decision in each of them per :meth:`VectorGame.step`, with no Python loop
over games (the loops left run over the at most 5 seats or 3 suspect slots). It
follows :class:`grove_env.core.Game` move for move and :mod:`grove_env.grove_v0`
reward for reward; ``tests/test_vector.py`` checks that on thousands of games.

=====================  ==========================================================
``current_player``     int64[B], the seat to act in each game
``action_masks()``     bool[B, 10], legal actions of that seat
``observe(seats)``     float32[B, 125], the observation of ``seats[g]`` in game g
                       (default: the seat to act), as ``ObservationEncoder.encode``
``step(actions)``      plays ``actions[g]`` in every (active) game, returns a
                       :class:`StepResult`; finished games are reset at once
``round_results``      :class:`RoundResults` of the rounds that ended in the last step
``force_deals(deals)`` the next deal(s) of chosen games, for tests
=====================  ==========================================================

>>> vg = VectorGame(3, "classic", 4, seed=0)
>>> vg.current_player, vg.action_masks()[0].nonzero()[0]
(array([0, 0, 0]), array([0, 1, 2]))
>>> result = vg.step(np.array([0, 1, 2]))        # every first player looks
>>> vg.action_masks()[1].nonzero()[0]             # keep, or swap with seen slot 0 or 2
array([3, 4, 6])
>>> vg.observe().shape
(3, 125)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from grove_env.actions import NUM_ACTIONS, Phase
from grove_env.observation import OBS_SIZE
from grove_env.rules import CulpritMarkers, RuleSet, Scoring, get_rules
from grove_env.vector_obs import VectorEncoder
from grove_env.vector_state import FIVE, INDEX_TO_VALUE, OVER, VALUE_TO_INDEX, VectorState

REWARD_MODES = ("outcome", "markers")

# Legal actions per (phase, unseen slot): row 4 * phase + unseen + 1.
_LEGAL = np.zeros((4 * 4, NUM_ACTIONS), dtype=bool)
for _unseen in range(-1, 3):
    _LEGAL[4 * Phase.LOOK + _unseen + 1, 0:3] = True
    _LEGAL[4 * Phase.SWAP + _unseen + 1, 3:7] = True
    if _unseen >= 0:
        _LEGAL[4 * Phase.SWAP + _unseen + 1, 4 + _unseen] = False
    _LEGAL[4 * Phase.ACCUSE + _unseen + 1, 7:10] = True
_LEGAL.flags.writeable = False


@dataclass
class StepResult:
    """What one :meth:`VectorGame.step` did, per game ``g`` (arrays of length B).

    Attributes:
        rewards: float32[B, n] this step's reward of every seat (see the reward modes).
        round_ended: bool[B] a round was resolved.
        terminated: bool[B] the game ended by the end check.
        truncated: bool[B] the game reached ``max_rounds`` unfinished (no outcome reward).
        final_scores: int64[B, n] score counts of games that ended (zeros elsewhere).
        final_ranks: int64[B, n] ranks of games that ended, 1 best, ties share
            (zeros elsewhere).
        ended_games: int64[k] indices of the games that ended (terminated or truncated).
        final_observations: float32[k, n, 125] every seat's observation of each ended
            game just before its reset, seat-indexed (``[i, s]`` is seat ``s`` of game
            ``ended_games[i]``), as ``grove_v0`` would show it; only with
            ``VectorGame(final_observations=True)``, else ``None``.
    """

    rewards: np.ndarray
    round_ended: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    final_scores: np.ndarray
    final_ranks: np.ndarray
    ended_games: np.ndarray
    final_observations: np.ndarray | None = None


@dataclass
class RoundResults:
    """The rounds resolved in the last step, per game; valid where ``round_ended``.

    Attributes:
        round_ended: bool[B] which games resolved a round in the last step.
        number: int64[B] the round's number (1 is the first round of a game).
        first_player: int64[B] the round's first player.
        suspects: int64[B, 3] tile values of the suspects at the reveal.
        culprit: int64[B] the culprit's slot.
        accused: int64[B, n] slot accused at position k (by seat ``(first + k) % n``).
        coloured: int64[B, n] coloured markers after the resolution.
        penalty: int64[B, n] penalty markers after the resolution.
    """

    round_ended: np.ndarray
    number: np.ndarray
    first_player: np.ndarray
    suspects: np.ndarray
    culprit: np.ndarray
    accused: np.ndarray
    coloured: np.ndarray
    penalty: np.ndarray

    def stacks(self, game: int) -> list[list[int]]:
        """Seats per suspect slot, bottom to top, of the round of ``game``."""
        n = self.accused.shape[1]
        stacks: list[list[int]] = [[], [], []]
        for k, slot in enumerate(self.accused[game]):
            stacks[int(slot)].append((int(self.first_player[game]) + k) % n)
        return stacks

    def as_info(self, game: int) -> dict:
        """The ``round_result`` dict of ``grove_v0`` for the round of ``game``."""
        return {
            "round": int(self.number[game]),
            "suspects": [int(t) for t in self.suspects[game]],
            "culprit": int(self.culprit[game]),
            "stacks": self.stacks(game),
            "coloured": [int(c) for c in self.coloured[game]],
            "penalty": [int(p) for p in self.penalty[game]],
        }


class VectorGame:
    """B games of one rule set and table size, one decision per game per step.

    Args:
        num_games: B, the number of games.
        rules: ``"classic"``, ``"revised"`` or a :class:`~grove_env.rules.RuleSet`.
        num_players: seats per game.
        reward: ``"outcome"`` (zero-sum terminal reward) or ``"markers"`` (dense, at
            each round's end minus the centred change of each seat's score count).
        max_rounds: a game still running after this many rounds is truncated.
        seed: seed of the engine's ``np.random.Generator`` (deals only).
        final_observations: also return every seat's last observation of each game
            that ended (see :class:`StepResult`).
    """

    def __init__(
        self,
        num_games: int,
        rules: str | RuleSet = "classic",
        num_players: int = 4,
        reward: str = "outcome",
        max_rounds: int = 100,
        seed: int | None = None,
        final_observations: bool = False,
    ) -> None:
        if isinstance(num_games, bool) or not isinstance(num_games, int) or num_games < 1:
            raise ValueError(f"num_games must be an int >= 1, got {num_games!r}")
        self.rules = get_rules(rules)
        self.num_players = n = self.rules.check_players(num_players)
        if reward not in REWARD_MODES:
            raise ValueError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
        if isinstance(max_rounds, bool) or not isinstance(max_rounds, int) or max_rounds < 1:
            raise ValueError(f"max_rounds must be an int >= 1, got {max_rounds!r}")
        self.num_games = num_games
        self.reward = reward
        self.max_rounds = max_rounds
        self.final_observations = final_observations
        self._tile_values = np.array(self.rules.tiles(n), dtype=np.int64)
        self._tile_indices = VALUE_TO_INDEX[self._tile_values]
        self._has_spare = self.rules.has_spare(n)
        self._encoder = VectorEncoder(self.rules, n)
        self._return = self.rules.culprit_markers is CulpritMarkers.RETURN
        self.state = VectorState.zeros(num_games, n)
        self._round_start_scores = np.zeros((num_games, n), dtype=np.int64)
        self._queue: np.ndarray | None = None  # forced deals [B, Q, tiles] as indices
        self._queue_next = np.zeros(num_games, dtype=np.int64)
        self._queue_len = np.zeros(num_games, dtype=np.int64)
        self._rng = np.random.default_rng(seed)
        self.round_results = self._empty_round_results()
        self._reset_games(np.arange(num_games))

    # ----------------------------------------------------------------- queries
    @property
    def current_player(self) -> np.ndarray:
        """int64[B]: the seat to act in each game."""
        return self.state.current.copy()

    def action_masks(self) -> np.ndarray:
        """bool[B, 10]: the legal actions of each game's current player."""
        st = self.state
        return _LEGAL[4 * st.phase + st.unseen + 1]

    def observe(self, seats: np.ndarray | None = None, out: np.ndarray | None = None) -> np.ndarray:
        """float32[B, 125]: the observation of ``seats[g]`` in game g (default: to act).

        ``out``, if given, must be a C-contiguous float32 array of shape (B, 125).
        """
        b, n = self.num_games, self.num_players
        if seats is None:
            seats = self.state.current
        else:
            seats = np.asarray(seats)
            if seats.shape != (b,):
                raise ValueError(f"seats must have shape ({b},), got {seats.shape}")
            if seats.size and (seats.min() < 0 or seats.max() >= n):
                raise ValueError(f"seats must be in 0..{n - 1}")
            seats = seats.astype(np.int64, copy=False)
        if out is None:
            out = np.empty((b, OBS_SIZE), dtype=np.float32)
        elif out.shape != (b, OBS_SIZE) or out.dtype != np.float32 or not out.flags.c_contiguous:
            raise ValueError(f"out must be a C-contiguous float32 array of shape ({b}, {OBS_SIZE})")
        return self._encoder.encode(self.state, seats, out)

    def scores(self) -> np.ndarray:
        """int64[B, n]: each seat's score count now (fewer is better)."""
        st = self.state
        if self.rules.scoring is Scoring.ALL_MARKERS:
            return st.coloured + st.penalty
        return st.penalty.copy()

    # ----------------------------------------------------------------- deals
    def reset(self, seed: int | None = None) -> None:
        """Start a new game everywhere (reseeding the deals if ``seed`` is given).

        Forced deals still queued (see :meth:`force_deals`) are used first.
        """
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.round_results = self._empty_round_results()
        self._reset_games(np.arange(self.num_games))

    def force_deals(self, deals: np.ndarray, games: np.ndarray | None = None) -> None:
        """Force the next deal(s) of ``games`` (bool[B]; default all).

        ``deals`` is int[B, tiles] (the next deal of each game) or int[B, R, tiles]
        (the next R deals, used in order at each new round or new game, then random
        deals again), in the order of :class:`grove_env.core.Game`: the tiles dealt to
        seats 0..n-1, suspect slots 0, 1, 2, the victim, then the face-up spare; tile
        values with 0 for the blank/X. Replaces what was queued for those games.
        :meth:`reset` uses the queue too, so ``force_deals(d); reset()`` forces the
        first round.
        """
        b, t = self.num_games, len(self._tile_values)
        deals = np.asarray(deals)
        if deals.ndim == 2:
            deals = deals[:, None, :]
        if deals.ndim != 3 or deals.shape[0] != b or deals.shape[2] != t:
            raise ValueError(
                f"deals must have shape ({b}, {t}) or ({b}, R, {t}) for a {self.rules.name} "
                f"game of {self.num_players} players, got {np.shape(deals)}"
            )
        chosen = np.ones(b, bool) if games is None else np.asarray(games, dtype=bool)
        if chosen.shape != (b,):
            raise ValueError(f"games must be bool[{b}], got shape {chosen.shape}")
        rows = np.flatnonzero(chosen)
        picked = deals[rows]
        bad = (np.sort(picked, axis=2) != self._tile_values).any(axis=2)
        if bad.any():
            g, r = np.argwhere(bad)[0]
            raise ValueError(
                f"a deal is a permutation of {self._tile_values.tolist()}; game {rows[g]} "
                f"deal {r} is {picked[g, r].tolist()}"
            )
        q = deals.shape[1]
        if self._queue is None or self._queue.shape[1] < q:
            grown = np.zeros((b, q, t), dtype=np.int64)
            if self._queue is not None:
                grown[:, : self._queue.shape[1]] = self._queue
            self._queue = grown
        self._queue[rows, :q] = VALUE_TO_INDEX[picked]
        self._queue_next[rows] = 0
        self._queue_len[rows] = q

    def _deal(self, rows: np.ndarray) -> np.ndarray:
        """Tile indices [k, tiles] of a new deal for each game in ``rows``."""
        deal = self._rng.permuted(
            np.broadcast_to(self._tile_indices, (len(rows), len(self._tile_indices))), axis=1
        )
        if self._queue is not None:
            nxt = self._queue_next[rows]
            forced = np.flatnonzero(nxt < self._queue_len[rows])
            if forced.size:
                fg = rows[forced]
                deal[forced] = self._queue[fg, nxt[forced]]
                self._queue_next[fg] += 1
        return deal

    def _start_rounds(self, rows: np.ndarray) -> None:
        """Deal the next round of games ``rows`` (their first player already set)."""
        st, n = self.state, self.num_players
        deal = self._deal(rows)
        st.dealt[rows] = deal[:, :n]
        st.suspects[rows] = deal[:, n : n + 3]
        st.victim[rows] = deal[:, n + 3]
        st.spare[rows] = deal[:, n + 4] if self._has_spare else -1
        st.round[rows] += 1
        st.unseen[rows] = -1
        st.tampered[rows] = -1
        st.accused[rows] = -1
        st.num_accused[rows] = 0
        st.phase[rows] = Phase.LOOK
        st.current[rows] = st.first[rows]

    def _reset_games(self, rows: np.ndarray) -> None:
        st = self.state
        st.coloured[rows] = self.rules.markers_per_player
        st.penalty[rows] = 0
        st.removed[rows] = 0
        st.round[rows] = 0
        st.first[rows] = 0
        self._round_start_scores[rows] = self.rules.score(self.rules.markers_per_player, 0)
        self._start_rounds(rows)

    def _empty_round_results(self) -> RoundResults:
        b, n = self.num_games, self.num_players
        return RoundResults(
            round_ended=np.zeros(b, bool),
            number=np.zeros(b, np.int64),
            first_player=np.zeros(b, np.int64),
            suspects=np.zeros((b, 3), np.int64),
            culprit=np.zeros(b, np.int64),
            accused=np.zeros((b, n), np.int64),
            coloured=np.zeros((b, n), np.int64),
            penalty=np.zeros((b, n), np.int64),
        )

    # ----------------------------------------------------------------- moves
    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> StepResult:
        """Play ``actions[g]`` for the current player of every game g (where ``active``).

        Raises ``ValueError`` naming the games, phases and actions if any active game's
        action is illegal, leaving every game unchanged. Games that end are reset
        after their results are recorded in the returned :class:`StepResult`.
        """
        b, n, st = self.num_games, self.num_players, self.state
        actions = np.asarray(actions)
        if actions.shape != (b,):
            raise ValueError(f"actions must have shape ({b},), got {actions.shape}")
        if not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be integers, got dtype {actions.dtype}")
        actions = actions.astype(np.int64, copy=False)
        if active is not None:
            active = np.asarray(active, dtype=bool)
            if active.shape != (b,):
                raise ValueError(f"active must have shape ({b},), got {active.shape}")
        self._check_legal(actions, active)

        phase = st.phase
        look = phase == Phase.LOOK
        swap = phase == Phase.SWAP
        accuse = phase == Phase.ACCUSE
        if active is not None:
            look &= active
            swap &= active
            accuse &= active

        # Look: leave one slot unseen; the first player's two looks follow from it.
        rows = np.flatnonzero(look)
        st.unseen[rows] = actions[rows]
        st.phase[rows] = Phase.SWAP if self.rules.victim_swap else Phase.ACCUSE

        # Swap: keep (3) or exchange the victim with seen slot a - 4.
        rows = np.flatnonzero(swap)
        st.phase[rows] = Phase.ACCUSE
        rows = rows[actions[rows] != 3]
        if rows.size:
            slot = actions[rows] - 4
            old = st.suspects[rows, slot]
            st.suspects[rows, slot] = st.victim[rows]
            st.victim[rows] = old
            st.tampered[rows] = slot

        # Accuse: a marker on slot a - 7; the next seat then looks automatically.
        rows = np.flatnonzero(accuse)
        seat = st.current[rows]
        k = st.num_accused[rows]
        st.accused[rows, k] = actions[rows] - 7
        st.coloured[rows, seat] -= 1
        k += 1
        st.num_accused[rows] = k
        done = k == n
        going = rows[~done]
        nxt = seat[~done] + 1
        nxt[nxt == n] = 0
        st.current[going] = nxt

        result = StepResult(
            rewards=np.zeros((b, n), np.float32),
            round_ended=np.zeros(b, bool),
            terminated=np.zeros(b, bool),
            truncated=np.zeros(b, bool),
            final_scores=np.zeros((b, n), np.int64),
            final_ranks=np.zeros((b, n), np.int64),
            ended_games=np.zeros(0, np.int64),
        )
        self.round_results.round_ended = result.round_ended
        resolved = rows[done]
        if resolved.size:
            self._resolve(resolved, result)
        return result

    def _check_legal(self, actions: np.ndarray, active: np.ndarray | None) -> None:
        st = self.state
        in_range = (actions >= 0) & (actions < NUM_ACTIONS)
        legal = _LEGAL[4 * st.phase + st.unseen + 1, np.where(in_range, actions, 0)] & in_range
        bad = ~legal if active is None else active & ~legal
        if bad.any():
            games = np.flatnonzero(bad)
            shown = games[:10]
            phases = [Phase(int(p)).name.lower() for p in st.phase[shown]]
            raise ValueError(
                f"illegal actions in {games.size} game(s): games {shown.tolist()}"
                f"{' ...' if games.size > 10 else ''} in phases {phases} played "
                f"{actions[shown].tolist()}; see action_masks()"
            )

    # ----------------------------------------------------------------- rounds
    def _resolve(self, rows: np.ndarray, result: StepResult) -> None:
        """Reveal, resolve and end-check the rounds of ``rows`` (all seats accused)."""
        st, n, rules = self.state, self.num_players, self.rules
        k = len(rows)
        sus = st.suspects[rows]
        numbered = sus > 0
        lowest = np.where(numbered, sus, 99).argmin(axis=1)
        highest = np.where(numbered, sus, -1).argmax(axis=1)
        culprit = np.where((sus == FIVE).any(axis=1), lowest, highest)

        accused = st.accused[rows]
        first = st.first[rows]
        seat_at = first[:, None] + np.arange(n)  # seat at each position of the round
        seat_at[seat_at >= n] -= n
        on_culprit = accused == culprit[:, None]
        rows2 = rows[:, None]
        if self._return:
            st.coloured[rows2, seat_at] += on_culprit
        else:
            st.removed[rows2, seat_at] += on_culprit
        games = np.arange(k)
        for slot in range(3):
            hit = accused == slot
            size = hit.sum(axis=1)
            top = seat_at[games, n - 1 - hit[:, ::-1].argmax(axis=1)]
            st.penalty[rows, top] += np.where(culprit == slot, 0, size)

        coloured, penalty = st.coloured[rows], st.penalty[rows]
        rr = self.round_results
        rr.number[rows] = st.round[rows]
        rr.first_player[rows] = first
        rr.suspects[rows] = INDEX_TO_VALUE[sus]
        rr.culprit[rows] = culprit
        rr.accused[rows] = accused
        rr.coloured[rows] = coloured
        rr.penalty[rows] = penalty

        scores = coloured + penalty if rules.scoring is Scoring.ALL_MARKERS else penalty
        if self.reward == "markers":
            delta = scores - self._round_start_scores[rows]
            result.rewards[rows] = delta.mean(axis=1, keepdims=True) - delta
            self._round_start_scores[rows] = scores

        over = (coloured == 0).any(axis=1)
        if rules.end_markers_held is not None:
            over |= (coloured + penalty >= rules.end_markers_held).any(axis=1)
        if rules.end_penalty_held is not None:
            over |= (penalty >= rules.end_penalty_held).any(axis=1)
        cut = ~over & (st.round[rows] >= self.max_rounds)
        ended = over | cut
        result.round_ended[rows] = True
        result.terminated[rows[over]] = True
        result.truncated[rows[cut]] = True

        better = (scores[:, None, :] < scores[:, :, None]).sum(axis=2)
        if ended.any():
            worse = (scores[:, None, :] > scores[:, :, None]).sum(axis=2)
            if self.reward == "outcome":
                result.rewards[rows[over]] += (worse[over] - better[over]) / (n - 1)
            result.final_scores[rows[ended]] = scores[ended]
            result.final_ranks[rows[ended]] = 1 + better[ended]

        # The core deals the next round unless the end check stopped the game, and a
        # truncated game shows that new round: so do the same before snapshotting.
        going = rows[~over]
        nxt = st.first[going] + 1
        nxt[nxt == n] = 0
        st.first[going] = nxt
        self._start_rounds(going)
        if ended.any():
            done = rows[ended]
            result.ended_games = done
            if self.final_observations:
                result.final_observations = self._snapshot(done, over[ended])
            self._reset_games(done)

    def _snapshot(self, rows: np.ndarray, over: np.ndarray) -> np.ndarray:
        """float32[k, n, 125]: every seat's observation of games ``rows`` now."""
        n = self.num_players
        snap = self.state.take(rows)
        snap.phase[over] = OVER
        out = np.empty((len(rows), n, OBS_SIZE), dtype=np.float32)
        for seat in range(n):
            block = np.empty((len(rows), OBS_SIZE), dtype=np.float32)
            out[:, seat] = self._encoder.encode(snap, np.full(len(rows), seat), block, keep=False)
        return out
