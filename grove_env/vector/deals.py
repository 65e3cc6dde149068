"""The deals of the batched engine: shuffled at random, or forced and queued per game.

A deal lists tile indices in the order of :class:`grove_env.core.Game`: the tiles dealt
to seats ``0..n-1``, suspect slots 0, 1, 2, the victim, then the face-up spare. A random
deal is a uniformly drawn column of every permutation of the table's tiles; a game
with forced deals queued (:meth:`Dealer.force`) takes them in order, then random
deals again.

>>> dealer = Dealer("classic", 2, num_games=3, seed=0)
>>> dealer.deal(np.ones(3, bool)).shape
(6, 3)
"""

from __future__ import annotations

import numpy as np

from grove_env.rules import RuleSet, get_rules
from grove_env.vector.state import VALUE_TO_INDEX, permutation_table


class Dealer:
    """Next deals of ``num_games`` games of one rule set and table size.

    Args:
        rules: ``"classic"``, ``"revised"`` or a :class:`~grove_env.rules.RuleSet`.
        num_players: seats per game.
        num_games: B, the number of games.
        seed: seed of the ``np.random.Generator`` that shuffles the deals.
    """

    def __init__(
        self, rules: str | RuleSet, num_players: int, num_games: int, seed: int | None
    ) -> None:
        self.rules = get_rules(rules)
        self.num_players = num_players
        self.num_games = num_games
        self.tile_values = np.array(self.rules.tiles(num_players), dtype=np.int64)
        tile_indices = VALUE_TO_INDEX[self.tile_values].astype(np.int8)
        # One deal per row, [tiles!, tiles]: drawing B deals reads B short rows.
        self._deals = np.ascontiguousarray(tile_indices[permutation_table(len(tile_indices)).T])
        self._queue: np.ndarray | None = None  # forced deals [B, Q, tiles], tile indices
        self._queue_next = np.zeros(num_games, dtype=np.int64)
        self._queue_len = np.zeros(num_games, dtype=np.int64)
        self.rng = np.random.default_rng(seed)

    def reseed(self, seed: int) -> None:
        """Start the random deals from ``seed`` again (the queue is kept)."""
        self.rng = np.random.default_rng(seed)

    def force(self, deals: np.ndarray, games: np.ndarray | None = None) -> None:
        """Queue the next deal(s) of ``games`` (bool[B]; default all): int[B, tiles] or
        int[B, R, tiles] tile values, 0 for the blank/X; replaces what was queued."""
        b, t = self.num_games, len(self.tile_values)
        deals = np.asarray(deals)
        if deals.ndim == 2:
            deals = deals[:, None, :]
        if deals.ndim != 3 or deals.shape[0] != b or deals.shape[2] != t:
            raise ValueError(
                f"deals must have shape ({b}, {t}) or ({b}, R, {t}) for a {self.rules.name} "
                f"game of {self.num_players} players, got {np.shape(deals)}"
            )
        if not np.issubdtype(deals.dtype, np.integer):
            raise ValueError(f"deals must be integer tile values, got {deals.dtype}")
        chosen = np.ones(b, dtype=bool) if games is None else np.asarray(games)
        if chosen.shape != (b,) or chosen.dtype != bool:  # indices would be read as a mask
            raise ValueError(
                f"games must be a bool[{b}] mask, got {chosen.dtype}{list(chosen.shape)}"
            )
        rows = np.flatnonzero(chosen)
        picked = deals[rows]
        bad = (np.sort(picked, axis=2) != self.tile_values).any(axis=2)
        if bad.any():
            g, r = np.argwhere(bad)[0]
            raise ValueError(
                f"a deal is a permutation of {self.tile_values.tolist()}; game {rows[g]} "
                f"deal {r} is {picked[g, r].tolist()}"
            )
        q = deals.shape[1]
        if self._queue is None or self._queue.shape[1] < q:
            grown = np.zeros((b, q, t), dtype=np.int8)
            if self._queue is not None:
                grown[:, : self._queue.shape[1]] = self._queue
            self._queue = grown
        self._queue[rows, :q] = VALUE_TO_INDEX[picked]
        self._queue_next[rows] = 0
        self._queue_len[rows] = q

    def deal(self, games: np.ndarray) -> np.ndarray:
        """int8[tiles, B]: a new deal (tile indices) for every game; a queued deal is
        used (and taken off the queue) only where ``games``."""
        drawn = self.rng.integers(0, self._deals.shape[0], self.num_games)
        deal = self._deals.take(drawn, axis=0).T
        if self._queue is not None:
            forced = np.flatnonzero(games & (self._queue_next < self._queue_len))
            if forced.size:
                deal[:, forced] = self._queue[forced, self._queue_next[forced]].T
                self._queue_next[forced] += 1
        return deal
