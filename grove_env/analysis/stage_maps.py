"""A round under fixed branch probabilities, as maps of its payoff table, for many states.

The whole game values each public state's round with the same round tree and a payoff
table of its own (``float64[3, 3**n, n]``: culprit slot, accusations, seat). Where a
profile answers the same at many states (a policy that reads the action mask alone, as
``random`` does), the tree is walked once and each state then costs a few small products:

- **On-policy values** are linear in the table: the chance of each (culprit,
  accusations) under the profile, times its payoff.
- **A seat's best-response value** is a max of linear maps. At the seat's last decision
  of the round, branch ``b`` of information set ``I`` is worth the sum over (culprit,
  accusations) of a weight times the payoff, the weight being chance times the other
  seats' reach of the leaves below ``(I, b)``; the seat takes the best branch per set. A
  seat's decisions in a round are consecutive (the first player's look, swap and
  accusation; one accusation for the others), so no other seat's reach comes between
  them, and with perfect recall an earlier decision's branch is worth the sum of the sets
  it leads to. The value is the sum over the seat's first sets of their best branch.

Each set's weights are its reach (``mass``) times a distribution over (branch, culprit,
accusations); sets whose distributions agree (to 2**-40) share one row, so a state costs
one product with the distinct rows (classic 3p, random: 90, 16 and 30 rows for the
three seats' 68,040, 7,560 and 22,680 sets). Sums are taken in another order than
:func:`~grove_env.analysis.best_response.stage_values`, which walks the whole tree per
state: the two agree to about 1e-14, and a test holds them together.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .best_response import node_policies, others_reach
from .round_tree import RoundTree

GRID = 2.0**40
"""Sets whose weight distributions agree on this grid share a row of :class:`SeatMap`."""

CHUNK = 1 << 22
"""States x rows valued at once (a few tens of MB)."""

ROWS_AT_ONCE = 4096
"""Sets hashed at once (a few MB of temporaries, where classic 3p has 68,040 sets)."""

SHARED = 1e-9
"""How far a set's distribution may lie from its row's (a guard on the grid's hash)."""


@dataclass(frozen=True)
class SeatMap:
    """One seat's best-response value as a function of its payoffs (module docstring)."""

    rows: np.ndarray
    """``float64[R, 3, K]``: distinct weight distributions over (branch, culprit x accusations)."""
    pair_row: np.ndarray
    """``int64[P]``: the row of each (what a set follows, row) pair of the sets at the seat's
    last decision; a set follows the ``3 * set + branch`` of the seat's decision before,
    or nothing where there is none. Sorted by what they follow."""
    pair_mass: np.ndarray
    """``float64[P]``: chance x the other seats' reach of the sets of each pair."""
    pair_starts: np.ndarray
    """Where the pairs that follow each ``3 * set + branch`` start."""
    levels: list[tuple[np.ndarray, np.ndarray]]
    """Per decision of the seat before that, last first: the order that sorts the sets of
    the decision after it by the ``3 * set + branch`` they follow, and where each run of
    equal ones starts."""
    earlier: bool
    """Whether the seat decides before its last decision (the first player)."""

    def best_response(self, payoffs: np.ndarray) -> np.ndarray:
        """``float64[S]``: the best-response value for ``payoffs[S, K]`` (the seat's own)."""
        s = len(payoffs)
        q = (payoffs @ self.rows.reshape(-1, payoffs.shape[1]).T).reshape(s, -1, 3)
        weighted = q.max(axis=2)[:, self.pair_row] * self.pair_mass
        value = np.add.reduceat(weighted, self.pair_starts, axis=1)
        for order, starts in self.levels:
            value = np.add.reduceat(value.reshape(s, -1, 3).max(axis=2)[:, order], starts, axis=1)
        if self.earlier:
            value = value.reshape(s, -1, 3).max(axis=2)
        return value.sum(axis=1)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class StageMap:
    """A round tree's on-policy and best-response values under one profile."""

    outcomes: np.ndarray
    """``float64[K]``: the profile's chance of each (culprit, accusations), ``K = 3 * 3**n``."""
    seats: list[SeatMap]

    def values(self, on: np.ndarray, best: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``float64[S, n]`` twice: each state's on-policy values with leaves valued by
        ``on[S, 3, 3**n, n]``, and its best-response values with them valued by ``best``
        (:func:`~grove_env.analysis.best_response.stage_values` of each state)."""
        s, n = len(on), len(self.seats)
        values = np.einsum("k,skn->sn", self.outcomes, on.reshape(s, -1, n))
        flat = best.reshape(s, -1, n)
        responses = np.zeros((s, n))
        for i, seat in enumerate(self.seats):
            step = max(1, CHUNK // (3 * len(seat.rows) + len(seat.pair_row)))
            for lo in range(0, s, step):
                responses[lo : lo + step, i] = seat.best_response(flat[lo : lo + step, :, i])
        return values, responses


def stage_map(tree: RoundTree, probs: list[np.ndarray]) -> StageMap:
    """The :class:`StageMap` of ``tree`` where every seat follows ``probs`` (per depth,
    ``float64[infosets, 3]``, as :func:`~grove_env.analysis.policies.branch_probabilities`
    gives them)."""
    n = tree.num_players
    nodes = node_policies(tree, probs)
    reach = tree.chance[:, None]
    for node in nodes:
        reach = (reach[:, :, None] * node).reshape(len(tree.deals), -1)
    outcome = _outcome_index(tree)
    outcomes = np.bincount(outcome.ravel(), weights=reach.ravel(), minlength=3 * 3**n)
    seats = [_seat_map(tree, probs, nodes, seat, outcome) for seat in range(n)]
    return StageMap(outcomes, seats)


def _outcome_index(tree: RoundTree) -> np.ndarray:
    """``int64[deals, leaves]``: each leaf's ``culprit * 3**n + accusations``."""
    k = 3**tree.num_players
    culprit = tree.culprit.astype(np.int64)
    return (culprit[:, :, None] * k + np.arange(k)[None, None, :]).reshape(len(tree.deals), -1)


def _seat_map(
    tree: RoundTree,
    probs: list[np.ndarray],
    nodes: list[np.ndarray],
    seat: int,
    outcome: np.ndarray,
) -> SeatMap:
    d = tree.num_decisions
    own = [t for t in range(d) if tree.depths[t].seat == seat]
    if own != list(range(own[0], own[-1] + 1)):
        raise ValueError(f"seat {seat}'s decisions in a round are not consecutive: {own}")
    reach = others_reach(tree, probs, seat, nodes)[-1]
    last = tree.depths[-1]
    below = nodes[-1] if last.seat != seat else np.ones((1, 1, 3))
    leaf = (reach[:, :, None] * below).reshape(len(tree.deals), -1)
    t = own[-1]
    history = np.arange(3**d)
    node, branch = history // 3 ** (d - t), (history // 3 ** (d - t - 1)) % 3
    sets = len(probs[t])
    k = 3 * 3**tree.num_players
    where = (tree.depths[t].infoset[:, node].astype(np.int64) * 3 + branch) * k + outcome
    weights = np.bincount(where.ravel(), weights=leaf.ravel(), minlength=sets * 3 * k)
    shape: np.ndarray = weights.reshape(sets, 3 * k).astype(np.float64, copy=False)
    mass = shape.sum(axis=1) / 3
    shape /= np.where(mass > 0, mass, 1.0)[:, None]  # in place: classic 3p's is 130 MB
    row_of, first = _share_rows(shape)
    follows = [_follows(tree, t) for t in range(own[-1], own[0], -1)]
    key = (follows[0] if follows else np.zeros(sets, np.int64)) * len(first) + row_of
    pairs, pair_of = np.unique(key, return_inverse=True)
    pair_mass = np.bincount(pair_of.ravel(), weights=mass, minlength=len(pairs))
    levels = []
    for parent in follows[1:]:
        order = np.argsort(parent, kind="stable")
        levels.append((order, np.flatnonzero(np.diff(parent[order], prepend=-1))))
    return SeatMap(
        rows=shape[first].reshape(-1, 3, k),
        pair_row=pairs % len(first),
        pair_mass=pair_mass,
        pair_starts=np.flatnonzero(np.diff(pairs // len(first), prepend=-1)),
        levels=levels,
        earlier=bool(follows),
    )


def _follows(tree: RoundTree, t: int) -> np.ndarray:
    """``int64[sets]``: the ``3 * set + branch`` at depth ``t - 1`` that each depth-``t``
    set follows (one, by perfect recall: its representative's)."""
    rep = tree.depths[t].representative
    deal, history = rep // 3**t, rep % 3**t
    parent = tree.depths[t - 1].infoset[deal, history // 3].astype(np.int64) * 3 + history % 3
    if len(np.unique(parent)) != 3 * len(tree.depths[t - 1].observations):
        raise ValueError("a branch of the seat's earlier decision leads to no set")
    return parent  # type: ignore[no-any-return]


def _share_rows(shape: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The row of each set and the first set of each row: sets share a row where their
    distributions agree on :data:`GRID` (hashed by a random projection, then checked),
    :data:`ROWS_AT_ONCE` sets at a time."""
    mix = np.random.default_rng(0).integers(1, 2**62, size=shape.shape[1], dtype=np.int64)
    key = np.empty(len(shape), np.int64)
    for lo in range(0, len(shape), ROWS_AT_ONCE):
        grid = np.rint(shape[lo : lo + ROWS_AT_ONCE] * GRID).astype(np.int64)
        with np.errstate(over="ignore"):
            key[lo : lo + ROWS_AT_ONCE] = (grid * mix).sum(axis=1)  # wraps around: a hash
    _, first, row_of = np.unique(key, return_index=True, return_inverse=True)
    row_of = row_of.ravel()
    for lo in range(0, len(shape), ROWS_AT_ONCE):
        part = shape[lo : lo + ROWS_AT_ONCE]
        if np.abs(part - shape[first[row_of[lo : lo + ROWS_AT_ONCE]]]).max() > SHARED:
            return np.arange(len(shape)), np.arange(len(shape))
    return row_of, first
