"""Observation encoder and decoder: ``(game, seat) -> float32[OBS_SIZE]`` and back.

The vector is egocentric: "relative seat" ``r`` is the seat ``r`` places clockwise of
the observer (``r = 0`` is the observer). It is padded to 5 seats and has the same
length for every rule set and player count, so one network can play any table.
Tiles are one-hot over ``TILE_VALUES = (0, 2, 3, 4, 5, 6, 7, 8)`` (``0`` is the
blank/X); an all-zero tile block means "not known".

======= ====== ===============================================================
index   size   content
======= ====== ===============================================================
0       4      number of players, one-hot over 2, 3, 4, 5
4       6      rules: victim swap, culprit markers removed, penalty-only scoring,
               markers per player / 10, end markers held / 10, end penalty / 10
               (0 where the rule set has no such end condition)
10      8      tiles in play: count of each tile value / 2
18      8      the tile this seat was dealt (peeked, then passed right)
26      8      the tile passed to this seat (dealt to relative seat 1)
34      8      the face-up spare tile (revised two-player game), else zeros
42      24     what this seat knows is in suspect slots 0, 1, 2 (8 each)
66      8      the victim, if this seat knows it (the first player after a swap)
74      3      the unseen slot, one-hot (zeros before the look)
77      3      the tampered slot, one-hot (zeros unless swapped)
80      5      relative seat of this round's first player
85      5      relative seat to act (zeros once the game is over)
90      4      phase: look, swap, accuse, over
94      15     accusations in order: 5 positions x slot one-hot (3); position k
               is played by the seat k places after the first player
109     5      coloured markers held, per relative seat, / 10
114     5      penalty markers held, per relative seat, / 10
119     5      seat present, per relative seat (1 for r < number of players)
124     1      round number - 1, / 100
======= ====== ===============================================================

Counts and the round are the only entries that are not 0/1; they are exact
multiples, so :func:`decode` recovers them without loss.

>>> from grove_env.core import Game
>>> g = Game("classic", 4, deals=[(2, 3, 4, 6, 5, 7, 8, 0)])
>>> obs = ObservationEncoder(g.rules, 4).encode(g, 0)
>>> d = decode(obs)
>>> d.my_tiles, d.phase.name, d.num_players
((2, 3), 'LOOK', 4)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from grove_env.actions import Phase
from grove_env.core import Game
from grove_env.rules import MAX_PLAYERS, TILE_VALUES, CulpritMarkers, RuleSet, Scoring

NUM_TILE_VALUES = len(TILE_VALUES)
TILE_INDEX = {t: i for i, t in enumerate(TILE_VALUES)}
COUNT_SCALE = 10.0
ROUND_SCALE = 100.0

OFF_PLAYERS = 0
OFF_RULES = 4
OFF_TILES_IN_PLAY = 10
OFF_DEALT = 18
OFF_RECEIVED = 26
OFF_SPARE = 34
OFF_SEEN = 42
OFF_VICTIM = 66
OFF_UNSEEN = 74
OFF_TAMPERED = 77
OFF_FIRST = 80
OFF_TO_ACT = 85
OFF_PHASE = 90
OFF_ACCUSATIONS = 94
OFF_COLOURED = 109
OFF_PENALTY = 114
OFF_PRESENT = 119
OFF_ROUND = 124
OBS_SIZE = 125

# Upper bounds for the observation Box: one-hots are in [0, 1], counts and round are not.
OBS_HIGH = np.ones(OBS_SIZE, dtype=np.float32)
OBS_HIGH[OFF_RULES + 3 : OFF_RULES + 6] = np.inf
OBS_HIGH[OFF_TILES_IN_PLAY : OFF_TILES_IN_PLAY + NUM_TILE_VALUES] = np.inf
OBS_HIGH[OFF_COLOURED : OFF_PENALTY + MAX_PLAYERS] = np.inf
OBS_HIGH[OFF_ROUND] = np.inf


def rules_features(rules: RuleSet) -> list[float]:
    """The six rule-set entries at ``OFF_RULES`` (see the index table)."""
    return [
        float(rules.victim_swap),
        float(rules.culprit_markers is CulpritMarkers.REMOVE),
        float(rules.scoring is Scoring.PENALTY),
        rules.markers_per_player / COUNT_SCALE,
        (rules.end_markers_held or 0) / COUNT_SCALE,
        (rules.end_penalty_held or 0) / COUNT_SCALE,
    ]


class ObservationEncoder:
    """Writes a seat's information state into a vector, for one rule set and table size.

    The parts that never change within a game (player count, rules, tiles in play,
    seats present) are computed once and copied in.
    """

    def __init__(self, rules: RuleSet, num_players: int) -> None:
        self.rules = rules
        self.num_players = rules.check_players(num_players)
        base = np.zeros(OBS_SIZE, dtype=np.float32)
        base[OFF_PLAYERS + num_players - 2] = 1.0
        base[OFF_RULES : OFF_RULES + 6] = rules_features(rules)
        for t in rules.tiles(num_players):
            base[OFF_TILES_IN_PLAY + TILE_INDEX[t]] += 0.5
        base[OFF_PRESENT : OFF_PRESENT + num_players] = 1.0
        self.base = base
        self._order = [
            [(seat + r) % num_players for r in range(num_players)] for seat in range(num_players)
        ]

    def encode(self, game: Game, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """Encode what ``seat`` knows of ``game`` into ``out`` (allocated if ``None``)."""
        if out is None:
            out = self.base.copy()
        else:
            out[:] = self.base
        n = self.num_players
        # The 0/1 entries go into one list of indices that land in one put(); the counts,
        # a handful of scalars that are mostly zero, are written one by one where non-zero.
        idx = [
            OFF_DEALT + TILE_INDEX[game.dealt[seat]],
            OFF_RECEIVED + TILE_INDEX[game.dealt[(seat + 1) % n]],
            OFF_FIRST + (game.first_player - seat) % n,
            OFF_PHASE + int(game.phase),
        ]
        if game.spare is not None:
            idx.append(OFF_SPARE + TILE_INDEX[game.spare])
        for slot, tile in enumerate(game.seen[seat]):
            if tile is not None:
                idx.append(OFF_SEEN + 8 * slot + TILE_INDEX[tile])
        if game.victim_known_by == seat and game.victim is not None:
            idx.append(OFF_VICTIM + TILE_INDEX[game.victim])
        if game.unseen_slot is not None:
            idx.append(OFF_UNSEEN + game.unseen_slot)
        if game.tampered_slot is not None:
            idx.append(OFF_TAMPERED + game.tampered_slot)
        if not game.terminal:
            idx.append(OFF_TO_ACT + (game.current_player - seat) % n)
        for k, (_, slot) in enumerate(game.accusations):
            idx.append(OFF_ACCUSATIONS + 3 * k + slot)
        out.put(idx, 1.0)
        coloured, penalty = game.coloured, game.penalty
        for r, s in enumerate(self._order[seat]):
            if coloured[s]:
                out[OFF_COLOURED + r] = coloured[s] / COUNT_SCALE
            if penalty[s]:
                out[OFF_PENALTY + r] = penalty[s] / COUNT_SCALE
        if game.round != 1:
            out[OFF_ROUND] = (game.round - 1) / ROUND_SCALE
        return out


@dataclass(frozen=True)
class DecodedObservation:
    """A readable form of one observation vector; seats are relative to the observer."""

    num_players: int
    victim_swap: bool
    culprit_markers_removed: bool
    penalty_scoring: bool
    markers_per_player: int
    end_markers_held: int
    """Game ends when a seat holds this many markers (0: not a condition)."""
    end_penalty_held: int
    """Game ends when a seat holds this many penalty markers (0: not a condition)."""
    tiles_in_play: tuple[int, ...]
    my_tiles: tuple[int, int]
    spare: int | None
    seen: tuple[int | None, int | None, int | None]
    victim: int | None
    unseen_slot: int | None
    tampered_slot: int | None
    first_player: int
    to_act: int | None
    phase: Phase
    accusations: tuple[tuple[int, int], ...]
    coloured: tuple[int, ...]
    penalty: tuple[int, ...]
    round: int

    @property
    def scoring(self) -> Scoring:
        """Which count is the score, as the rule set's :class:`~grove_env.rules.Scoring`."""
        return Scoring.PENALTY if self.penalty_scoring else Scoring.ALL_MARKERS

    @property
    def stacks(self) -> tuple[tuple[int, ...], ...]:
        """Relative seats per suspect slot, bottom to top."""
        stacks: list[list[int]] = [[], [], []]
        for seat, slot in self.accusations:
            stacks[slot].append(seat)
        return tuple(tuple(s) for s in stacks)


