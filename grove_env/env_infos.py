"""The entries of grove_v1's infos: flat, fixed-shape, read-only (the env's docstring lists them).

Libraries that stack infos into arrays (Tianshou) need every entry to keep one shape from
``reset()`` on, so a round result is padded (stacks ``int[3, n]`` with -1) and a finished
game's seats are a ``bool[n]`` mask.

The arrays are built when a round or game ends, never per step, and one array of a given
content serves every agent and every env in the process (an LRU cache, so the same round
result does not cost a fresh array). Sharing is safe because each is a read-only view of a
read-only array: writing to it raises ``ValueError``, and so does setting its
``flags.writeable`` back to ``True``. A user who wants to write takes a copy.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from grove_env.actions import NUM_ACTIONS
from grove_env.core import Game, RoundRecord

NO_MOVES = np.zeros(NUM_ACTIONS, dtype=np.int8)
NO_MOVES.flags.writeable = False

# Distinct contents seen in practice number in the thousands (suspect triples, marker
# counts); the bound only caps memory in very long runs.
_CACHE_SIZE = 1 << 14


@functools.cache
def mask_for(legal: tuple[int, ...]) -> np.ndarray:
    """A read-only mask per legal-action set (there are only a handful)."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[list(legal)] = 1
    mask.flags.writeable = False
    return mask


def _sealed(array: np.ndarray) -> np.ndarray:
    """``array`` as a view that can neither be written nor made writeable again."""
    array.flags.writeable = False
    view = array.view()
    view.flags.writeable = False
    return view


@functools.lru_cache(maxsize=_CACHE_SIZE)
def frozen(values: tuple[int, ...]) -> np.ndarray:
    """A shared read-only ``int64`` array of ``values``."""
    return _sealed(np.array(values, dtype=np.int64))


@functools.lru_cache(maxsize=_CACHE_SIZE)
def frozen_stacks(stacks: tuple[tuple[int, ...], ...], num_players: int) -> np.ndarray:
    """A shared read-only ``int64[3, n]``: per slot its accusing seats, padded with -1."""
    array = np.full((3, num_players), -1, dtype=np.int64)
    for slot, seats in enumerate(stacks):
        array[slot, : len(seats)] = seats
    return _sealed(array)


@functools.lru_cache(maxsize=_CACHE_SIZE)
def frozen_seats(seats: tuple[int, ...], num_players: int) -> np.ndarray:
    """A shared read-only ``bool[n]`` mask of ``seats``."""
    mask = np.zeros(num_players, dtype=bool)
    mask[list(seats)] = True
    return _sealed(mask)


def round_info(game: Game, record: RoundRecord | None) -> dict[str, Any]:
    """The fixed-shape round entries of the infos (``record`` ``None``: no round finished yet)."""
    n = game.num_players
    if record is None:
        return {
            "round": 0,
            "suspects": frozen((-1, -1, -1)),
            "culprit": -1,
            "stacks": frozen_stacks((), n),
            "coloured": frozen(tuple(game.coloured)),
            "penalty": frozen(tuple(game.penalty)),
        }
    return {
        "round": record.number,
        "suspects": frozen(record.suspects),
        "culprit": record.culprit,
        "stacks": frozen_stacks(record.stacks, n),
        "coloured": frozen(record.coloured),
        "penalty": frozen(record.penalty),
    }


def start_info(game: Game) -> dict[str, Any]:
    """Every agent's info right after ``reset()``: no round finished, nobody ranked yet."""
    return {
        **round_info(game, None),
        "standings": 0,
        "scores": frozen(tuple(game.scores())),
        "ended_by": frozen_seats((), game.num_players),
        "illegal_action_by": -1,
    }


def end_info(game: Game) -> tuple[list[int], np.ndarray, np.ndarray]:
    """``(standings, scores, ended_by)`` of a finished game (``ended_by``: a seat mask)."""
    ended_by = frozen_seats(tuple(game.end_triggers()), game.num_players)
    return game.standings(), frozen(tuple(game.scores())), ended_by
