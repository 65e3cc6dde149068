"""The full-state vector for centralised critics: ``(game) -> float32[STATE_SIZE]``.

======= ====== ===============================================================
index   size   content
======= ====== ===============================================================
0       125    seat 0's observation (the public table in absolute seats, and
               seat 0's private knowledge), see :mod:`grove_env.observation`
125     40     the tile dealt to each seat 0..4 this round, one-hot (8 each;
               zeros for absent seats)
165     24     the tiles now in suspect slots 0, 1, 2, one-hot (8 each)
189     8      the victim tile now, one-hot
======= ====== ===============================================================

What any other seat knows follows from these tiles and the public record, so the
vector is the whole state of the round.
"""

from __future__ import annotations

import numpy as np

from grove_env.core import Game
from grove_env.observation import OBS_HIGH, OBS_SIZE, TILE_INDEX, ObservationEncoder
from grove_env.rules import MAX_PLAYERS

OFF_STATE_DEALT = OBS_SIZE
OFF_STATE_SUSPECTS = OFF_STATE_DEALT + 8 * MAX_PLAYERS
OFF_STATE_VICTIM = OFF_STATE_SUSPECTS + 24
STATE_SIZE = OFF_STATE_VICTIM + 8
STATE_HIGH = np.concatenate([OBS_HIGH, np.ones(STATE_SIZE - OBS_SIZE, dtype=np.float32)])


def encode_state(encoder: ObservationEncoder, game: Game) -> np.ndarray:
    """The full state of ``game`` (see the index table)."""
    out = np.zeros(STATE_SIZE, dtype=np.float32)
    encoder.encode(game, 0, out[:OBS_SIZE])
    for seat, tile in enumerate(game.dealt):
        out[OFF_STATE_DEALT + 8 * seat + TILE_INDEX[tile]] = 1.0
    for slot, tile in enumerate(game.suspects):
        out[OFF_STATE_SUSPECTS + 8 * slot + TILE_INDEX[tile]] = 1.0
    if game.victim is not None:
        out[OFF_STATE_VICTIM + TILE_INDEX[game.victim]] = 1.0
    return out
