"""How the robust heuristic expects the other seats to accuse: a mixture of styles.

The old heuristic (``heuristic``) assumes that the other seats accuse the likely
culprit, so a seat that accuses a sure innocent on purpose (a piler, a stack-avoider at
classic) makes it believe in the wrong culprit and walk onto the stack. This model
instead keeps one hypothesis per *style* of table (all other seats play one style, as
in the gauntlet) and weighs them by how well each explains the accusations already
made this round (:class:`MixtureTables`).

A modelled seat is described only by what the public record says about it: the slots
it did not see (:func:`grove_env.resolution.unseen_by`), the stacks before it and how
many seats accuse after it. Its private knowledge is summarised as an *informed choice*
given the true culprit ``x``: it points at ``x`` with probability :data:`SEES_CULPRIT`
when it saw ``x`` and :data:`MISSES_CULPRIT` when ``x`` is among its unseen slots, the
rest shared by the other slots. The styles (:data:`STYLES`) act on that choice:

* ``random``: uniform;
* ``greedy``: the informed choice;
* ``follower``: the previous accusation (the informed choice as the first accuser);
* ``contrarian``: the informed choice restricted to the shortest stacks;
* ``piler``: while later seats remain, a slot other than ``x``; the last seat greedy;
* ``informed``: the culprit with probability :data:`INFORMED`, seen or not (a seat
  whose private tiles tell it more than the slots it saw, as greedy seats often are);
* ``stack-avoider``: the slot with the lowest expected marker cost
  (:func:`grove_env.agents.styles.expected_marker_cost`), reading the informed choice
  as its culprit posterior.

Each style accuses uniformly at random with probability ``noise``. Everything here
depends only on the table (player count, rule flags) and the public accusations, so the
tables are built once per table and :mod:`grove_env.agents.robust` gathers their rows for
a whole batch of observations at once.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from grove_env.resolution import unseen_by

from .round_model import marker_changes

STYLES: tuple[str, ...] = (
    "random",
    "greedy",
    "follower",
    "contrarian",
    "piler",
    "stack-avoider",
    "informed",
)
"""The styles of table the mixture weighs, in the order of the tables' style axis."""

SEES_CULPRIT = 0.85
"""Informed choice: probability that a seat who saw the culprit accuses it."""
MISSES_CULPRIT = 0.55
"""Informed choice: probability that a seat who did not see the culprit accuses it."""
INFORMED = 0.9
"""``informed``: probability that a seat accuses the culprit, seen or not."""


def history_code(accused: tuple[int, ...]) -> int:
    """Index of an accusation history: all shorter histories first, then base 3.

    >>> history_code(()), history_code((2,)), history_code((0, 1))
    (0, 3, 5)
    """
    value = 0
    for slot in accused:
        value = value * 3 + slot
    return (3 ** len(accused) - 1) // 2 + value


def histories(num_players: int) -> list[tuple[int, ...]]:
    """Every accusation history a seat can face before it accuses, in code order."""
    return [h for k in range(num_players) for h in itertools.product(range(3), repeat=k)]


@lru_cache(maxsize=1 << 16)
def seat_policy(
    style: str,
    hidden: tuple[int, ...],
    heights: tuple[int, int, int],
    prev: int | None,
    later: int,
    returned: bool,
    penalty_scoring: bool,
    noise: float,
) -> np.ndarray:
    """``float[3 culprit, 3 slot]``: how a seat of ``style`` accuses, given the culprit."""
    choice = np.empty((3, 3))
    for x in range(3):
        sure = MISSES_CULPRIT if x in hidden else SEES_CULPRIT
        choice[x] = (1.0 - sure) / 2.0
        choice[x, x] = sure
    if style == "random":
        return np.full((3, 3), 1.0 / 3.0)
    if style == "greedy" or (style == "follower" and prev is None):
        pol = choice
    elif style == "informed":
        pol = np.full((3, 3), (1.0 - INFORMED) / 2.0) + np.eye(3) * (1.5 * INFORMED - 0.5)
    elif style == "follower":
        pol = np.zeros((3, 3))
        pol[:, prev] = 1.0
    elif style == "contrarian":
        low = np.array(heights) == min(heights)
        pol = choice * low
        pol /= pol.sum(axis=1, keepdims=True)
    elif style == "piler":
        pol = (1.0 - np.eye(3)) / 2.0 if later > 0 else choice
    elif style == "stack-avoider":
        uncovered = (2.0 / 3.0) ** later
        cost = (1.0 - choice) * uncovered * (np.array(heights) + 1.0)
        if not penalty_scoring:
            cost -= 1.0 - (choice if returned else 0.0)
        cost = np.round(cost - 1e-6 * choice, 9)  # ties to the likelier culprit
        pol = (cost == cost.min(axis=1, keepdims=True)).astype(float)
        pol /= pol.sum(axis=1, keepdims=True)
    else:
        raise ValueError(f"unknown style {style!r}; styles: {list(STYLES)}")
    return (1.0 - noise) * pol + noise / 3.0


