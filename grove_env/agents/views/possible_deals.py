"""Every deal a seat's observation allows, for batches of observations.

A seat knows where some tiles are (its two peeked tiles, the suspects it saw, the
face-up spare, the victim after its own swap); the others, the *pool*, are spread
uniformly over the places it cannot see: the tiles dealt to relative seats ``2 ..
n - 1``, the suspect slots it did not see and the victim. So every assignment of the
pool to those places is equally likely. :func:`deals` lists them all, as arrays over
``[K rows, D deals]`` with ``D = P!`` for a pool of ``P`` tiles (at most 120: five
seats of the revised game; equal tiles give equal deals, each counted, which keeps
the weights uniform).

>>> from grove_env.core import Game
>>> from grove_env.observation import ObservationEncoder
>>> from .rows import Rows
>>> g = Game("classic", 3, deals=[(3, 4, 6, 5, 7, 8, 0)])
>>> g.apply_action(0); g.apply_action(3)  # leave slot 0 unseen, keep the victim
>>> d = deals(Rows.of(ObservationEncoder(g.rules, 3).encode(g, 0)[None]))
>>> d.suspects.shape, sorted({int(t) for t in d.suspects[0, :, 0]})  # slot 0: 0, 5 or 6
((1, 6, 3), [0, 4, 5])
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from grove_env.resolution import CULPRIT_TABLE

from .rows import Rows


@lru_cache(maxsize=8)
def permutations(size: int) -> np.ndarray:
    """``int[size!, size]``: every ordering of ``range(size)``."""
    out = np.array(list(itertools.permutations(range(size))), dtype=np.int64)
    out.flags.writeable = False
    return out.reshape(-1, size)


def pool_tiles(pool: np.ndarray) -> np.ndarray:
    """``int[K, P]``: each row's pool counts (``int[K, 8]``, equal sums) as sorted tiles."""
    size = int(pool[0].sum())
    if (pool.sum(axis=1) != size).any():
        raise ValueError("the rows of one batch of deals must have pools of one size")
    copies = np.arange(max(int(pool.max()), 1))
    present = (pool[:, :, None] > copies).reshape(len(pool), -1)
    order = np.argsort(~present, axis=1, kind="stable")[:, :size]
    return np.broadcast_to(np.arange(pool.shape[1])[:, None], (pool.shape[1], len(copies))).reshape(
        -1
    )[order]


@dataclass(frozen=True, eq=False)
class Deals:
    """Every deal consistent with ``K`` observations: tile indices over ``[K, D]``.

    ``dealt[..., r]`` is the tile dealt to relative seat ``r`` (so seat ``r`` peeked
    ``dealt[..., r]`` and ``dealt[..., (r + 1) % n]``), ``suspects`` the three suspect
    slots as they lie now, ``victim`` the victim now; ``culprit`` the culprit slot.
    """

    dealt: np.ndarray  # int[K, D, n]
    suspects: np.ndarray  # int[K, D, 3]
    victim: np.ndarray  # int[K, D]

    @property
    def culprit(self) -> np.ndarray:
        s = self.suspects
        return CULPRIT_TABLE[s[..., 0], s[..., 1], s[..., 2]].astype(np.int64)


def deals(rows: Rows) -> Deals:
    """Every deal the observations allow (rows of one table, suspects looked at)."""
    n, k = rows.num_players, len(rows)
    tiles = pool_tiles(rows.pool)[:, permutations(int(rows.pool[0].sum()))]  # [K, D, P]
    d = tiles.shape[1]
    dealt = np.empty((k, d, n), dtype=np.int8)
    dealt[:, :, 0] = rows.dealt[:, None]
    dealt[:, :, 1 % n] = rows.received[:, None]
    dealt[:, :, 2:] = tiles[:, :, : n - 2]
    unknown = rows.seen < 0
    source = (n - 2) + np.maximum(np.cumsum(unknown, axis=1) - 1, 0)  # [K, 3]
    filled = np.take_along_axis(tiles, np.broadcast_to(source[:, None, :], (k, d, 3)), axis=2)
    suspects = np.where(unknown[:, None, :], filled, rows.seen[:, None, :])
    victim = np.where(rows.victim[:, None] >= 0, rows.victim[:, None], tiles[:, :, -1])
    return Deals(dealt, suspects.astype(np.int8), victim.astype(np.int8))
