"""Observation rows read as arrays, and the exact culprit posterior of any seat's view.

The batched agents decide for ``K`` observations at once. :class:`Rows` reads the
fields of :mod:`grove_env.observation` out of ``float[K, 125]`` rows of one table (one
rule set and player count, which :func:`tables` splits a mixed batch into), tiles as
indices into :data:`~grove_env.rules.TILE_VALUES` and ``-1`` where a tile or slot is not
known. :func:`culprit_counts` gives the exact culprit odds of a *view*: the tiles a
seat does not know (``pool``, counts per tile value) and what it saw in each suspect
slot. Every unknown slot holds a draw without replacement from the pool, so the odds
are a small sum over the pool's tile values, in integers; it is the same arithmetic
for the seat that observes and for the seats an agent models, so a model of a style
reproduces that style's decisions exactly.

>>> from grove_env.core import Game
>>> from grove_env.observation import ObservationEncoder
>>> g = Game("classic", 4, deals=[(2, 3, 4, 6, 5, 7, 8, 0)])
>>> g.apply_action(0)                   # the first player leaves slot 0 unseen
>>> rows = Rows.of(ObservationEncoder(g.rules, 4).encode(g, 0)[None])
>>> rows.seen.tolist(), rows.pool.sum(axis=1).tolist()
([[-1, 6, 7]], [4])
>>> rows.counts.tolist(), posterior(rows.counts).tolist()  # slot 0 is 0, 4, 5 or 6
([[1, 0, 3]], [[0.25, 0.0, 0.75]])
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from grove_env.observation import (
    OFF_ACCUSATIONS,
    OFF_COLOURED,
    OFF_DEALT,
    OFF_FIRST,
    OFF_PENALTY,
    OFF_PHASE,
    OFF_PLAYERS,
    OFF_RECEIVED,
    OFF_ROUND,
    OFF_RULES,
    OFF_SEEN,
    OFF_SPARE,
    OFF_TAMPERED,
    OFF_TILES_IN_PLAY,
    OFF_UNSEEN,
    OFF_VICTIM,
    ROUND_SCALE,
    rules_features,
)
from grove_env.resolution import CULPRIT_TABLE
from grove_env.rules import MAX_PLAYERS, RULE_SETS, TILE_VALUES, RuleSet

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
    place = np.cumprod((1, *radix[:-1])).astype(np.int64)
    size = int(np.prod(radix))
    pools = (np.arange(size)[:, None] // place) % np.array(radix)  # [P, 8]
    seen = (np.arange(9**3)[:, None] // SEEN_PLACE) % 9 - 1  # [729, 3]
    table = counted_fillings(
        np.broadcast_to(pools, (len(seen), size, NUM_VALUES)).reshape(-1, NUM_VALUES),
        np.repeat(seen, size, axis=0),
    )
    for a in (place, table):
        a.flags.writeable = False
    return place, table


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
    flat = pool.reshape(-1, NUM_VALUES)
    if flat.max() < 2:
        radix: tuple[int, ...] = (2,) * NUM_VALUES
    else:
        radix = tuple(int(r) for r in np.maximum(flat.max(axis=0) + 1, 2))
    if flat.min() < 0 or 9**3 * int(np.prod(radix)) > TABLE_LIMIT:
        return counted_fillings(
            np.broadcast_to(pool, (*lead, NUM_VALUES)), np.broadcast_to(seen, (*lead, 3))
        )
    place, table = count_tables(radix)
    seen_code = (seen.astype(np.int64) + 1) @ SEEN_PLACE
    return table.take(seen_code * (len(table) // 9**3) + pool @ place, axis=0)


def posterior(counts: np.ndarray) -> np.ndarray:
    """``float[..., 3]``: culprit counts as probabilities (zeros where nothing is counted)."""
    total = counts.sum(axis=-1, keepdims=True)
    return counts / np.maximum(total, 1)


def tile_index(block: np.ndarray) -> np.ndarray:
    """The tile index set in each one-hot block of 8 (``-1`` where none is set)."""
    return np.where(block.any(axis=-1), block.argmax(axis=-1), -1)


_HOT = np.vstack([np.zeros(NUM_VALUES, dtype=np.int16), np.eye(NUM_VALUES, dtype=np.int16)])


def hot(tiles: np.ndarray) -> np.ndarray:
    """``int16[..., 8]``: one-hot of tile indices (all zeros for ``-1``)."""
    return _HOT.take(np.asarray(tiles) + 1, axis=0)


def counts_of(tiles: np.ndarray) -> np.ndarray:
    """``int16[..., 8]``: how often each tile index occurs along the last axis (``-1``: none)."""
    out = hot(tiles[..., 0])
    for i in range(1, tiles.shape[-1]):
        out = out + hot(tiles[..., i])
    return out


def table_kind(obs: np.ndarray) -> np.ndarray:
    """Per row, a code of its table: ``players * 64`` plus its rule features' bits."""
    players = obs[:, OFF_PLAYERS : OFF_PLAYERS + 4].argmax(axis=1) + 2
    feats = np.rint(obs[:, OFF_RULES : OFF_RULES + 6] * np.array([1, 1, 1, 10, 10, 10]))
    code = (feats[:, 0] + 2 * feats[:, 1] + 4 * feats[:, 2]).astype(np.int64)
    code += 8 * (feats[:, 3] + 20 * feats[:, 4] + 400 * feats[:, 5]).astype(np.int64)
    return players * (1 << 20) + code


def rules_of(row: np.ndarray) -> RuleSet:
    """The registered rule set whose features this observation row carries."""
    feats = np.asarray(row[OFF_RULES : OFF_RULES + 6], dtype=np.float32)
    for rules in RULE_SETS.values():
        if np.allclose(feats, np.asarray(rules_features(rules), dtype=np.float32)):
            return rules
    raise ValueError(f"no registered rule set has the rule features {feats.tolist()}")


