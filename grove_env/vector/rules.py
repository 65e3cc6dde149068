"""The rules of a round on a :class:`~grove_env.vector.state.VectorState`, batched.

Each function applies one step of RULES.md to the games selected by a boolean mask
``[B]`` and leaves the others as they were. They loop over seats, positions or slots
(at most 5), never over games; :mod:`grove_env.vector` strings them together. The
reveal and the resolution are table look-ups: the culprit of every suspect triple
comes from :func:`grove_env.core.culprit_slot` itself, and what every seat gets from
every possible complete round is worked out once, by the rules applied one round at
a time (:func:`resolution_table`).
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from grove_env.actions import KEEP, SWAP_0, Phase
from grove_env.core import culprit_slot
from grove_env.rules import CulpritMarkers, RuleSet, Scoring
from grove_env.vector.state import INDEX_TO_VALUE, VectorState


def look(st: VectorState, actions: np.ndarray, games: np.ndarray, victim_swap: bool) -> None:
    """The first player leaves slot ``actions`` unseen (its looks follow from that)."""
    np.copyto(st.unseen, actions, where=games)
    np.copyto(st.phase, Phase.SWAP if victim_swap else Phase.ACCUSE, where=games)


def swap(st: VectorState, actions: np.ndarray, games: np.ndarray) -> None:
    """Keep the victim, or exchange it with seen slot ``actions - SWAP_0``."""
    np.copyto(st.phase, Phase.ACCUSE, where=games)
    swapping = np.flatnonzero(games & (actions != KEEP))
    if not swapping.size:
        return
    slots = actions[swapping] - SWAP_0
    at = slots * len(games)
    at += swapping
    suspects = st.suspects.reshape(-1)
    suspect = suspects[at]
    suspects[at] = st.victim[swapping]
    st.victim[swapping] = suspect
    st.tampered[swapping] = slots


def accuse(st: VectorState, slots: np.ndarray, games: np.ndarray) -> np.ndarray:
    """The current player puts a marker on suspect ``slots``; returns the games whose
    round is now complete (all seats accused). In the others the next seat is to act,
    its automatic look following from this accusation."""
    n, b = st.coloured.shape
    every = np.arange(b)
    at = st.num_accused * b  # this accusation's position, flat in accused[n, B]
    at += every
    accused = st.accused.reshape(-1)
    accused[at] = np.where(games, slots, accused[at])
    at = st.current * b  # the accuser, flat in coloured[n, B]
    at += every
    st.coloured.reshape(-1)[at] -= games
    st.num_accused += games
    complete = games & (st.num_accused == n)
    nxt = st.current + 1
    nxt[nxt == n] = 0
    np.copyto(st.current, nxt, where=games & ~complete)
    return complete


@functools.cache
def culprit_table() -> np.ndarray:
    """int64[8 ** 3]: the culprit's slot for suspect tile indices ``(a, b, c)`` at
    ``64 a + 8 b + c``, from :func:`grove_env.core.culprit_slot` (0 where all are blank).
    """
    table = np.zeros(8**3, dtype=np.int64)
    for code, triple in enumerate(itertools.product(INDEX_TO_VALUE.tolist(), repeat=3)):
        if any(triple):
            table[code] = culprit_slot(triple)
    return table


def culprit_slots(suspects: np.ndarray) -> np.ndarray:
    """int64[B]: the culprit's slot for suspects ``[3, B]`` of tile indices.

    >>> culprit_slots(np.array([[2, 2, 0], [4, 5, 0], [7, 7, 1]]))  # 3,5,8 3,6,8 0,0,2
    array([0, 2, 2])
    """
    code = suspects[0] * 64
    code += suspects[1] * 8
    code += suspects[2]
    return culprit_table().take(code)


@functools.cache
def resolution_table(num_players: int) -> tuple[np.ndarray, np.ndarray]:
    """What each seat gets from every possible complete round, as two int8[n, K + 1]:
    the penalty markers it receives, and its markers found under the culprit.

    Round key ``(accusations * 3 + culprit) * n + first``, where ``accusations`` is
    the accused slots in base 3 (position ``k`` of the round is digit ``k``, played by
    seat ``(first + k) % n``); the last column ``K`` is a round that gives nothing.
    """
    n = num_players
    keys = 3**n * 3 * n
    penalty = np.zeros((n, keys + 1), dtype=np.int8)
    culprit_markers = np.zeros((n, keys + 1), dtype=np.int8)
    for code in range(3**n):
        accused = [code // 3**k % 3 for k in range(n)]
        for culprit in range(3):
            for first in range(n):
                key = (code * 3 + culprit) * n + first
                for slot in range(3):
                    stack = [(first + k) % n for k in range(n) if accused[k] == slot]
                    if slot == culprit:
                        for owner in stack:
                            culprit_markers[owner, key] += 1
                    elif stack:  # the whole stack to the owner of its top marker
                        penalty[stack[-1], key] += len(stack)
    return penalty, culprit_markers


def resolve(st: VectorState, games: np.ndarray, rules: RuleSet) -> np.ndarray:
    """Reveal and resolve the complete rounds of ``games``; returns the culprit slots.

    Markers under the culprit go back coloured (classic) or out of the game (revised);
    each innocent stack goes, as penalty markers, to the owner of its top marker.
    """
    n = len(st.coloured)
    culprit = culprit_slots(st.suspects)
    key = st.accused[n - 1].copy()
    for k in range(n - 2, -1, -1):
        key *= 3
        key += st.accused[k]
    key *= 3
    key += culprit
    key *= n
    key += st.first
    penalty, culprit_markers = resolution_table(n)
    np.copyto(key, penalty.shape[1] - 1, where=~games)
    back = st.coloured if rules.culprit_markers is CulpritMarkers.RETURN else st.removed
    for seat in range(n):
        st.penalty[seat] += penalty[seat].take(key)
        back[seat] += culprit_markers[seat].take(key)
    return culprit


def scores(st: VectorState, rules: RuleSet) -> np.ndarray:
    """int64[n, B]: each seat's score count (fewer is better)."""
    if rules.scoring is Scoring.ALL_MARKERS:
        return st.coloured + st.penalty
    return st.penalty.copy()


def game_over(st: VectorState, rules: RuleSet) -> np.ndarray:
    """bool[B]: the end check of RULES.md on each game's marker counts."""
    over = (st.coloured == 0).any(axis=0)
    if rules.end_markers_held is not None:
        over |= (st.coloured + st.penalty >= rules.end_markers_held).any(axis=0)
    if rules.end_penalty_held is not None:
        over |= (st.penalty >= rules.end_penalty_held).any(axis=0)
    return over


def better_worse(score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """int64[n, B] twice: per seat, how many seats have a strictly better (lower) and a
    strictly worse (higher) score."""
    better = np.zeros_like(score)
    worse = np.zeros_like(score)
    for other in score:
        better += other < score
        worse += other > score
    return better, worse
