"""Exact culprit odds of a view: what a seat knows, counted over every filling it allows.

A round deals the rule set's tiles uniformly at random, so given what a seat knows,
every deal consistent with it is equally likely. Only the suspects decide the culprit
(:data:`grove_env.resolution.CULPRIT_TABLE`), and the unknown suspect slots of such a
deal are draws without replacement from the *pool*: the tiles in play minus every tile
whose place the seat knows. So a seat's culprit odds are a small sum over the pool's
tile values, in integers (:func:`culprit_counts`). This module is the one place that
sum is written: the batched agents read it for ``K`` rows at once, the trust agent for
one view at a time (:func:`view_odds`), and the policy network's input features from
it. Tiles are indices into :data:`~grove_env.rules.TILE_VALUES` (``-1``: not known).

>>> pool = np.zeros(8, dtype=int); pool[[0, 4, 5, 6]] = 1   # unknown: the blank, 5, 6 and 7
>>> culprit_counts(pool, np.array([-1, 6, 7])).tolist()     # it saw 7, 8; a 5 in slot 0 is guilty
[1, 0, 3]
>>> view_odds((0, 5, 6, 7), (None, 7, 8))                   # the same view, by tile value
(0.25, 0.0, 0.75)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .resolution import CULPRIT_TABLE
from .rules import TILE_VALUES

NUM_VALUES = len(TILE_VALUES)


def _guilt_tables() -> tuple[np.ndarray, np.ndarray]:
    """``(one, two)``: the culprit slot (``-1``: none) of every filling of unknown slots.

    ``one[h, a, b, v]``: tile ``v`` in slot ``h`` and tiles ``a``, ``b`` in the other two
    slots (in slot order); ``two[r, a, v * 8 + w]``: tile ``a`` in slot ``r`` and tiles
    ``v``, ``w`` in the other two. Tile indices into ``TILE_VALUES``.
    """
    c = CULPRIT_TABLE
    one = np.stack([c.transpose(1, 2, 0), c.transpose(0, 2, 1), c])  # [h, a, b, v]
    two = np.stack([c, c.transpose(1, 0, 2), c.transpose(2, 0, 1)])  # [r, a, v, w]
    return np.ascontiguousarray(one), np.ascontiguousarray(two.reshape(3, NUM_VALUES, -1))


ONE_UNKNOWN, TWO_UNKNOWN = _guilt_tables()
for _table in (ONE_UNKNOWN, TWO_UNKNOWN):
    _table.flags.writeable = False


def tally(weights: np.ndarray, guilty: np.ndarray) -> np.ndarray:
    """``int[..., 3]``: the summed ``weights`` of the fillings whose culprit is each slot
    (``guilty``: the culprit slot per filling along the last axis, ``-1`` for none)."""
    lead = guilty.shape[:-1]
    cells = np.arange(int(np.prod(lead)))[:, None] * 4 + 1
    bins = (cells + guilty.reshape(len(cells), -1)).reshape(-1)
    total = np.bincount(bins, weights.reshape(-1).astype(np.float64), minlength=4 * len(cells))
    return total.reshape(*lead, 4)[..., 1:].astype(np.int32)


def one_unknown_counts(
    pool: np.ndarray, hidden: np.ndarray, a: np.ndarray, b: np.ndarray
) -> np.ndarray:
    """``int[..., 3]``: :func:`culprit_counts` of a view that misses slot ``hidden`` only
    and saw tiles ``a`` and ``b`` in the other two slots (slot order)."""
    return tally(pool, ONE_UNKNOWN[hidden, a, b])


def counted_fillings(pool: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """:func:`culprit_counts` worked out view by view (the tables of
    :func:`count_tables` are filled with it); ``pool`` and ``seen`` share their leading
    shape."""
    pool = np.asarray(pool, dtype=np.int16)
    unknown = seen < 0
    hidden = unknown.sum(axis=-1)
    safe = np.maximum(seen, 0)
    counts = np.zeros((*seen.shape[:-1], 3), dtype=np.int32)
    none = hidden == 0
    if none.any():
        s = safe[none]
        counts[none] = np.eye(3, dtype=np.int32)[CULPRIT_TABLE[s[:, 0], s[:, 1], s[:, 2]]]
    one = hidden == 1
    if one.any():
        s, h = safe[one], unknown[one].argmax(axis=-1)
        a = np.where(h == 0, s[:, 1], s[:, 0])
        b = np.where(h == 2, s[:, 1], s[:, 2])
        counts[one] = one_unknown_counts(pool[one], h, a, b)
    two = hidden == 2
    if two.any():
        p, s = pool[two], safe[two]
        r = (~unknown[two]).argmax(axis=-1)
        a = s[np.arange(len(s)), r]
        pairs = (p[:, :, None] * p[:, None, :]).reshape(len(p), -1)
        pairs[:, :: NUM_VALUES + 1] -= p  # a tile drawn twice must be there twice
        counts[two] = tally(pairs, TWO_UNKNOWN[r, a])
    return counts


SEEN_PLACE = 9 ** np.arange(3)
"""The place of each slot's ``seen + 1`` (``0`` unknown, ``1 .. 8`` a tile) in a view's code."""

TABLE_LIMIT = 1 << 22
"""The most entries (views) of one :func:`count_tables`; pools with more copies of a
tile than that allows are counted view by view."""


@lru_cache(maxsize=16)
def count_tables(radix: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """``(place, table)``: the culprit counts of every view whose pool holds fewer than
    ``radix[v]`` tiles of each value ``v``.

    A view is coded ``sum((seen[s] + 1) * 9 ** s) * P + sum(pool[v] * place[v])`` with
    ``P = prod(radix)``; ``table[code]`` is its :func:`counted_fillings`. The registered
    rule sets have at most two copies of a tile, so ``P`` is at most 384.
    """
    table = counted_fillings(*every_view(radix))
    place = pool_place(radix)
    for a in (place, table):
        a.flags.writeable = False
    return place, table


def pool_place(radix: tuple[int, ...]) -> np.ndarray:
    """``int64[8]``: the place of each tile value's count in a pool's code."""
    return np.cumprod((1, *radix[:-1])).astype(np.int64)


def every_view(radix: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """``(pool int[V, 8], seen int[V, 3])``: every view of :func:`count_tables`
    ``(radix)``, in the order of their codes."""
    place = pool_place(radix)
    size = int(np.prod(radix))
    pools = (np.arange(size)[:, None] // place) % np.array(radix)  # [P, 8]
    seen = (np.arange(9**3)[:, None] // SEEN_PLACE) % 9 - 1  # [729, 3]
    return (
        np.broadcast_to(pools, (len(seen), size, NUM_VALUES)).reshape(-1, NUM_VALUES),
        np.repeat(seen, size, axis=0),
    )


def culprit_counts(pool: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """``int[..., 3]``: per slot, how many fillings of the unknown slots make it guilty.

    ``pool`` (``int[..., 8]``) counts the tiles the seat does not know by value;
    ``seen`` (``int[..., 3]``) is the tile index it saw per slot, ``-1`` where unknown.
    Each unknown slot holds a draw without replacement from the pool, and every ordered
    draw is equally likely, so the counts over their sum are the seat's exact culprit
    posterior (:func:`posterior`). Integers, so that seats compare their odds exactly.
    A view with no unknown slot counts its culprit once; one with three (before the
    look) is not a decision the agents price and gets zeros. ``pool`` and ``seen``
    broadcast together. The counts are read from :func:`count_tables` (a few look-ups
    per view, whatever its kind), or counted view by view (:func:`counted_fillings`)
    where the pools would need too large a table.
    """
    pool = np.asarray(pool, dtype=np.int16)
    seen = np.asarray(seen)
    lead = np.broadcast_shapes(pool.shape[:-1], seen.shape[:-1])
    if pool.size == 0 or seen.size == 0:
        return np.zeros((*lead, 3), dtype=np.int32)
    radix = table_radix(pool.reshape(-1, NUM_VALUES))
    if radix is None:
        return counted_fillings(
            np.broadcast_to(pool, (*lead, NUM_VALUES)), np.broadcast_to(seen, (*lead, 3))
        )
    _, table = count_tables(radix)
    return table.take(view_code(pool, seen, radix), axis=0)


def view_code(pool: np.ndarray, seen: np.ndarray, radix: tuple[int, ...]) -> np.ndarray:
    """``int64[...]``: the code of each view in :func:`count_tables` ``(radix)``."""
    place, table = count_tables(radix)
    seen_code = (seen.astype(np.int64) + 1) @ SEEN_PLACE
    return seen_code * (len(table) // 9**3) + pool @ place


@dataclass(frozen=True, eq=False)
class ViewCoder:
    """The code of a view in :func:`count_tables` ``(radix)``, by parts, and its class.

    The code (:func:`view_code`) is a sum over the view's parts: each tile in the pool
    adds ``tile[t + 1]``, each tile ``t`` seen in slot ``s`` adds ``seen[s, t + 1]``
    (index 0, for ``-1``, adds nothing). So a caller that makes many views from shared
    parts (the seats of every deal) adds their codes instead of building each view's
    counts. Few views differ in their counts: ``classes`` holds the distinct counts,
    ``classes[of_view[code]]`` are a view's :func:`culprit_counts`, and a table over
    the classes (what a style decides) is a few hundred entries. Hashed by identity:
    one coder per radix is made, so such tables can be cached with it.
    """

    radix: tuple[int, ...]
    tile: np.ndarray  # int64[9]
    seen: np.ndarray  # int64[3, 9]
    classes: np.ndarray  # int32[U, 3]
    of_view: np.ndarray  # int32[views]

    def pool(self, counts: np.ndarray) -> np.ndarray:
        """``int64[...]``: the code of pools given as counts (``int[..., 8]``)."""
        return np.asarray(counts) @ self.tile[1:]

    def shown(self, seen: np.ndarray) -> np.ndarray:
        """``int64[..., 3]``: per slot, what seeing tile ``seen`` (``int[..., 3]``; ``-1``:
        nothing) adds to a view's code: it is seen there, and out of the pool."""
        at = np.asarray(seen, dtype=np.int64) + 1
        return self.seen.take(at + 9 * np.arange(3)) - self.tile.take(at)


