"""A model of the rest of one round, for the heuristic agent.

The heuristic looks one round ahead. For each of its possible accusations it needs the
distribution of how the round ends: which slot is the culprit and where the later seats
put their markers. That needs (1) how likely each complete suspect triple is, given its
own knowledge (:class:`~.table_belief.Knowledge`) and the accusations already made, and
(2) how the later seats accuse. The model of the other seats is :mod:`.seat_model`;
Bayes' rule over the kind of table (do the others play that model, or at random?) and
the suspect triple is :mod:`.table_belief`.

**Outcomes.** :func:`round_outcomes` returns, per own accusation, the probability of
every way the round can end (culprit and later accusations) and, in
:class:`Resolutions`, each seat's change of coloured and penalty markers, worked out by
the rules of :mod:`grove_env.resolution`, as arrays the value function scores at once.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from grove_env.resolution import penalty_flows, stacks_of

from .posterior import Triple, culprit_of
from .seat_model import MarkerCosts, Model, Sizes, add, model_policy, seat_tiles
from .table_belief import Knowledge, table_types


def later_accusations(
    view: Knowledge, triple: Triple, sizes: Sizes, prev: int, later: int, model: Model
) -> np.ndarray:
    """Probability of every sequence of the ``later`` seats' accusations, ``float[3**later]``.

    Entry ``sum(s_j * 3**(later - 1 - j))`` is the probability that the j-th later seat
    accuses ``s_j`` (the order of ``itertools.product(range(3), repeat=later)``).
    ``sizes`` are the stacks after the accusation on ``prev``; each later seat sees the
    two slots other than the one accused just before it. The later seats are relative
    seats ``n - later`` .. ``n - 1``; ``view`` is :meth:`Knowledge.table_view`.
    """
    if later == 0 or model.noise >= 1.0:
        return _uniform(later)
    if model.caution <= 0.0:
        sizes = (0, 0, 0)  # greedy seats ignore the stacks: share the cache entries
    return _later(view, triple, sizes, prev, later, model)


@lru_cache(maxsize=16)
def _uniform(later: int) -> np.ndarray:
    return np.full(3**later, 3.0**-later)


@lru_cache(maxsize=1 << 15)
def _later(
    view: Knowledge, triple: Triple, sizes: Sizes, prev: int, later: int, model: Model
) -> np.ndarray:
    n = view.num_players
    tiles = seat_tiles(n - later, n, view.mine)
    pol = model_policy(view.public, triple, (prev,), sizes, view.costs, model, tiles)
    if later == 1:
        return np.array(pol)
    if model.caution > 0.0:
        parts = [_later(view, triple, add(sizes, s), s, later - 1, model) for s in range(3)]
    else:
        parts = [_later(view, triple, sizes, s, later - 1, model) for s in range(3)]
    return np.concatenate([pol[s] * parts[s] for s in range(3)])


def marker_changes(
    first_player: int, accused: tuple[int, ...], culprit: int, n: int, returned: bool
) -> tuple[list[int], list[int]]:
    """Change of coloured and penalty markers per seat over a whole round in which the
    seat at position ``k`` (seat ``(first_player + k) % n``) accused ``accused[k]``.

    >>> marker_changes(0, (2, 2, 0), culprit=0, n=3, returned=True)
    ([-1, -1, 0], [0, 2, 0])
    """
    stacks = stacks_of(first_player, accused, n)
    coloured = [-1] * n
    if returned:
        for owner in stacks[culprit]:
            coloured[owner] += 1
    penalty = [0] * n
    for _, receiver, count in penalty_flows(stacks, culprit):
        penalty[receiver] += count
    return coloured, penalty


@dataclass(frozen=True, eq=False)
class Resolutions:
    """Marker changes for every way the round can end, per own accusation.

    Row ``r`` of axis 1 is ``culprit * 3**later + sequence`` (the later seats' sequence
    as in :func:`later_accusations`). ``coloured``, ``penalty`` and ``score`` are
    ``float[3, R, n]`` changes per relative seat; ``behind[..., j]`` is how much seat
    ``j + 1``'s score rose more than the observer's (positive: good for the observer).
    """

    coloured: np.ndarray
    penalty: np.ndarray
    score: np.ndarray
    behind: np.ndarray


@lru_cache(maxsize=1 << 12)
def round_endings(accused: tuple[int, ...], n: int, costs: MarkerCosts) -> Resolutions:
    """:class:`Resolutions` of a round whose earlier accusations were ``accused``."""
    k = len(accused)
    first = -k % n  # the observer (relative seat 0) accuses at position k
    later = n - 1 - k
    table = np.zeros((3, 3, 3**later, 2, n))
    for c in range(3):
        for culprit in range(3):
            for code, seq in enumerate(itertools.product(range(3), repeat=later)):
                table[c, culprit, code] = marker_changes(
                    first, (*accused, c, *seq), culprit, n, costs.returned
                )
    table = table.reshape(3, -1, 2, n)
    coloured, penalty = table[:, :, 0], table[:, :, 1]
    score = costs.scoring.score(coloured, penalty)
    return Resolutions(coloured, penalty, score, score[:, :, 1:] - score[:, :, :1])


@dataclass(frozen=True, eq=False)
class Outcomes:
    """Every way the round can end, per own accusation (axis 0 is the accused slot).

    ``prob[3, R]`` (each row sums to 1) weighs the rows of ``table``; ``q`` is the
    culprit posterior the outcomes were drawn from.
    """

    q: tuple[float, float, float]
    prob: np.ndarray
    table: Resolutions


@lru_cache(maxsize=1 << 12)
def round_outcomes(k: Knowledge, trust: float, model: Model) -> Outcomes:
    """The culprit posterior and, per own accusation 0, 1, 2, the round's outcomes.

    The observer is relative seat 0 and accuses at position ``len(k.accused)``, so
    the seat at position ``i`` is relative seat ``(i - len(k.accused)) % n``; ``trust``
    and ``model``: see :func:`~.table_belief.table_types`.
    """
    types = table_types(k, trust, model)
    accused, n, view = k.accused, k.num_players, k.table_view()
    later = n - 1 - len(accused)
    sizes = (accused.count(0), accused.count(1), accused.count(2))
    q = [0.0, 0.0, 0.0]
    prob = np.zeros((3, 3, 3**later))  # own accusation, culprit, later sequence
    for p_type, deals, type_model in types:
        for t, w in deals:
            culprit = culprit_of(t)
            w *= p_type
            q[culprit] += w
            for c in range(3):
                prob[c, culprit] += w * later_accusations(
                    view, t, add(sizes, c), c, later, type_model
                )
    return Outcomes(
        q=(q[0], q[1], q[2]),
        prob=prob.reshape(3, -1),
        table=round_endings(accused, n, k.costs),
    )
