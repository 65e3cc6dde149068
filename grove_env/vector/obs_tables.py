"""Tables of observation rows for the batched encoder, built from the index table.

The observation (:mod:`grove_env.observation`) is cut into five chunks of 25 entries,
``[0:25)``, ``[25:50)``, ..., ``[100:125)``. Each chunk is a function of a few small
integers (*digits*) of a game: every one-hot that lands in it is set by one digit, and
the constant entries (player count, rules, tiles in play, seats present) are the
encoder's ``base``. A chunk's table holds its 25 entries for every combination of its
digits, the first digit most significant, so that writing an observation is one
``np.take`` of five rows per game into the output viewed as ``[B, 5, 25]``.

The counts and the round are not one-hots; the encoder writes them over the last chunk
(whose table leaves them as in ``base``, 0).

==============  =====  =====  ==========================================================
digit           radix  shift  value
==============  =====  =====  ==========================================================
``dealt``       8      0      tile index dealt to the seat
``received``    8      0      tile index dealt to the next seat
``spare``       9      1      tile index of the spare + 1, 0 without one
``victim``      9      0      tile index of the victim + 1 if the seat knows it, else 0
``unseen``      4      1      unseen slot + 1, 0 before the look
``tampered``    4      1      tampered slot + 1, 0 unless swapped
``turn``        4n^2   0      (relative seat of the round's first player * n + relative
                              seat to act) * 4 + phase (no seat to act once over)
``seen_k``      9      0      tile index in suspect slot ``k`` + 1 if the seat saw it
``accused_k``   4      1      slot accused at position ``k`` + 1, 0 while still to play
==============  =====  =====  ==========================================================

A digit with shift 1 is a field of the state as it is (-1 where none) plus 1: the
encoder adds the state's field, and :func:`chunk_tables` gives, with where each chunk's
rows start, the shifts times their places. Without a spare or a victim swap, digits
that would always be 0 are left out. The tables are built once per table size and
shared; the largest, classic with 4 players, has 19,900 rows (2 MB).

>>> layout = chunk_layout(4, spare=False, swap=True)
>>> [names for names, _ in layout]  # doctest: +NORMALIZE_WHITESPACE
[['dealt'], ['dealt', 'received', 'seen_0'], ['victim', 'unseen', 'seen_1', 'seen_2'],
 ['unseen', 'tampered', 'turn', 'accused_0', 'accused_1'], ['accused_2', 'accused_3']]
>>> chunk_tables(np.zeros(125, np.float32), 4, spare=False, swap=True)[0].shape
(19900, 25)
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from grove_env.actions import Phase
from grove_env.observation import (
    OBS_SIZE,
    OFF_ACCUSATIONS,
    OFF_DEALT,
    OFF_FIRST,
    OFF_PHASE,
    OFF_RECEIVED,
    OFF_SEEN,
    OFF_SPARE,
    OFF_TAMPERED,
    OFF_TO_ACT,
    OFF_UNSEEN,
    OFF_VICTIM,
)

CHUNK = 25
CHUNKS = OBS_SIZE // CHUNK

Place = Callable[[int], list[int]]
"""The observation entries that a digit's value sets to 1."""
Digits = dict[str, tuple[int, int, Place]]
"""Each digit's radix, shift and :data:`Place`, by name."""


def _at(offset: int) -> Place:
    """Value ``v`` sets entry ``offset + v``."""
    return lambda v: [offset + v]


def _at_known(offset: int) -> Place:
    """Value 0 sets nothing (not known, none), value ``v`` sets ``offset + v - 1``."""
    return lambda v: [offset + v - 1] if v else []


def _turn(num_players: int) -> Place:
    def place(v: int) -> list[int]:
        seats, phase = divmod(v, 4)
        first, to_act = divmod(seats, num_players)
        entries = [OFF_FIRST + first, OFF_PHASE + phase]
        return entries + ([OFF_TO_ACT + to_act] if phase != Phase.OVER else [])

    return place


