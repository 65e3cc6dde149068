"""What a step of the batched engine reports: :class:`StepResult`, :class:`RoundResults`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from grove_env.resolution import stacks_of


@dataclass
class StepResult:
    """What one :meth:`grove_env.vector.VectorGame.step` did, per game ``g`` (length B).

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
            ``ended_games[i]``), as ``grove_v1`` would show it; only with
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
    """The rounds resolved by the last step, per game; other games hold no meaning.

    Attributes:
        round_ended: bool[B] which games resolved a round in the last step.
        number: int64[B] the round's number (1 is the first round of a game).
        first_player: int64[B] the round's first player.
        suspects: int64[B, 3] tile values of the suspects at the reveal.
        culprit: int64[B] the culprit's slot.
        accusations: int64[B, n] slot accused at position k (by seat
            ``(first_player + k) % n``).
        coloured: int64[B, n] coloured markers after the resolution.
        penalty: int64[B, n] penalty markers after the resolution.
    """

    round_ended: np.ndarray
    number: np.ndarray
    first_player: np.ndarray
    suspects: np.ndarray
    culprit: np.ndarray
    accusations: np.ndarray
    coloured: np.ndarray
    penalty: np.ndarray

    def stacks(self, game: int) -> list[list[int]]:
        """Seats per suspect slot, bottom to top, of the round of ``game``."""
        slots = [int(slot) for slot in self.accusations[game]]
        return stacks_of(int(self.first_player[game]), slots, len(slots))

    def as_info(self, game: int) -> dict:
        """The ``round_result`` dict of ``grove_v1`` for the round of ``game``."""
        return {
            "round": int(self.number[game]),
            "suspects": [int(t) for t in self.suspects[game]],
            "culprit": int(self.culprit[game]),
            "stacks": self.stacks(game),
            "coloured": [int(c) for c in self.coloured[game]],
            "penalty": [int(p) for p in self.penalty[game]],
        }
