"""Scores, ranks, outcomes, win points and the per-round reward, each written once.

Each function takes the seats' score counts (fewer is better; see
:meth:`grove_env.rules.RuleSet.score`) as a sequence with one entry per seat. An entry
may be a plain number (one game, as the core plays it) or a NumPy array (the same
seat in many games, as the batched engine holds them): the functions use only
comparisons and arithmetic, so one statement of each rule serves both.

>>> scores = [3, 5, 3, 4]
>>> ranks(scores), win_points(ranks(scores))
([1, 4, 1, 3], [0.5, 0.0, 0.5, 0.0])
>>> [round(r, 3) for r in outcomes(scores)]
[0.667, -1.0, 0.667, -0.333]
>>> markers_rewards(before=[5, 5, 5], after=[4, 6, 5])
[1.0, -1.0, 0.0]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

PerSeat = Sequence[Any] | np.ndarray
"""One entry per seat: numbers, or arrays over games (a NumPy array ``[n, ...]``)."""

REWARD_MODES = ("outcome", "markers")
"""The reward modes of the environment and the batched engine: ``outcome`` pays
:func:`outcomes` when the end check stops the game, ``markers`` pays
:func:`markers_rewards` at each round's end."""


def better_worse(scores: PerSeat) -> tuple[list[Any], list[Any]]:
    """Per seat, how many seats have a strictly better (lower) score, and how many a
    strictly worse (higher) one."""
    better = [sum(other < score for other in scores) for score in scores]
    worse = [sum(other > score for other in scores) for score in scores]
    return better, worse


def ranks(scores: PerSeat) -> list[Any]:
    """Rank per seat, 1 is best; tied seats share the better rank."""
    better, _ = better_worse(scores)
    return [1 + b for b in better]


def outcomes(scores: PerSeat) -> list[Any]:
    """Zero-sum outcome per seat: (seats ranked worse - seats ranked better) / (n - 1)."""
    better, worse = better_worse(scores)
    d = len(scores) - 1
    return [(w - b) / d for b, w in zip(better, worse)]


def win_points(ranks: Sequence[int]) -> list[float]:
    """Each seat's share of one game's point: the rank-1 seats split it.

    >>> win_points([1, 3, 1, 2])
    [0.5, 0.0, 0.5, 0.0]
    """
    best = min(ranks)
    winners = sum(1 for r in ranks if r == best)
    return [1.0 / winners if r == best else 0.0 for r in ranks]


def markers_rewards(before: PerSeat, after: PerSeat) -> list[Any]:
    """The ``markers`` reward of a round: minus the change of each seat's score count
    from ``before`` to ``after`` the round, centred so the seats' rewards sum to zero."""
    deltas = [a - b for b, a in zip(before, after)]
    mean = sum(deltas) / len(deltas)
    return [mean - d for d in deltas]
