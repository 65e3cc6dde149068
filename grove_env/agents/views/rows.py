"""Observation rows read as arrays, and the exact culprit posterior of any seat's view.

The batched agents decide for ``K`` observations at once. :class:`Rows` reads the
fields of :mod:`grove_env.observation` out of ``float[K, 125]`` rows of one table (one
rule set and player count, which :func:`tables` splits a mixed batch into), tiles as
indices into :data:`~grove_env.rules.TILE_VALUES` and ``-1`` where a tile or slot is not
known. :attr:`Rows.pool` and :attr:`Rows.seen` are a seat's *view*, and
:func:`grove_env.odds.culprit_counts` its exact culprit odds; it is the same arithmetic
for the seat that observes and for the seats an agent models, so a model of a style
reproduces that style's decisions exactly. (``culprit_counts`` and ``posterior`` are
re-exported here for the agents that read rows.)

>>> from grove_env.core import Game
>>> from grove_env.observation import ObservationEncoder
>>> g = Game("classic", 4, deals=[(2, 3, 4, 6, 5, 7, 8, 0)])
>>> g.apply_action(0)                   # the first player leaves slot 0 unseen
>>> rows = Rows.of(ObservationEncoder(g.rules, 4).encode(g, 0)[None])
>>> rows.seen.tolist(), rows.pool.sum(axis=1).tolist()
([[-1, 6, 7]], [4])
>>> rows.counts.tolist()                # slot 0 is 0, 4, 5 or 6: 5 there is guilty
[[1, 0, 3]]
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cached_property

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
from grove_env.odds import NUM_VALUES, culprit_counts
from grove_env.rules import MAX_PLAYERS, RULE_SETS, RuleSet


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


def _view_weights() -> np.ndarray:
    """:data:`VIEW_WEIGHTS` (its docstring)."""
    w = np.zeros((OFF_ROUND + 1, NUM_VALUES + 3), dtype=np.float32)
    values = np.arange(NUM_VALUES)
    w[OFF_TILES_IN_PLAY + values, values] = 2.0
    for offset in (OFF_DEALT, OFF_RECEIVED, OFF_SPARE, OFF_VICTIM):
        w[offset + values, values] -= 1.0
    for slot in range(3):
        block = OFF_SEEN + NUM_VALUES * slot + values
        w[block, values] -= 1.0
        w[block, NUM_VALUES + slot] = values + 1.0
    w.flags.writeable = False
    return w


VIEW_WEIGHTS = _view_weights()
"""``float32[125, 11]``: observation rows times this matrix are their seats' views, which
:func:`split_view` reads. Columns 0-7: per tile value, twice the tiles-in-play entry (it
holds copies / 2) less the one-hot entries of every tile the seat knows (dealt,
received, spare, the three seen slots, victim). Columns 8-10: per suspect slot, the
tile index + 1 of its seen block (0 where nothing was seen). Every product and sum is
of small integers, so the product is exact in float32, whichever library computes it
(the policy network's input path computes it in torch, beside its other passes)."""


def split_view(product: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(pool int[K, 8], seen int[K, 3])`` from rows times :data:`VIEW_WEIGHTS`: the view
    of each row's own seat that :func:`grove_env.odds.culprit_counts` reads, the same as
    :attr:`Rows.pool` and :attr:`Rows.seen` (neither depends on the table, so a mixed
    batch needs no split).

    Rows that are not observations (a test's random floats) still give tile indices in
    range, so that the odds of such a row are some number rather than an IndexError."""
    view = np.rint(product).astype(np.int64)
    return view[:, :NUM_VALUES], np.clip(view[:, NUM_VALUES:] - 1, -1, NUM_VALUES - 1)


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
        """``int[K, 3]``: this seat's :func:`~grove_env.odds.culprit_counts`."""
        return culprit_counts(self.pool, self.seen)