@dataclass(frozen=True, eq=False)
class MixtureTables:
    """Everything the robust heuristic needs that depends only on the public record.

    Attributes (``H`` histories in :func:`history_code` order, ``T`` styles):
        later: ``float[H, T, 3 culprit, 3 own slot, S]``, the probability of every
            sequence of the later seats' accusations after the observer's, padded with
            zeros from ``3 ** later`` to ``S = 3 ** (n - 1)``.
        likelihood: ``float[H, 12, T, 3 culprit]``, how likely the history was under
            each style and culprit; axis 1 is ``unseen * 4 + tampered + 1``
            (``tampered = -1``: no swap).
        ending: ``int[H, 3 own slot, 3 culprit, S]``, for every way the round ends,
            the row of ``coloured`` and ``penalty`` that holds its marker changes.
        coloured, penalty: ``float[U, n]``, the distinct changes of coloured and
            penalty markers per relative seat that a round of this table can make
            (few: 81 at four players), so the value function scores each once.
    """

    later: np.ndarray
    likelihood: np.ndarray
    ending: np.ndarray
    coloured: np.ndarray
    penalty: np.ndarray


def _later_sequences(
    n: int, k: int, heights: tuple[int, int, int], own: int, flags: tuple[bool, bool, float]
) -> np.ndarray:
    """``float[T, 3 culprit, 81]`` for the observer at position ``k`` accusing ``own``."""
    later = n - 1 - k
    out = np.zeros((len(STYLES), 3, 3 ** (n - 1)))
    for code, seq in enumerate(itertools.product(range(3), repeat=later)):
        p = np.ones((len(STYLES), 3))
        h, prev = list(heights), own
        h[own] += 1
        for j, slot in enumerate(seq):
            for t, style in enumerate(STYLES):
                pol = seat_policy(style, (prev,), (h[0], h[1], h[2]), prev, later - 1 - j, *flags)
                p[t] *= pol[:, slot]
            h[slot] += 1
            prev = slot
        out[:, :, code] = p
    return out


def _likelihood(
    accused: tuple[int, ...],
    n: int,
    unseen: int,
    tampered: int | None,
    flags: tuple[bool, bool, float],
) -> np.ndarray:
    """``float[T, 3 culprit]``: probability of the accusations ``accused`` per style."""
    p = np.ones((len(STYLES), 3))
    h = [0, 0, 0]
    for i, slot in enumerate(accused):
        prev = accused[i - 1] if i else None
        hidden = unseen_by(i, unseen, tampered, prev)
        for t, style in enumerate(STYLES):
            pol = seat_policy(style, hidden, (h[0], h[1], h[2]), prev, n - 1 - i, *flags)
            p[t] *= pol[:, slot]
        h[slot] += 1
    return p


@lru_cache(maxsize=32)
def mixture_tables(n: int, returned: bool, penalty_scoring: bool, noise: float) -> MixtureTables:
    """The :class:`MixtureTables` of one table kind (built once, then cached)."""
    flags = (returned, penalty_scoring, noise)
    hs = histories(n)
    sequences = 3 ** (n - 1)  # padded to the first accuser's number of later sequences
    later = np.zeros((len(hs), len(STYLES), 3, 3, sequences))
    likelihood = np.ones((len(hs), 12, len(STYLES), 3))
    changes = np.zeros((len(hs), 3, 3, sequences, 2, n))
    for code, accused in enumerate(hs):
        k = len(accused)
        heights = (accused.count(0), accused.count(1), accused.count(2))
        for own in range(3):
            later[code, :, :, own] = _later_sequences(n, k, heights, own, flags)
            for culprit in range(3):
                for s, seq in enumerate(itertools.product(range(3), repeat=n - 1 - k)):
                    changes[code, own, culprit, s] = marker_changes(
                        -k % n, (*accused, own, *seq), culprit, n, returned
                    )
        if k:
            for unseen in range(3):
                for tampered in (None, 0, 1, 2):
                    ut = unseen * 4 + (-1 if tampered is None else tampered) + 1
                    likelihood[code, ut] = _likelihood(accused, n, unseen, tampered, flags)
    distinct, ending = np.unique(changes.reshape(-1, 2 * n), axis=0, return_inverse=True)
    ending = ending.reshape(changes.shape[:4])
    coloured, penalty = distinct[:, :n].copy(), distinct[:, n:].copy()
    for a in (later, likelihood, ending, coloured, penalty):
        a.flags.writeable = False
    return MixtureTables(later, likelihood, ending, coloured, penalty)
