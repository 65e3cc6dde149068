"""The rules of a round on a :class:`~grove_env.vector.state.VectorState`, batched.

Each function applies one step of the rules to the games selected by a boolean mask
``[B]`` and leaves the others as they were. They loop over seats, positions or slots
(at most 5), never over games; :mod:`grove_env.vector` strings them together. The
rules themselves are not written here again: the reveal and the resolution are table
look-ups derived from :mod:`grove_env.resolution` (the culprit of every suspect triple
is its :data:`~grove_env.resolution.CULPRIT_TABLE`, and what every seat gets from every
possible complete round is worked out once by its functions, :func:`resolution_table`),
and the scores, end check and ranks are those of :mod:`grove_env.rules` and
:mod:`grove_env.standings` applied to whole rows.
"""

from __future__ import annotations

import functools

import numpy as np

from grove_env.actions import KEEP, NUM_ACTIONS, SWAP_0, Phase, legal_actions
from grove_env.resolution import CULPRIT_TABLE, penalty_flows, stacks_of
from grove_env.rules import CulpritMarkers, RuleSet
from grove_env.vector.state import VectorState


def _legal_table() -> np.ndarray:
    legal = np.zeros((4 * 4, NUM_ACTIONS), dtype=bool)
    for phase in Phase:
        for unseen in range(-1, 3):
            actions = legal_actions(phase, unseen if unseen >= 0 else None)
            legal[4 * phase + unseen + 1, list(actions)] = True
    legal.flags.writeable = False
    return legal


# The phases as plain ints: NumPy reads an IntEnum member more slowly (~3 us a call).
LOOK, SWAP, ACCUSE = int(Phase.LOOK), int(Phase.SWAP), int(Phase.ACCUSE)

LEGAL = _legal_table()
"""bool[16, 10]: :func:`grove_env.actions.legal_actions` at row ``4 * phase + unseen + 1``
(``unseen`` -1 before the look)."""
LEGAL_FLAT = LEGAL.reshape(-1)


def look(st: VectorState, actions: np.ndarray, games: np.ndarray, victim_swap: bool) -> None:
    """The first player leaves slot ``actions`` unseen (its looks follow from that)."""
    np.copyto(st.unseen_slot, actions, where=games)
    np.copyto(st.phase, SWAP if victim_swap else ACCUSE, where=games)


def swap(st: VectorState, actions: np.ndarray, games: np.ndarray) -> None:
    """Keep the victim, or exchange it with seen slot ``actions - SWAP_0``."""
    np.copyto(st.phase, ACCUSE, where=games)
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
    st.tampered_slot[swapping] = slots


def accuse(st: VectorState, slots: np.ndarray, games: np.ndarray) -> np.ndarray:
    """The current player puts a marker on suspect ``slots``; returns the games whose
    round is now complete (all seats accused). In the others the next seat is to act,
    its automatic look following from this accusation."""
    n, b = st.coloured.shape
    every = np.arange(b)
    at = st.num_accusations * b  # this accusation's position, flat in accused[n, B]
    at += every
    accused = st.accusations.reshape(-1)
    accused[at] = np.where(games, slots, accused.take(at))
    at = st.current_player * b  # the accuser, flat in coloured[n, B]
    at += every
    coloured = st.coloured.reshape(-1)
    coloured[at] = coloured.take(at) - games
    st.num_accusations += games
    complete = games & (st.num_accusations == n)
    np.copyto(st.current_player, next_seat(n).take(st.current_player), where=games & ~complete)
    return complete


@functools.cache
def next_seat(num_players: int) -> np.ndarray:
    """int64[n]: the seat clockwise of each seat.

    >>> next_seat(4)
    array([1, 2, 3, 0])
    """
    return (np.arange(num_players) + 1) % num_players


@functools.cache
def culprit_table() -> np.ndarray:
    """int64[8 ** 3]: the culprit's slot for suspect tile indices ``(a, b, c)`` at
    ``64 a + 8 b + c``: :data:`grove_env.resolution.CULPRIT_TABLE` flat (0 where all
    are blank, which no deal holds).
    """
    return np.maximum(CULPRIT_TABLE, 0).astype(np.int64).reshape(-1)


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
                stacks = stacks_of(first, accused, n)
                for owner in stacks[culprit]:
                    culprit_markers[owner, key] += 1
                for _, receiver, count in penalty_flows(stacks, culprit):
                    penalty[receiver, key] += count
    return penalty, culprit_markers


def resolve_rounds(st: VectorState, games: np.ndarray, rules: RuleSet) -> np.ndarray:
    """Reveal and resolve the complete rounds of ``games``; returns the culprit slots.

    Markers under the culprit go back coloured (classic) or out of the game (revised);
    each innocent stack goes, as penalty markers, to the owner of its top marker.
    """
    n = len(st.coloured)
    culprit = culprit_slots(st.suspects)
    key = st.accusations[n - 1].copy()
    for k in range(n - 2, -1, -1):
        key *= 3
        key += st.accusations[k]
    key *= 3
    key += culprit
    key *= n
    key += st.first_player
    penalty, culprit_markers = resolution_table(n)
    np.copyto(key, penalty.shape[1] - 1, where=~games)
    back = st.coloured if rules.culprit_markers is CulpritMarkers.RETURN else st.removed
    for seat in range(n):
        st.penalty[seat] += penalty[seat].take(key)
        back[seat] += culprit_markers[seat].take(key)
    return culprit


def scores(st: VectorState, rules: RuleSet) -> np.ndarray:
    """int64[n, B]: each seat's score count (fewer is better), a new array."""
    score = rules.score(st.coloured, st.penalty)
    return score.copy() if score is st.penalty else score


def game_over(st: VectorState, rules: RuleSet) -> np.ndarray:
    """bool[B]: the rule set's end check on each game's marker counts."""
    return rules.ends_game(st.coloured, st.penalty).any(axis=0)
