"""The entries of grove_v1's infos: flat, fixed-shape, read-only (the env's docstring lists them).

Libraries that stack infos into arrays (Tianshou) need every entry to keep one shape from
``reset()`` on, so a round result is padded (stacks ``int[3, n]`` with -1) and a finished
game's seats are a ``bool[n]`` mask.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from grove_env.actions import NUM_ACTIONS
from grove_env.core import Game, RoundRecord

NO_MOVES = np.zeros(NUM_ACTIONS, dtype=np.int8)
NO_MOVES.flags.writeable = False


@functools.cache
def mask_for(legal: tuple[int, ...]) -> np.ndarray:
    """A read-only mask per legal-action set (there are only a handful)."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[list(legal)] = 1
    mask.flags.writeable = False
    return mask


def frozen(values: Any, dtype: type = np.int64) -> np.ndarray:
    """A read-only array of ``values`` (infos are shared between agents)."""
    array: np.ndarray = np.array(values, dtype=dtype)
    array.flags.writeable = False
    return array


def round_info(game: Game, record: RoundRecord | None) -> dict[str, Any]:
    """The fixed-shape round entries of the infos (``record`` ``None``: no round finished yet)."""
    n = game.num_players
    if record is None:
        return {
            "round": 0,
            "suspects": frozen([-1, -1, -1]),
            "culprit": -1,
            "stacks": frozen(np.full((3, n), -1)),
            "coloured": frozen(game.coloured),
            "penalty": frozen(game.penalty),
        }
    stacks = np.full((3, n), -1, dtype=np.int64)
    for slot, seats in enumerate(record.stacks):
        stacks[slot, : len(seats)] = seats
    stacks.flags.writeable = False
    return {
        "round": record.number,
        "suspects": frozen(record.suspects),
        "culprit": record.culprit,
        "stacks": stacks,
        "coloured": frozen(record.coloured),
        "penalty": frozen(record.penalty),
    }


def start_info(game: Game) -> dict[str, Any]:
    """Every agent's info right after ``reset()``: no round finished, nobody ranked yet."""
    return {
        **round_info(game, None),
        "standings": 0,
        "scores": frozen(game.scores()),
        "ended_by": frozen([False] * game.num_players, bool),
        "illegal_action_by": -1,
    }


def end_info(game: Game) -> tuple[list[int], np.ndarray, np.ndarray]:
    """``(standings, scores, ended_by)`` of a finished game (``ended_by``: a seat mask)."""
    ended_by = np.zeros(game.num_players, dtype=bool)
    ended_by[game.end_triggers()] = True
    ended_by.flags.writeable = False
    return game.standings(), frozen(game.scores()), ended_by
