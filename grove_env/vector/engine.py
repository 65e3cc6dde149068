"""Batched engine: thousands of games of In a Grove stepped at once with NumPy.

A :class:`VectorGame` holds B independent games of one rule set and table size and
plays one decision in each of them per :meth:`VectorGame.step`, with no Python loop
over games (the loops left run over the at most 5 seats or 3 suspect slots). It
follows :class:`grove_env.core.Game` move for move and :mod:`grove_env.grove_v1`
observation, mask and reward for reward; ``tests/vector/test_vector.py`` checks that on
thousands of games of every rule set and player count.

======================  ==========================================================
``current_player``      int64[B], the seat to act in each game
``action_masks()``      bool[B, 10], legal actions of that seat
``observe(seats)``      float32[B, 125], the observation of ``seats[g]`` in game g
                        (default: the seat to act), as ``ObservationEncoder.encode``
``step(actions)``       plays ``actions[g]`` in every (active) game, returns a
                        :class:`StepResult`; finished games are reset at once
``round_results``       :class:`RoundResults` of the rounds resolved by the last step
``force_deals(deals)``  the next deal(s) of chosen games, for tests
``state``               the :class:`~grove_env.vector.state.VectorState` (read only)
======================  ==========================================================

Rewards are those of grove_v1, per seat and step: ``outcome`` pays
(seats ranked worse - seats ranked better) / (n - 1) when the end check stops a
game; ``markers`` pays, at each round's end, minus the change of each seat's score
count, centred. A game still running after ``max_rounds`` rounds is truncated and pays
no outcome. A game that ended is reset inside the same ``step`` (round 1, seat 0
first, markers back), after its final scores, ranks and, with
``final_observations=True``, every seat's last observation were recorded: the table
at the end for a terminated game, and for a truncated one the next round already
dealt, as grove_v1 shows it (that deal then opens the new game).

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

import numpy as np

from grove_env.actions import ACCUSE_0, NUM_ACTIONS, Phase
from grove_env.observation import OBS_SIZE
from grove_env.rules import RuleSet, get_rules
from grove_env.standings import REWARD_MODES, markers_reward, outcome, rank
from grove_env.vector import batched_rules as vr
from grove_env.vector.deals import Dealer
from grove_env.vector.obs import VectorEncoder
from grove_env.vector.results import RoundResults, StepResult
from grove_env.vector.state import INDEX_TO_VALUE, OVER, VectorState

__all__ = ["REWARD_MODES", "RoundResults", "StepResult", "VectorGame"]


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
        if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)):
            raise ValueError(f"num_games must be an int >= 1, got {num_games!r}")
        if num_games < 1:
            raise ValueError(f"num_games must be an int >= 1, got {num_games!r}")
        self.rules = get_rules(rules)
        self.num_players = n = self.rules.check_players(num_players)
        if reward not in REWARD_MODES:
            raise ValueError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
        if isinstance(max_rounds, bool) or not isinstance(max_rounds, int) or max_rounds < 1:
            raise ValueError(f"max_rounds must be an int >= 1, got {max_rounds!r}")
        self.num_games = b = int(num_games)
        self.reward = reward
        self.max_rounds = max_rounds
        self.final_observations = final_observations
        self._dealer = Dealer(self.rules, n, b, seed)
        self._has_spare = self.rules.has_spare(n)
        self._encoder = VectorEncoder(self.rules, n)
        self.state = VectorState.zeros(b, n)
        self._round_start_scores = np.zeros((n, b), dtype=np.int64)
        self._all = np.ones(b, dtype=bool)
        self.round_results = self._empty_round_results()
        self._reset_games(self._all)

    # ----------------------------------------------------------------- queries
    @property
    def current_player(self) -> np.ndarray:
        """int64[B]: the seat to act in each game."""
        return self.state.current_player.copy()

    def action_masks(self) -> np.ndarray:
        """bool[B, 10]: the legal actions of each game's current player."""
        st = self.state
        return vr.LEGAL.take(4 * st.phase + st.unseen_slot + 1, axis=0)

    def observe(self, seats: np.ndarray | None = None, out: np.ndarray | None = None) -> np.ndarray:
        """float32[B, 125]: the observation of ``seats[g]`` in game g (default: to act).

        ``out``, if given, must be a C-contiguous float32 array of shape (B, 125).
        """
        b, n = self.num_games, self.num_players
        if seats is None:
            seats = self.state.current_player
        else:
            seats = np.asarray(seats)
            if seats.shape != (b,) or not np.issubdtype(seats.dtype, np.integer):
                raise ValueError(f"seats must be int[{b}], got {seats.dtype}{list(seats.shape)}")
            if seats.min() < 0 or seats.max() >= n:
                raise ValueError(f"seats must be in 0..{n - 1}")
            seats = seats.astype(np.int64, copy=False)
        if out is None:
            out = np.empty((b, OBS_SIZE), dtype=np.float32)
        elif out.shape != (b, OBS_SIZE) or out.dtype != np.float32 or not out.flags.c_contiguous:
            raise ValueError(f"out must be a C-contiguous float32 array of shape ({b}, {OBS_SIZE})")
        return self._encoder.encode(self.state, seats, out)

    def scores(self) -> np.ndarray:
        """int64[B, n]: each seat's score count now (fewer is better)."""
        return vr.scores(self.state, self.rules).T.copy()

    # ----------------------------------------------------------------- deals
    def reset(self, seed: int | None = None) -> None:
        """Start a new game everywhere (reseeding the deals if ``seed`` is given).

        Forced deals still queued (see :meth:`force_deals`) are used first.
        """
        if seed is not None:
            self._dealer.reseed(seed)
        self.round_results = self._empty_round_results()
        self._reset_games(self._all)

    def force_deals(self, deals: np.ndarray, games: np.ndarray | None = None) -> None:
        """Force the next deal(s) of ``games`` (bool[B]; default all).

        ``deals`` is int[B, tiles] (the next deal of each game) or int[B, R, tiles]
        (the next R deals, used in order, then random deals again), tile values in the
        order of :mod:`.deals`. Replaces what was queued for those games. :meth:`reset`
        uses the queue too, so ``force_deals(d); reset()`` forces the first round.
        """
        self._dealer.force(deals, games)

    def _start_rounds(self, games: np.ndarray) -> None:
        """Deal the next round of ``games`` (their first player already set)."""
        st, n = self.state, self.num_players
        deal = self._dealer.deal(games)
        np.copyto(st.dealt, deal[:n], where=games)
        np.copyto(st.suspects, deal[n : n + 3], where=games)
        np.copyto(st.victim, deal[n + 3], where=games)
        np.copyto(st.spare, deal[n + 4] if self._has_spare else -1, where=games)
        st.round += games
        np.copyto(st.unseen_slot, -1, where=games)
        np.copyto(st.tampered_slot, -1, where=games)
        np.copyto(st.accusations, -1, where=games)
        np.copyto(st.num_accusations, 0, where=games)
        np.copyto(st.phase, vr.LOOK, where=games)
        np.copyto(st.current_player, st.first_player, where=games)

    def _reset_games(self, games: np.ndarray) -> None:
        st = self.state
        self._reset_counts(np.flatnonzero(games))
        np.copyto(st.round, 0, where=games)
        np.copyto(st.first_player, 0, where=games)
        self._start_rounds(games)

    def _empty_round_results(self) -> RoundResults:
        b, n = self.num_games, self.num_players
        return RoundResults(
            round_ended=np.zeros(b, bool),
            number=np.zeros(b, np.int64),
            first_player=np.zeros(b, np.int64),
            suspects=np.zeros((b, 3), np.int64),
            culprit=np.zeros(b, np.int64),
            accusations=np.zeros((b, n), np.int64),
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
        if actions.shape != (b,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be int[{b}], got {actions.dtype}{list(actions.shape)}")
        actions = actions.astype(np.int64, copy=False)
        if active is not None:
            active = np.asarray(active, dtype=bool)
            if active.shape != (b,):
                raise ValueError(f"active must be bool[{b}], got shape {active.shape}")
        self._check_legal(actions, active)
        result = StepResult(
            rewards=np.zeros((b, n), np.float32),
            round_ended=np.zeros(b, bool),
            terminated=np.zeros(b, bool),
            truncated=np.zeros(b, bool),
            final_scores=np.zeros((b, n), np.int64),
            final_ranks=np.zeros((b, n), np.int64),
            ended_games=np.zeros(0, np.int64),
        )
        acting = [st.phase == p for p in (vr.LOOK, vr.SWAP, vr.ACCUSE)]
        if active is not None:
            acting = [games & active for games in acting]
        looking, swapping, accusing = acting
        if looking.any():
            vr.look(st, actions, looking, self.rules.victim_swap)
        if swapping.any():
            vr.swap(st, actions, swapping)
        if accusing.any():
            complete = vr.accuse(st, actions - ACCUSE_0, accusing)
            if complete.any():
                self._end_rounds(complete, result)
        self.round_results.round_ended = result.round_ended
        return result

    def _check_legal(self, actions: np.ndarray, active: np.ndarray | None) -> None:
        st = self.state
        in_range = (actions >= 0) & (actions < NUM_ACTIONS)
        code = (4 * st.phase + st.unseen_slot + 1) * NUM_ACTIONS
        code += np.where(in_range, actions, 0)
        legal = vr.LEGAL_FLAT.take(code)
        legal &= in_range
        if active is not None:
            legal |= ~active
        if not legal.all():
            games = np.flatnonzero(~legal)
            shown = games[:10]
            phases = [Phase(int(p)).name.lower() for p in st.phase[shown]]
            raise ValueError(
                f"illegal actions in {games.size} game(s): games {shown.tolist()}"
                f"{' ...' if games.size > 10 else ''} in phases {phases} played "
                f"{actions[shown].tolist()}; see action_masks()"
            )

    # ----------------------------------------------------------------- rounds
    def _end_rounds(self, games: np.ndarray, result: StepResult) -> None:
        """Resolve the complete rounds of ``games``, pay rewards, then deal again: the
        next round, or the first round of a new game where the game ended."""
        st, n, rules = self.state, self.num_players, self.rules
        culprit = vr.resolve_rounds(st, games, rules)
        self._record_rounds(games, culprit)
        result.round_ended = games
        scores = vr.scores(st, rules)
        if self.reward == "markers":
            changes = scores - self._round_start_scores
            paid = markers_reward(changes, changes)
            rewards = result.rewards.T  # [n, B] view
            np.copyto(rewards, paid, where=games, casting="same_kind")
            np.copyto(self._round_start_scores, scores, where=games)
        over = vr.game_over(st, rules)
        over &= games
        cut = games & ~over & (st.round >= self.max_rounds)
        result.terminated, result.truncated = over, cut
        ended = np.flatnonzero(over | cut)
        if ended.size:
            self._finish_games(ended, over[ended], scores[:, ended], result)
        np.copyto(st.first_player, vr.next_seat(n).take(st.first_player), where=games & ~over)
        # A finished game restarts from round 1 with seat 0 first; a truncated one
        # first shows its next round (as the core deals it) in its final observation.
        st.first_player[ended[over[ended]]] = 0
        st.round[ended[over[ended]]] = 0
        self._start_rounds(games)
        if ended.size:
            cut_games = ended[~over[ended]]
            if self.final_observations and cut_games.size:
                assert result.final_observations is not None
                at = np.flatnonzero(~over[ended])
                result.final_observations[at] = self._snapshot(cut_games)
            self._reset_counts(ended)
            st.round[cut_games] = 1
            st.first_player[cut_games] = 0
            st.current_player[cut_games] = 0

    def _finish_games(
        self, ended: np.ndarray, over: np.ndarray, scores: np.ndarray, result: StepResult
    ) -> None:
        """Final scores, ranks, outcome rewards (and observations) of games ``ended``;
        ``over`` marks those that the end check stopped, ``scores`` is int64[n, k]."""
        n = self.num_players
        result.ended_games = ended
        result.final_scores[ended] = scores.T
        result.final_ranks[ended] = rank(scores, scores).T
        if self.reward == "outcome":
            result.rewards[ended[over]] = outcome(scores, scores).T[over]
        if self.final_observations:
            result.final_observations = np.zeros((len(ended), n, OBS_SIZE), np.float32)
            if over.any():
                snap = self.state.take(ended[over])
                snap.phase[:] = OVER
                result.final_observations[over] = self._snapshot(ended[over], snap)

    def _reset_counts(self, games: np.ndarray) -> None:
        """Every seat's markers back to the start for ``games`` (indices)."""
        st, rules = self.state, self.rules
        st.coloured[:, games] = rules.markers_per_player
        st.penalty[:, games] = 0
        st.removed[:, games] = 0
        self._round_start_scores[:, games] = rules.score(rules.markers_per_player, 0)

    def _record_rounds(self, games: np.ndarray, culprit: np.ndarray) -> None:
        st = self.state
        self.round_results = RoundResults(
            round_ended=games,
            number=st.round.copy(),
            first_player=st.first_player.copy(),
            suspects=INDEX_TO_VALUE.take(st.suspects).T,
            culprit=culprit,
            accusations=st.accusations.copy().T,
            coloured=st.coloured.copy().T,
            penalty=st.penalty.copy().T,
        )

    def _snapshot(self, games: np.ndarray, snap: VectorState | None = None) -> np.ndarray:
        """float32[k, n, 125]: every seat's observation of ``games`` (indices) now, or
        of the copied state ``snap`` of those games."""
        k, n = len(games), self.num_players
        snap = self.state.take(games) if snap is None else snap
        every_seat = snap.take(np.tile(np.arange(k), n))  # n blocks of the k games
        out = np.empty((n * k, OBS_SIZE), dtype=np.float32)
        self._encoder.encode(every_seat, np.repeat(np.arange(n), k), out, keep=False)
        return out.reshape(n, k, OBS_SIZE).transpose(1, 0, 2)
