"""The flat action space shared by every phase: ``Discrete(10)``.

====== ============== ==================================================
action name           meaning
====== ============== ==================================================
0-2    ``LEAVE_k``    look phase: leave slot k unseen, look at the other two
3      ``KEEP``       swap phase: keep the victim where it is
4-6    ``SWAP_k``     swap phase: exchange the victim with seen slot k
7-9    ``ACCUSE_k``   accuse phase: put a marker under suspect slot k
====== ============== ==================================================

Legality lives only in the action mask; the helpers below just translate.

>>> encode(Phase.ACCUSE, 2)
9
>>> decode(5)
(<Phase.SWAP: 1>, 1)
>>> action_name(3)
'keep'
"""

from __future__ import annotations

import functools
from enum import IntEnum

NUM_ACTIONS = 10
NUM_SLOTS = 3


class Phase(IntEnum):
    """The decision the player to act faces (``OVER`` once the game has ended)."""

    LOOK = 0
    SWAP = 1
    ACCUSE = 2
    OVER = 3


LEAVE_0, LEAVE_1, LEAVE_2 = 0, 1, 2
KEEP = 3
SWAP_0, SWAP_1, SWAP_2 = 4, 5, 6
ACCUSE_0, ACCUSE_1, ACCUSE_2 = 7, 8, 9

_LEAVE_BASE, _SWAP_BASE, _ACCUSE_BASE = LEAVE_0, SWAP_0, ACCUSE_0


def leave(slot: int) -> int:
    """Action that leaves suspect ``slot`` unseen (``leave(1) == 1``)."""
    return _LEAVE_BASE + _check_slot(slot)


def swap(slot: int) -> int:
    """Action that exchanges the victim with seen suspect ``slot`` (``swap(0) == 4``)."""
    return _SWAP_BASE + _check_slot(slot)


def accuse(slot: int) -> int:
    """Action that accuses suspect ``slot`` (``accuse(2) == 9``)."""
    return _ACCUSE_BASE + _check_slot(slot)


def encode(phase: Phase, slot: int | None = None) -> int:
    """Action for ``phase`` and ``slot``; the swap phase's ``slot=None`` means keep.

    >>> encode(Phase.LOOK, 0), encode(Phase.SWAP, None), encode(Phase.SWAP, 2)
    (0, 3, 6)
    """
    if phase is Phase.LOOK and slot is not None:
        return leave(slot)
    if phase is Phase.SWAP:
        return KEEP if slot is None else swap(slot)
    if phase is Phase.ACCUSE and slot is not None:
        return accuse(slot)
    raise ValueError(f"no action for phase {phase!r} with slot {slot!r}")


def decode(action: int) -> tuple[Phase, int | None]:
    """``(phase, slot)`` of an action; keep decodes to ``(Phase.SWAP, None)``.

    >>> decode(0), decode(3), decode(7)
    ((<Phase.LOOK: 0>, 0), (<Phase.SWAP: 1>, None), (<Phase.ACCUSE: 2>, 0))
    """
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"action must be in 0..{NUM_ACTIONS - 1}, got {action!r}")
    if a < KEEP:
        return Phase.LOOK, a - _LEAVE_BASE
    if a == KEEP:
        return Phase.SWAP, None
    if a < _ACCUSE_BASE:
        return Phase.SWAP, a - _SWAP_BASE
    return Phase.ACCUSE, a - _ACCUSE_BASE


def action_name(action: int) -> str:
    """Readable name: ``leave slot 0 unseen``, ``keep``, ``swap victim with slot 1``..."""
    phase, slot = decode(action)
    if phase is Phase.LOOK:
        return f"leave slot {slot} unseen"
    if phase is Phase.SWAP:
        return "keep" if slot is None else f"swap victim with slot {slot}"
    return f"accuse slot {slot}"


@functools.cache
def legal_actions(phase: Phase, unseen_slot: int | None) -> tuple[int, ...]:
    """The sorted legal actions in ``phase``: any slot to leave unseen, keep or swap the
    victim with a seen slot (not the ``unseen_slot``), any slot to accuse; none once
    the game is over.

    >>> legal_actions(Phase.SWAP, 1)
    (3, 4, 6)
    """
    if phase is Phase.LOOK:
        return LEAVE_0, LEAVE_1, LEAVE_2
    if phase is Phase.SWAP:
        return (KEEP, *(SWAP_0 + s for s in range(NUM_SLOTS) if s != unseen_slot))
    if phase is Phase.ACCUSE:
        return ACCUSE_0, ACCUSE_1, ACCUSE_2
    return ()


def _check_slot(slot: int) -> int:
    if not 0 <= slot < NUM_SLOTS:
        raise ValueError(f"slot must be 0, 1 or 2, got {slot!r}")
    return slot
