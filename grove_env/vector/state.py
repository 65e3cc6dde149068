"""The state of B games as NumPy arrays, shared by the batched engine and its encoder.

Arrays are seat-major (``[n, B]``, ``[3, B]``) so that every per-seat or per-slot
column is one contiguous row: the engine loops over the at most 5 seats or 3 slots
and works on whole rows, never over games.

Tiles are stored as *tile indices* ``0..7`` into ``TILE_VALUES = (0, 2, 3, ..., 8)``,
so a tile index is directly its one-hot position in an observation block, and the
order of indices is the order of values (``0`` the blank/X, ``4`` the 5).

What a seat has seen is not stored: within a round it follows from the public record
by :func:`grove_env.resolution.unseen_by` (the encoder reads it from a table of that
rule).

>>> VALUE_TO_INDEX[[0, 2, 5, 8]], INDEX_TO_VALUE[[0, 1, 4, 7]]
(array([0, 1, 4, 7]), array([0, 2, 5, 8]))
>>> table = permutation_table(3)
>>> table.shape, len({tuple(column) for column in table.T})
((3, 6), 6)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields

import numpy as np

from grove_env.rules import TILE_VALUES

INDEX_TO_VALUE = np.array(TILE_VALUES, dtype=np.int64)
"""Tile value of each tile index."""
VALUE_TO_INDEX = np.full(max(TILE_VALUES) + 1, -1, dtype=np.int64)
"""Tile index of each tile value (``-1`` for values that are no tile)."""
VALUE_TO_INDEX[INDEX_TO_VALUE] = np.arange(len(TILE_VALUES))

OVER = 3
"""``Phase.OVER``: only in snapshots of finished games (live games never hold it)."""


@functools.cache
def permutation_table(size: int) -> np.ndarray:
    """int8[size, size!]: every permutation of ``range(size)``, one per column.

    A uniformly drawn column shuffles a deal; with repeated tiles (two X) every
    arrangement of the multiset is still equally likely. 9 tiles take 3.3 MB.
    """
    table = np.zeros((1, 0), dtype=np.int8)
    for m in range(1, size + 1):  # from the permutations of m - 1, insert m - 1 anywhere
        k = len(table)
        grown = np.empty((k * m, m), dtype=np.int8)
        for at in range(m):
            block = grown[at * k : (at + 1) * k]
            block[:, :at] = table[:, :at]
            block[:, at] = m - 1
            block[:, at + 1 :] = table[:, at:]
        table = grown
    return np.ascontiguousarray(table.T)


@dataclass
class VectorState:
    """Arrays (int64) for B games at one table size ``n``; games are the last axis.

    Attributes:
        dealt: ``[n, B]`` tile index dealt to each seat this round.
        suspects: ``[3, B]`` tile index now in each suspect slot.
        victim: ``[B]`` tile index of the victim now.
        spare: ``[B]`` tile index of the face-up spare (``-1`` without one).
        phase: ``[B]`` :class:`~grove_env.actions.Phase` of the player to act.
        current_player: ``[B]`` seat to act.
        first_player: ``[B]`` first player of this round.
        unseen_slot: ``[B]`` unseen slot (``-1`` before the look).
        tampered_slot: ``[B]`` swapped slot (``-1`` unless swapped); the first player knows
            the victim exactly when it is ``>= 0``.
        accusations: ``[n, B]`` slot accused at position ``k`` of the round (by seat
            ``(first_player + k) % n``), ``-1`` for positions still to play.
        num_accusations: ``[B]`` accusations made this round.
        coloured: ``[n, B]`` coloured markers held.
        penalty: ``[n, B]`` penalty markers held.
        removed: ``[n, B]`` markers taken out of the game (revised culprit rule).
        round: ``[B]`` round number, 1 for the first round.
    """

    dealt: np.ndarray
    suspects: np.ndarray
    victim: np.ndarray
    spare: np.ndarray
    phase: np.ndarray
    current_player: np.ndarray
    first_player: np.ndarray
    unseen_slot: np.ndarray
    tampered_slot: np.ndarray
    accusations: np.ndarray
    num_accusations: np.ndarray
    coloured: np.ndarray
    penalty: np.ndarray
    removed: np.ndarray
    round: np.ndarray

    @classmethod
    def zeros(cls, num_games: int, num_players: int) -> VectorState:
        """Arrays for ``num_games`` games (contents to be set by a reset)."""
        b, n = num_games, num_players
        per_seat = {"dealt", "accusations", "coloured", "penalty", "removed"}
        shapes = {f.name: (n, b) if f.name in per_seat else (b,) for f in fields(cls)}
        shapes["suspects"] = (3, b)
        return cls(**{name: np.zeros(shape, np.int64) for name, shape in shapes.items()})

    def take(self, games: np.ndarray) -> VectorState:
        """A copy of the chosen games (e.g. finished games, before they are reset)."""
        return VectorState(**{f.name: getattr(self, f.name)[..., games] for f in fields(self)})

    @property
    def num_games(self) -> int:
        return len(self.phase)
