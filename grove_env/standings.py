"""Scores, ranks, outcomes, win points and the per-round reward, each written once.

Each function takes the seats' score counts (fewer is better; see
:meth:`grove_env.rules.RuleSet.score`) with one entry per seat. An entry may be a plain
number (one game, as the core plays it) or a NumPy array (the same seat in many games,
as the batched engine holds them): the functions use only comparisons and arithmetic,
so one statement of each rule serves both. The per-seat functions (:func:`rank`,
:func:`outcome`, :func:`markers_reward`) given the whole ``[n, B]`` array as the seat's
entry answer for every seat of every game at once.

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


def better_than(scores: PerSeat, score: Any) -> Any:
    """How many seats have a strictly better (lower) score count than ``score``."""
    return sum(other < score for other in scores)


def worse_than(scores: PerSeat, score: Any) -> Any:
    """How many seats have a strictly worse (higher) score count than ``score``."""
    return sum(other > score for other in scores)


def rank(scores: PerSeat, score: Any) -> Any:
    """The rank of a seat with ``score``: 1 is best, tied seats share the better rank.

    Given the whole array ``[n, ...]`` as ``score``, the rank of every seat at once.
    """
    return 1 + better_than(scores, score)


def outcome(scores: PerSeat, score: Any) -> Any:
    """The zero-sum outcome of a seat with ``score``: (seats ranked worse - seats ranked
    better) / (n - 1). Given the whole array as ``score``, every seat's at once."""
    return (worse_than(scores, score) - better_than(scores, score)) / (len(scores) - 1)


def ranks(scores: PerSeat) -> list[Any]:
    """:func:`rank` of every seat."""
    return [rank(scores, score) for score in scores]


def outcomes(scores: PerSeat) -> list[Any]:
    """:func:`outcome` of every seat."""
    return [outcome(scores, score) for score in scores]


def win_point(ranks: PerSeat, seat_rank: Any) -> Any:
    """A seat's share of one game's point: ``1/k`` if it is among the ``k`` seats ranked
    first (rank 1, as :func:`rank` numbers them), else 0. Given the whole array ``[n, ...]``
    as ``seat_rank``, every seat's at once."""
    firsts = sum(r == 1 for r in ranks)
    return (seat_rank == 1) / firsts


def win_points(ranks: PerSeat) -> list[Any]:
    """:func:`win_point` of every seat: the rank-1 seats split the point.

    >>> win_points([1, 3, 1, 2])
    [0.5, 0.0, 0.5, 0.0]
    """
    return [win_point(ranks, r) for r in ranks]


def markers_reward(changes: PerSeat, change: Any) -> Any:
    """The ``markers`` reward of a seat whose score count changed by ``change`` in a
    round in which the seats' changes were ``changes``: minus its change, centred so
    the seats' rewards sum to zero. Given the whole array ``[n, ...]`` as ``change``,
    every seat's at once."""
    return sum(changes) / len(changes) - change


def markers_rewards(before: PerSeat, after: PerSeat) -> list[Any]:
    """:func:`markers_reward` of every seat, from the score counts ``before`` and
    ``after`` the round."""
    changes = [a - b for b, a in zip(before, after)]
    return [markers_reward(changes, change) for change in changes]