@lru_cache(maxsize=16)
def view_coder(radix: tuple[int, ...]) -> ViewCoder:
    """The :class:`ViewCoder` of the views whose pools hold fewer than ``radix[v]``
    tiles ``v``."""
    place, table = count_tables(radix)
    counts = table.astype(np.int64)
    top = int(counts.max(initial=0)) + 1
    code = (counts[:, 0] * top + counts[:, 1]) * top + counts[:, 2]
    unique, of_view = np.unique(code, return_inverse=True)
    classes = np.stack([unique // top**2, unique // top % top, unique % top], axis=1)
    seen = (np.arange(9) * (len(table) // 9**3)) * SEEN_PLACE[:, None]
    coder = ViewCoder(
        radix,
        np.concatenate([[0], place]),
        seen,
        classes.astype(np.int32),
        of_view.astype(np.int32),
    )
    for a in (coder.tile, coder.seen, coder.classes, coder.of_view):
        a.flags.writeable = False
    return coder


def table_radix(pools: np.ndarray) -> tuple[int, ...] | None:
    """The radix of the :func:`count_tables` that holds every pool of ``pools``
    (``int[V, 8]``, not empty); ``None`` where they must be counted view by view."""
    if pools.max() < 2:
        radix: tuple[int, ...] = (2,) * NUM_VALUES
    else:
        radix = tuple(int(r) for r in np.maximum(pools.max(axis=0) + 1, 2))
    if pools.min() < 0 or 9**3 * int(np.prod(radix)) > TABLE_LIMIT:
        return None
    return radix


def posterior(counts: np.ndarray) -> np.ndarray:
    """``float[..., 3]``: culprit counts as probabilities (zeros where nothing is counted)."""
    total = counts.sum(axis=-1, keepdims=True)
    return counts / np.maximum(total, 1)


@lru_cache(maxsize=1 << 16)
def view_odds(pool: Sequence[int], slots: Sequence[int | None]) -> tuple[float, float, float]:
    """``P(culprit is slot s)`` of one view given by tile *values*: ``pool`` the unknown
    tiles (a multiset), ``slots`` the tile seen per slot (``None``: unknown). Cached, so
    a view seen before costs a dictionary look-up. A view with all three slots unknown
    (before the look) is counted too, as the views with slot 0 filled."""
    counts = np.zeros(NUM_VALUES, dtype=np.int16)
    for tile in pool:
        counts[TILE_VALUES.index(tile)] += 1
    seen = np.array([-1 if t is None else TILE_VALUES.index(t) for t in slots])
    unknown = int((seen < 0).sum())
    if unknown > int(counts.sum()):
        raise ValueError(f"{unknown} unknown slots but only {int(counts.sum())} unknown tiles")
    if unknown < 3:
        q = posterior(culprit_counts(counts, seen))
    else:  # slot 0 holds each value v in counts[v] ways, then two slots are unknown
        values = np.flatnonzero(counts)
        first = np.repeat(seen[None], len(values), axis=0)
        first[:, 0] = values
        rest = counts - np.eye(NUM_VALUES, dtype=np.int16)[values]
        q = posterior(counts[values] @ culprit_counts(rest, first))
    return float(q[0]), float(q[1]), float(q[2])
