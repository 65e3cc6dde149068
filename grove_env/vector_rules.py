"""The rules of a round on a :class:`~grove_env.vector_state.VectorState`, batched.

Each function applies one step of RULES.md to the games selected by a boolean mask
``[B]`` and leaves the others as they were. They loop over seats, positions or slots
(at most 5), never over games; :mod:`grove_env.vector` strings them together.
"""

from __future__ import annotations

import numpy as np

from grove_env.actions import KEEP, SWAP_0, Phase
from grove_env.rules import CulpritMarkers, RuleSet, Scoring
from grove_env.vector_state import FIVE, VectorState


def look(st: VectorState, actions: np.ndarray, games: np.ndarray, victim_swap: bool) -> None:
    """The first player leaves slot ``actions`` unseen (its looks follow from that)."""
    np.copyto(st.unseen, actions, where=games)
    np.copyto(st.phase, Phase.SWAP if victim_swap else Phase.ACCUSE, where=games)


def swap(st: VectorState, actions: np.ndarray, games: np.ndarray) -> None:
    """Keep the victim, or exchange it with seen slot ``actions - SWAP_0``."""
    np.copyto(st.phase, Phase.ACCUSE, where=games)
    swapping = games & (actions != KEEP)
    if not swapping.any():
        return
    slots = actions - SWAP_0
    for slot in range(3):
        here = swapping & (slots == slot)
        suspect = st.suspects[slot].copy()
        np.copyto(st.suspects[slot], st.victim, where=here)
        np.copyto(st.victim, suspect, where=here)
    np.copyto(st.tampered, slots, where=swapping)


def accuse(st: VectorState, slots: np.ndarray, games: np.ndarray) -> np.ndarray:
    """The current player puts a marker on suspect ``slots``; returns the games whose
    round is now complete (all seats accused). In the others the next seat is to act,
    its automatic look following from this accusation."""
    n = len(st.coloured)
    for k in range(n):
        np.copyto(st.accused[k], slots, where=games & (st.num_accused == k))
    for seat in range(n):
        st.coloured[seat] -= games & (st.current == seat)
    st.num_accused += games
    complete = games & (st.num_accused == n)
    nxt = st.current + 1
    nxt[nxt == n] = 0
    np.copyto(st.current, nxt, where=games & ~complete)
    return complete


def culprit_slots(suspects: np.ndarray) -> np.ndarray:
    """int64[B]: the culprit's slot for suspects ``[3, B]`` of tile indices.

    With a 5 among them the lowest-numbered suspect, otherwise the highest-numbered;
    the blank/X (index 0) never. Numbered tiles are distinct, so no ties matter.

    >>> culprit_slots(np.array([[2, 2, 0], [4, 5, 0], [7, 7, 1]]))  # 3,5,8 3,6,8 0,0,2
    array([0, 2, 2])
    """
    low = np.where(suspects > 0, suspects, 99)
    lowest = (low[1] < low[0]).astype(np.int64)
    lowest[low[2] < np.minimum(low[0], low[1])] = 2
    highest = (suspects[1] > suspects[0]).astype(np.int64)
    highest[suspects[2] > np.maximum(suspects[0], suspects[1])] = 2
    five = (suspects == FIVE).any(axis=0)
    return np.where(five, lowest, highest)


def resolve(st: VectorState, games: np.ndarray, rules: RuleSet) -> np.ndarray:
    """Reveal and resolve the complete rounds of ``games``; returns the culprit slots.

    Markers under the culprit go back coloured (classic) or out of the game (revised);
    each innocent stack goes, as penalty markers, to the owner of its top marker.
    """
    n = len(st.coloured)
    culprit = culprit_slots(st.suspects)
    size = np.zeros((3, len(culprit)), dtype=np.int64)
    top = np.zeros((3, len(culprit)), dtype=np.int64)  # position of each stack's top
    for k in range(n):
        for slot in range(3):
            hit = st.accused[k] == slot
            size[slot] += hit
            top[slot][hit] = k
    for slot in range(3):
        size[slot][culprit == slot] = 0  # the culprit's stack is no penalty
    size *= games
    on_culprit = st.accused == culprit
    on_culprit &= games
    back = st.coloured if rules.culprit_markers is CulpritMarkers.RETURN else st.removed
    pos = st.first * -1  # position of seat 0 in the round: (0 - first) % n
    pos[pos < 0] += n
    flat = on_culprit.reshape(-1)
    at = np.arange(len(culprit))
    for seat in range(n):
        back[seat] += flat.take(pos * len(culprit) + at)
        for slot in range(3):
            st.penalty[seat] += np.where(top[slot] == pos, size[slot], 0)
        pos += 1
        pos[pos == n] = 0
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