def _tile(block: np.ndarray) -> int | None:
    hits = np.flatnonzero(block)
    return TILE_VALUES[int(hits[0])] if hits.size else None


def _slot(block: np.ndarray) -> int | None:
    hits = np.flatnonzero(block)
    return int(hits[0]) if hits.size else None


def _count(x: float) -> int:
    return int(round(float(x) * COUNT_SCALE))


def decode(obs: np.ndarray) -> DecodedObservation:
    """Turn an observation vector back into a :class:`DecodedObservation`."""
    obs = np.asarray(obs)
    if obs.shape != (OBS_SIZE,):
        raise ValueError(f"an observation has shape ({OBS_SIZE},), got {obs.shape}")
    n = int(np.flatnonzero(obs[OFF_PLAYERS : OFF_PLAYERS + 4])[0]) + 2
    tiles: list[int] = []
    for i, t in enumerate(TILE_VALUES):
        tiles.extend([t] * int(round(obs[OFF_TILES_IN_PLAY + i] * 2)))
    first = _slot(obs[OFF_FIRST : OFF_FIRST + MAX_PLAYERS])
    assert first is not None
    accusations = []
    for k in range(MAX_PLAYERS):
        slot = _slot(obs[OFF_ACCUSATIONS + 3 * k : OFF_ACCUSATIONS + 3 * k + 3])
        if slot is None:
            break
        accusations.append(((first + k) % n, slot))
    dealt = _tile(obs[OFF_DEALT : OFF_DEALT + 8])
    received = _tile(obs[OFF_RECEIVED : OFF_RECEIVED + 8])
    assert dealt is not None and received is not None
    seen = [_tile(obs[OFF_SEEN + 8 * s : OFF_SEEN + 8 * s + 8]) for s in range(3)]
    return DecodedObservation(
        num_players=n,
        victim_swap=bool(obs[OFF_RULES]),
        culprit_markers_removed=bool(obs[OFF_RULES + 1]),
        penalty_scoring=bool(obs[OFF_RULES + 2]),
        markers_per_player=_count(obs[OFF_RULES + 3]),
        end_markers_held=_count(obs[OFF_RULES + 4]),
        end_penalty_held=_count(obs[OFF_RULES + 5]),
        tiles_in_play=tuple(tiles),
        my_tiles=(dealt, received),
        spare=_tile(obs[OFF_SPARE : OFF_SPARE + 8]),
        seen=(seen[0], seen[1], seen[2]),
        victim=_tile(obs[OFF_VICTIM : OFF_VICTIM + 8]),
        unseen_slot=_slot(obs[OFF_UNSEEN : OFF_UNSEEN + 3]),
        tampered_slot=_slot(obs[OFF_TAMPERED : OFF_TAMPERED + 3]),
        first_player=first,
        to_act=_slot(obs[OFF_TO_ACT : OFF_TO_ACT + MAX_PLAYERS]),
        phase=Phase(int(np.flatnonzero(obs[OFF_PHASE : OFF_PHASE + 4])[0])),
        accusations=tuple(accusations),
        coloured=tuple(_count(obs[OFF_COLOURED + r]) for r in range(n)),
        penalty=tuple(_count(obs[OFF_PENALTY + r]) for r in range(n)),
        round=int(round(float(obs[OFF_ROUND]) * ROUND_SCALE)) + 1,
    )
