"""The state of B games as NumPy arrays, shared by the batched engine and its encoder.

Tiles are stored as *tile indices* ``0..7`` into ``TILE_VALUES = (0, 2, 3, ..., 8)``,
so a tile index is directly its one-hot position in an observation block, and the
order of indices is the order of values (``0`` the blank/X, ``4`` the 5).

What a seat has seen is not stored: within a round it follows from the public record.
The first player saw every slot but the unseen one, and forgot the slot it swapped;
the seat at position ``p >= 1`` of the round saw every slot but the one accused at
position ``p - 1``, once that accusation was made; suspects change only in the swap,
before anyone else looks.

>>> VALUE_TO_INDEX[[0, 2, 5, 8]], INDEX_TO_VALUE[[0, 1, 4, 7]]
(array([0, 1, 4, 7]), array([0, 2, 5, 8]))
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from grove_env.rules import TILE_VALUES

INDEX_TO_VALUE = np.array(TILE_VALUES, dtype=np.int64)
"""Tile value of each tile index."""
VALUE_TO_INDEX = np.full(max(TILE_VALUES) + 1, -1, dtype=np.int64)
"""Tile index of each tile value (``-1`` for values that are no tile)."""
VALUE_TO_INDEX[INDEX_TO_VALUE] = np.arange(len(TILE_VALUES))

FIVE = int(VALUE_TO_INDEX[5])
"""Tile index of the 5, which turns the culprit rule around."""
OVER = 3
"""``Phase.OVER``: only in snapshots of finished games (live games never hold it)."""


@dataclass
class VectorState:
    """Arrays ``[B, ...]`` (int64) for B games at one table size ``n``.

    Attributes:
        dealt: ``[B, n]`` tile index dealt to each seat this round.
        suspects: ``[B, 3]`` tile index now in each suspect slot.
        victim: ``[B]`` tile index of the victim now.
        spare: ``[B]`` tile index of the face-up spare (``-1`` without one).
        phase: ``[B]`` :class:`~grove_env.actions.Phase` of the player to act.
        current: ``[B]`` seat to act.
        first: ``[B]`` first player of this round.
        unseen: ``[B]`` unseen slot (``-1`` before the look).
        tampered: ``[B]`` swapped slot (``-1`` unless swapped); the first player knows
            the victim exactly when it is ``>= 0``.
        accused: ``[B, n]`` slot accused at position ``k`` of the round (seat
            ``(first + k) % n``), ``-1`` for positions still to play.
        num_accused: ``[B]`` accusations made this round.
        coloured: ``[B, n]`` coloured markers held.
        penalty: ``[B, n]`` penalty markers held.
        removed: ``[B, n]`` markers taken out of the game (revised culprit rule).
        round: ``[B]`` round number, 1 for the first round.
    """

    dealt: np.ndarray
    suspects: np.ndarray
    victim: np.ndarray
    spare: np.ndarray
    phase: np.ndarray
    current: np.ndarray
    first: np.ndarray
    unseen: np.ndarray
    tampered: np.ndarray
    accused: np.ndarray
    num_accused: np.ndarray
    coloured: np.ndarray
    penalty: np.ndarray
    removed: np.ndarray
    round: np.ndarray

    @classmethod
    def zeros(cls, num_games: int, num_players: int) -> VectorState:
        """Arrays for ``num_games`` games (contents to be set by a reset)."""
        b, n = num_games, num_players
        one = {"victim", "spare", "phase", "current", "first", "unseen", "tampered"}
        one |= {"num_accused", "round"}
        shapes = {"suspects": (b, 3)}
        arrays = {
            f.name: np.zeros(b if f.name in one else shapes.get(f.name, (b, n)), np.int64)
            for f in fields(cls)
        }
        return cls(**arrays)

    def take(self, rows: np.ndarray) -> VectorState:
        """A copy of the games ``rows`` (e.g. finished games, before they are reset)."""
        return VectorState(**{f.name: getattr(self, f.name)[rows] for f in fields(self)})

    @property
    def num_games(self) -> int:
        return len(self.phase)