def tables(obs: np.ndarray) -> list[tuple[RuleSet, int, np.ndarray]]:
    """``(rules, players, row indices)`` for each table among the rows of ``obs``."""
    kinds = table_kind(obs)
    out = []
    for kind in np.unique(kinds):
        rows = np.flatnonzero(kinds == kind)
        out.append((rules_of(obs[rows[0]]), int(kind >> 20), rows))
    return out


@dataclass(frozen=True, eq=False)
class Rows:
    """The fields of ``K`` observation rows of one table, as arrays (seats relative).

    Tiles are indices into ``TILE_VALUES`` (``-1``: not known); slots are 0-2 (``-1``:
    none). ``accused[:, i]`` is the slot accused at position ``i`` of the round (the
    first player's seat plus ``i``), ``-1`` from ``position`` on.
    """

    num_players: int
    in_play: np.ndarray  # int[K, 8]
    dealt: np.ndarray  # int[K] the tile this seat was dealt
    received: np.ndarray  # int[K] the tile passed to it (dealt to relative seat 1)
    spare: np.ndarray  # int[K]
    seen: np.ndarray  # int[K, 3]
    victim: np.ndarray  # int[K]
    unseen: np.ndarray  # int[K]
    tampered: np.ndarray  # int[K]
    first: np.ndarray  # int[K] relative seat of the first player
    phase: np.ndarray  # int[K]
    accused: np.ndarray  # int[K, 5]
    coloured: np.ndarray  # int[K, n]
    penalty: np.ndarray  # int[K, n]
    round: np.ndarray  # int[K]

    @classmethod
    def of(cls, obs: np.ndarray) -> Rows:
        """Read ``float[K, 125]`` rows that all belong to one table."""
        obs = np.asarray(obs, dtype=np.float64)
        k = len(obs)
        n = int(obs[0, OFF_PLAYERS : OFF_PLAYERS + 4].argmax()) + 2
        acc = obs[:, OFF_ACCUSATIONS : OFF_ACCUSATIONS + 3 * MAX_PLAYERS].reshape(k, -1, 3)
        return cls(
            num_players=n,
            in_play=np.rint(obs[:, OFF_TILES_IN_PLAY : OFF_TILES_IN_PLAY + 8] * 2).astype(int),
            dealt=tile_index(obs[:, OFF_DEALT : OFF_DEALT + 8]),
            received=tile_index(obs[:, OFF_RECEIVED : OFF_RECEIVED + 8]),
            spare=tile_index(obs[:, OFF_SPARE : OFF_SPARE + 8]),
            seen=tile_index(obs[:, OFF_SEEN : OFF_SEEN + 24].reshape(k, 3, 8)),
            victim=tile_index(obs[:, OFF_VICTIM : OFF_VICTIM + 8]),
            unseen=np.where(
                obs[:, OFF_UNSEEN : OFF_UNSEEN + 3].any(axis=1),
                obs[:, OFF_UNSEEN : OFF_UNSEEN + 3].argmax(axis=1),
                -1,
            ),
            tampered=np.where(
                obs[:, OFF_TAMPERED : OFF_TAMPERED + 3].any(axis=1),
                obs[:, OFF_TAMPERED : OFF_TAMPERED + 3].argmax(axis=1),
                -1,
            ),
            first=obs[:, OFF_FIRST : OFF_FIRST + MAX_PLAYERS].argmax(axis=1),
            phase=obs[:, OFF_PHASE : OFF_PHASE + 4].argmax(axis=1),
            accused=np.where(acc.any(axis=2), acc.argmax(axis=2), -1),
            coloured=np.rint(obs[:, OFF_COLOURED : OFF_COLOURED + n] * 10).astype(int),
            penalty=np.rint(obs[:, OFF_PENALTY : OFF_PENALTY + n] * 10).astype(int),
            round=np.rint(obs[:, OFF_ROUND] * ROUND_SCALE).astype(int) + 1,
        )

    def __len__(self) -> int:
        return len(self.dealt)

    def take(self, idx: np.ndarray) -> Rows:
        """The rows ``idx`` (an index array) of these rows."""
        arrays = [f.name for f in dataclasses.fields(self) if f.name != "num_players"]
        return Rows(self.num_players, **{name: getattr(self, name)[idx] for name in arrays})

    @cached_property
    def position(self) -> np.ndarray:
        """``int[K]``: how many seats accused before this one this round."""
        return (self.accused >= 0).sum(axis=1)

    @cached_property
    def heights(self) -> np.ndarray:
        """``int[K, 3]``: markers already under each suspect slot."""
        return np.stack([(self.accused == s).sum(axis=1) for s in range(3)], axis=1)

    @cached_property
    def previous(self) -> np.ndarray:
        """``int[K]``: the slot accused just before this seat (``-1``: it is the first)."""
        k = self.position
        return np.where(k > 0, self.accused[np.arange(len(k)), np.maximum(k - 1, 0)], -1)

    @cached_property
    def pool(self) -> np.ndarray:
        """``int[K, 8]``: the tiles whose place this seat does not know, by value."""
        known = np.concatenate(
            [
                self.dealt[:, None],
                self.received[:, None],
                self.spare[:, None],
                self.seen,
                self.victim[:, None],
            ],
            axis=1,
        )
        return self.in_play - counts_of(known)

    @cached_property
    def counts(self) -> np.ndarray:
        """``int[K, 3]``: this seat's :func:`culprit_counts`."""
        return culprit_counts(self.pool, self.seen)