def digits(num_players: int, spare: bool, swap: bool) -> Digits:
    """Every digit's radix, shift and the entries each of its values sets (see the
    table); ``spare`` and ``swap``: whether the table has a spare, a victim swap."""
    n = num_players
    found: Digits = {
        "dealt": (8, 0, _at(OFF_DEALT)),
        "received": (8, 0, _at(OFF_RECEIVED)),
    }
    if spare:
        found["spare"] = (9, 1, _at_known(OFF_SPARE))
    if swap:
        found["victim"] = (9, 0, _at_known(OFF_VICTIM))
    found["unseen"] = (4, 1, _at_known(OFF_UNSEEN))
    if swap:
        found["tampered"] = (4, 1, _at_known(OFF_TAMPERED))
    found["turn"] = (4 * n * n, 0, _turn(n))
    for k in range(3):
        found[f"seen_{k}"] = (9, 0, _at_known(OFF_SEEN + 8 * k))
    for k in range(n):
        found[f"accused_{k}"] = (4, 1, _at_known(OFF_ACCUSATIONS + 3 * k))
    return found


def _chunk_names(found: Digits) -> list[list[str]]:
    """The digits of each chunk, most significant first: those that set an entry in it.

    No two digits set the same entry (each block of the index table is one digit's).
    """
    chunks: list[list[str]] = [[] for _ in range(CHUNKS)]
    owner: dict[int, str] = {}
    for name, (radix, _, place) in found.items():
        entries = {i for v in range(radix) for i in place(v)}
        for i in entries:
            assert owner.setdefault(i, name) == name, f"{name} and {owner[i]} both set {i}"
        for c in sorted({i // CHUNK for i in entries}):
            chunks[c].append(name)
    return chunks


def chunk_layout(num_players: int, spare: bool, swap: bool) -> list[tuple[list[str], list[int]]]:
    """Per chunk: its digits, most significant first, and their place values."""
    found = digits(num_players, spare, swap)
    layout = []
    for names in _chunk_names(found):
        radices = [found[name][0] for name in names]
        places = [int(np.prod(radices[i + 1 :], dtype=np.int64)) for i in range(len(names))]
        layout.append((names, places))
    return layout


def _chunk_rows(
    base_row: np.ndarray, c: int, names: list[str], places: list[int], found: Digits
) -> np.ndarray:
    """float32[rows, 25]: chunk ``c`` for every combination of its digits."""
    lo = c * CHUNK
    rows = found[names[0]][0] * places[0] if names else 1
    block = np.tile(base_row[lo : lo + CHUNK], (rows, 1))
    code = np.arange(rows)
    for name, place in zip(names, places):
        radix, _, entries = found[name]
        digit = code // place % radix
        for v in range(radix):
            for i in entries(v):
                if lo <= i < lo + CHUNK:
                    assert base_row[i] == 0.0, f"digit {name} overwrites a constant"
                    block[digit == v, i - lo] = 1.0
    return block


@functools.cache
def _cached_tables(
    base: bytes, num_players: int, spare: bool, swap: bool
) -> tuple[np.ndarray, np.ndarray]:
    base_row = np.frombuffer(base, dtype=np.float32)
    found = digits(num_players, spare, swap)
    blocks: list[np.ndarray] = []
    constants: list[int] = []
    for c, (names, places) in enumerate(chunk_layout(num_players, spare, swap)):
        shifts = sum(found[name][1] * place for name, place in zip(names, places))
        constants.append(sum(len(b) for b in blocks) + shifts)
        blocks.append(_chunk_rows(base_row, c, names, places, found))
    table = np.concatenate(blocks)
    table.flags.writeable = False
    return table, np.array(constants, dtype=np.int64)


def chunk_tables(
    base: np.ndarray, num_players: int, spare: bool, swap: bool
) -> tuple[np.ndarray, np.ndarray]:
    """float32[rows, 25], every chunk's rows one after another, and int64[5]: what to
    add to each chunk's code of state fields to find its row (where its rows start,
    plus the shifts). Built once per ``base`` row and digits."""
    key = np.asarray(base, dtype=np.float32).tobytes()
    return _cached_tables(key, num_players, spare, swap)
