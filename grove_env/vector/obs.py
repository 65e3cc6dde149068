"""Batched observation encoder: ``(VectorState, seats) -> float32[B, OBS_SIZE]``.

The encoding is exactly :meth:`grove_env.observation.ObservationEncoder.encode`
(same index table), for one seat per game. An observation is five chunks of 25
entries, and each chunk is a row of a table (:mod:`.obs_tables`) picked by a code: the
sum of a few small digits of the game (the seat's tiles, what it saw, the unseen and
tampered slots, the first player, the player to act and the phase, the accusations),
each times its place. The codes of all games come from whole-row arithmetic on the
state, and one ``np.take`` of the table writes every chunk of every row, straight into
the output. The counts and the round, the only entries that are not one-hots, are
written over the last chunk after.

=====================  ==============================================================
``encode``             fills ``out``; work arrays are kept per batch size
``_codes``             the five chunk codes of every game (``_seen_digits`` within)
``_counts``            markers per relative seat and the round
=====================  ==============================================================

Why tables: the encoder before filled every row with the constant ``base`` and then
scattered the twenty-odd other entries of each row one by one, about 100,000 scattered
writes at B = 4096; the table's take copies 20,480 rows of 100 bytes instead. Codes
are in range by construction, so the take skips its bounds check (``mode="wrap"``);
``tests/vector/test_vector.py`` compares every seat's observation with grove_v1's at every
step of thousands of games.
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

import numpy as np

from grove_env.observation import (
    COUNT_SCALE,
    OBS_SIZE,
    OFF_COLOURED,
    OFF_PENALTY,
    OFF_ROUND,
    ROUND_SCALE,
    ObservationEncoder,
)
from grove_env.resolution import SLOTS, unseen_by
from grove_env.rules import RuleSet
from grove_env.vector.obs_tables import CHUNK, CHUNKS, chunk_layout, chunk_tables
from grove_env.vector.state import VectorState


class _Work:
    """Work arrays of one batch size, kept from one call to the next."""

    def __init__(self, b: int, num_players: int) -> None:
        n = num_players
        self.games = np.arange(b)
        self.games_before = self.games - b  # flat index of position -1 (read, ignored)
        self.rows = (np.arange(n) * b)[:, None]  # flat start of each seat's row
        self.at = np.empty(b, dtype=np.intp)
        self.rotated = np.empty((n, b), dtype=np.intp)
        self.codes = np.empty((b, CHUNKS), dtype=np.intp)
        self.counts = np.empty((2 * n, b), dtype=np.float32)
        self.round = np.empty(b, dtype=np.int64)


class VectorEncoder:
    """Writes one seat's observation per game, for one rule set and table size."""

    def __init__(self, rules: RuleSet, num_players: int) -> None:
        self.rules = rules
        self.num_players = n = num_players
        self.has_spare = rules.has_spare(n)
        self.swap = rules.victim_swap
        self.base = ObservationEncoder(rules, n).base
        self.table, self._constants = chunk_tables(self.base, n, self.has_spare, self.swap)
        place = self._place = self._places(chunk_layout(n, self.has_spare, self.swap))
        # Places folded into tables and weights, so that those digits are added as read.
        accused = [place[3 if k < 2 else 4][f"accused_{k}"] for k in range(n)]
        self._accused_places = np.array(accused)[:, None]
        slot_places = [place[1]["seen_0"], place[2]["seen_1"], place[2]["seen_2"]]
        self._seen = _seen_table(n, slot_places, place[2].get("victim", 0))
        rel = np.arange(n)  # (x - seat) % n is rel[x - seat] ('wrap')
        self._behind = -rel % n  # (seat - x) % n is behind[x - seat] ('wrap')
        turn = place[3]["turn"]  # turn = (first * n + to_act) * 4 + phase
        self._turn_first = rel * (4 * n * turn)
        self._turn_to_act = rel * (4 * turn)
        self._work: dict[int, _Work] = {}

    def _places(self, layout: list[tuple[list[str], list[int]]]) -> list[dict[str, int]]:
        """Each chunk's digits and places, checked to be those :meth:`_codes` adds."""
        spare = ["spare"] if self.has_spare else []
        victim, tampered = (["victim"], ["tampered"]) if self.swap else ([], [])
        expected = [
            ["dealt"],
            ["dealt", "received", *spare, "seen_0"],
            [*victim, "unseen", "seen_1", "seen_2"],
            ["unseen", *tampered, "turn", "accused_0", "accused_1"],
            [f"accused_{k}" for k in range(2, self.num_players)],
        ]
        assert [names for names, _ in layout] == expected, "_codes adds these digits"
        place = [dict(zip(names, places)) for names, places in layout]
        assert not self.swap or place[3]["unseen"] == 4 * place[3]["tampered"]
        return place

    def encode(
        self, st: VectorState, seats: np.ndarray, out: np.ndarray, keep: bool = True
    ) -> np.ndarray:
        """Write the observation of seat ``seats[g]`` in game ``g`` into ``out[g]``.

        ``out`` is a C-contiguous float32 ``[B, OBS_SIZE]``. ``keep=False`` for one-off
        batch sizes: their work arrays are not kept.
        """
        b = len(seats)
        work = self._work.get(b) or _Work(b, self.num_players)
        if keep:
            self._work[b] = work
        np.multiply(seats, b, out=work.at)  # the seat's entry, flat in an [n, B] array
        work.at += work.games
        self._codes(st, seats, work)
        np.take(self.table, work.codes, axis=0, out=out.reshape(b, CHUNKS, CHUNK), mode="wrap")
        self._counts(st, work, out)
        return out

    def _codes(self, st: VectorState, seats: np.ndarray, work: _Work) -> None:
        """Each game's row of each chunk's table, into ``work.codes``: the sum of each
        digit of the chunk times its place (:func:`.obs_tables.chunk_layout`)."""
        b, place, constant, codes = len(seats), self._place, self._constants, work.codes
        dealt = st.dealt.reshape(-1)
        dealt_here = dealt.take(work.at)
        np.add(dealt_here, constant[0], out=codes[:, 0])

        code = dealt_here * place[1]["dealt"]
        code += dealt.take(work.at + b, mode="wrap") * place[1]["received"]
        if self.has_spare:
            code += st.spare * place[1]["spare"]
        first = st.first_player - seats
        unseen_tampered = st.unseen_slot * 4
        unseen_tampered += st.tampered_slot
        seen = self._seen_digits(st, first, unseen_tampered, work)
        code += seen[0]
        np.add(code, constant[1], out=codes[:, 1])

        code = np.add(seen[1], seen[2])
        if self.swap:
            code += seen[3]
        code += st.unseen_slot * place[2]["unseen"]
        np.add(code, constant[2], out=codes[:, 2])

        if self.swap:  # the place of unseen is 4 times that of tampered
            code = unseen_tampered * place[3]["tampered"]
        else:
            code = st.unseen_slot * place[3]["unseen"]
        code += self._turn_first.take(first, mode="wrap")
        code += self._turn_to_act.take(st.current_player - seats, mode="wrap")
        code += st.phase * place[3]["turn"]
        accused = st.accusations * self._accused_places
        code += accused[0]
        code += accused[1]
        np.add(code, constant[3], out=codes[:, 3])

        np.add(accused[2:].sum(axis=0), constant[4], out=codes[:, 4])

    def _seen_digits(
        self, st: VectorState, first: np.ndarray, unseen_tampered: np.ndarray, work: _Work
    ) -> np.ndarray:
        """int64[4, B]: tile index + 1 in each suspect slot where the seat saw it, and of
        the victim where it knows it, else 0; times their places in their chunks.

        ``first`` is the first player less the seat, ``unseen_tampered`` the unseen slot
        * 4 + the tampered slot.
        """
        n, b = self.num_players, len(first)
        pos = self._behind.take(first, mode="wrap")  # the seat's position in the round
        code = pos * (n + 1)
        code += st.num_accusations
        code = self._seen.start.take(code)
        code += unseen_tampered
        code *= 4
        pos *= b
        pos += work.games_before
        code += st.accusations.reshape(-1).take(pos)  # position -1: ignored
        seen = self._seen.known.take(code, axis=1)
        seen[:3] *= st.suspects + 1
        if self.swap:
            seen[3] *= st.victim + 1
        return seen

    def _counts(self, st: VectorState, work: _Work, out: np.ndarray) -> None:
        """Markers held per relative seat, and the round, over the last chunk."""
        n = self.num_players
        rotated, counts = work.rotated, work.counts
        np.add(work.rows, work.at, out=rotated)  # relative seat r's entry, flat ('wrap')
        np.divide(st.coloured.reshape(-1).take(rotated, mode="wrap"), COUNT_SCALE, out=counts[:n])
        np.divide(st.penalty.reshape(-1).take(rotated, mode="wrap"), COUNT_SCALE, out=counts[n:])
        for r in range(n):
            out[:, OFF_COLOURED + r] = counts[r]
            out[:, OFF_PENALTY + r] = counts[n + r]
        np.subtract(st.round, 1, out=work.round)
        np.divide(work.round, ROUND_SCALE, out=out[:, OFF_ROUND])


