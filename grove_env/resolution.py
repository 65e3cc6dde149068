"""The rules of a round's reveal and resolution, each written once.

The culprit rule, who saw which suspect, and where the markers of each stack go are
stated here as plain functions on small Python values. Every other form of them is
derived from these: :data:`CULPRIT_TABLE` enumerates :func:`culprit_slot` over every
triple of tile indices, the batched engine builds its resolution table by calling
:func:`penalty_flows` on every possible round, and the agents and training features
read the same table or functions. See ``docs/rules.md`` for the rules in words.

>>> stacks = stacks_of(first_player=1, accused=(2, 2, 0), num_players=3)
>>> stacks
[[0], [], [1, 2]]
>>> penalty_flows(stacks, culprit=0)
[(2, 2, 2)]
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from grove_env.rules import BLANK, TILE_VALUES

SLOTS = (0, 1, 2)
"""The three suspect slots."""


def culprit_slot(suspects: Sequence[int]) -> int:
    """Slot of the culprit among three suspect tiles.

    With a 5 among the suspects the lowest-numbered suspect is guilty, otherwise the
    highest-numbered; a blank/X (``0``) never is.

    >>> culprit_slot([3, 5, 8]), culprit_slot([3, 6, 8]), culprit_slot([0, 0, 2])
    (0, 2, 2)
    """
    numbered = [(t, s) for s, t in enumerate(suspects) if t != BLANK]
    if not numbered:
        raise ValueError(f"suspects {list(suspects)} hold no numbered tile")
    if any(t == 5 for t, _ in numbered):
        return min(numbered)[1]
    return max(numbered)[1]


def _culprit_table() -> np.ndarray:
    table = np.full((len(TILE_VALUES),) * 3, -1, dtype=np.int8)
    for triple in itertools.product(range(len(TILE_VALUES)), repeat=3):
        values = [TILE_VALUES[i] for i in triple]
        if any(t != BLANK for t in values):
            table[triple] = culprit_slot(values)
    table.flags.writeable = False
    return table


CULPRIT_TABLE = _culprit_table()
"""int8[8, 8, 8]: :func:`culprit_slot` of every triple of tile indices (positions in
``TILE_VALUES``), ``-1`` where all three are blank; read only.

>>> int(CULPRIT_TABLE[2, 4, 7]), int(CULPRIT_TABLE[2, 5, 7]), int(CULPRIT_TABLE[0, 0, 0])
(0, 2, -1)
"""


def stacks_of(first_player: int, accused: Sequence[int], num_players: int) -> list[list[int]]:
    """Seats per suspect slot, bottom to top, when the seat at position ``k`` of the
    round (seat ``(first_player + k) % num_players``) accused slot ``accused[k]``."""
    stacks: list[list[int]] = [[], [], []]
    for k, slot in enumerate(accused):
        stacks[slot].append((first_player + k) % num_players)
    return stacks


def penalty_flows(stacks: Sequence[Sequence[int]], culprit: int) -> list[tuple[int, int, int]]:
    """``(slot, receiver, count)`` per innocent stack: the whole stack goes, as penalty
    markers, to the owner of its top marker. The markers under the culprit go back to
    their owners (or out of the game): see :class:`~grove_env.rules.CulpritMarkers`."""
    return [
        (slot, stack[-1], len(stack))
        for slot, stack in enumerate(stacks)
        if slot != culprit and stack
    ]


def unseen_by(
    position: int, unseen_slot: int, tampered_slot: int | None, previous_slot: int | None
) -> tuple[int, ...]:
    """Slots the seat at ``position`` of the round has not seen, once it has looked.

    The first player (position 0) saw every slot but the unseen one, and after a swap
    knows the tampered slot only as the new victim; each later seat saw every slot but
    ``previous_slot``, the one accused just before it (suspects change only in the
    swap, before anyone else looks).

    >>> unseen_by(0, 1, None, None), unseen_by(0, 1, 2, None), unseen_by(2, 1, None, 2)
    ((1,), (1, 2), (2,))
    """
    if position == 0:
        return (unseen_slot,) if tampered_slot is None else (unseen_slot, tampered_slot)
    assert previous_slot is not None, "a later seat looks after an accusation"
    return (previous_slot,)