class _SeenTable(NamedTuple):
    start: np.ndarray
    known: np.ndarray


def _seen_table(num_players: int, slot_places: list[int], victim_place: int) -> _SeenTable:
    """What a seat has seen, by :func:`grove_env.resolution.unseen_by`.

    ``start[pos * (n + 1) + num_accusations]`` starts the code of a seat at position
    ``pos`` of the round: ``(looked * 2 + later) * 16``, ``looked`` 1 once the seat's
    turn to look has come, ``later`` 1 for the seats after the first player. The code
    goes on as ``(start + unseen * 4 + tampered) * 4 + previous``, slots ``-1..2``
    (``-1`` for none; ``previous`` is the slot accused just before the seat, any for
    the first player), and ``known[:, code]`` (a negative code counting from the end,
    as ``np.take`` reads it; codes run from -21 to 234, so none meets another) holds,
    for suspect slots 0, 1, 2, the slot's place in its chunk where the seat saw it,
    else 0, and for the victim its place where the seat knows it (the first player
    after a swap). A seat sees nothing before the first player's look (``unseen`` -1).
    """
    n = num_players
    start = np.zeros(n * (n + 1), dtype=np.int64)
    for pos, made in itertools.product(range(n), range(n + 1)):
        start[pos * (n + 1) + made] = ((made >= pos) * 2 + (pos > 0)) * 16
    known = np.zeros((4, 256), dtype=np.int64)
    written = set()
    slots = range(-1, 3)
    for begin, unseen, tampered, previous in itertools.product(range(4), slots, slots, slots):
        code = (begin * 16 + unseen * 4 + tampered) * 4 + previous
        assert code % 256 not in written
        written.add(code % 256)
        looked, later = begin >= 2, begin % 2
        if looked and unseen >= 0:
            hidden = unseen_by(later, unseen, tampered if tampered >= 0 else None, previous)
            known[:3, code] = [(slot not in hidden) * slot_places[slot] for slot in SLOTS]
        known[3, code] = victim_place * (not later and tampered >= 0)
    return _SeenTable(start, known)


assert OBS_SIZE == CHUNKS * CHUNK
