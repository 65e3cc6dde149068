"""Batched observation encoder: ``(VectorState, seats) -> float32[B, OBS_SIZE]``.

The encoding is exactly :meth:`grove_env.observation.ObservationEncoder.encode`
(same index table), for one seat per game. Each row starts as the encoder's constant
``base`` row; every other entry of a row is one ``(index, value)`` pair, a fixed
number of them per row, scattered in one assignment. An entry that is absent (an
unknown suspect, no unseen slot yet, an accusation still to come) is written as a
``0.0`` at the place its one-hot would have been, which no other entry touches.
"""

from __future__ import annotations

import numpy as np

from grove_env.observation import (
    COUNT_SCALE,
    OBS_SIZE,
    OFF_ACCUSATIONS,
    OFF_COLOURED,
    OFF_DEALT,
    OFF_FIRST,
    OFF_PENALTY,
    OFF_PHASE,
    OFF_RECEIVED,
    OFF_ROUND,
    OFF_SEEN,
    OFF_SPARE,
    OFF_TAMPERED,
    OFF_TO_ACT,
    OFF_UNSEEN,
    OFF_VICTIM,
    ROUND_SCALE,
    ObservationEncoder,
)
from grove_env.rules import RuleSet
from grove_env.vector_state import OVER, VectorState


class VectorEncoder:
    """Writes one seat's observation per game, for one rule set and table size."""

    def __init__(self, rules: RuleSet, num_players: int) -> None:
        self.rules = rules
        self.num_players = n = num_players
        self.has_spare = rules.has_spare(n)
        self.base = ObservationEncoder(rules, n).base
        # Entries per row: dealt, received, [spare], 3 seen, victim, unseen, tampered,
        # first, to act, phase, n accusations, n coloured, n penalty, round.
        self.num_entries = 11 + int(self.has_spare) + 3 * n + 1
        self._buffers: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def _buffers_for(self, b: int, keep: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(index, value, row offset)`` work arrays for ``b`` rows (kept if ``keep``)."""
        if b in self._buffers:
            return self._buffers[b]
        idx = np.empty((self.num_entries, b), dtype=np.intp)
        val = np.ones((self.num_entries, b), dtype=np.float32)
        rows = np.arange(b, dtype=np.intp) * OBS_SIZE
        if keep:
            self._buffers[b] = (idx, val, rows)
        return idx, val, rows

    def encode(
        self, st: VectorState, seats: np.ndarray, out: np.ndarray, keep: bool = True
    ) -> np.ndarray:
        """Write the observation of seat ``seats[g]`` in game ``g`` into ``out[g]``.

        ``keep=False`` for one-off batch sizes: their work arrays are not kept.
        """
        n = self.num_players
        b = len(seats)
        idx, val, row_off = self._buffers_for(b, keep)
        games = np.arange(b)
        nxt = seats + 1
        nxt[nxt == n] = 0
        pos = seats - st.first  # the seat's position in this round's order
        pos[pos < 0] += n
        e = 0

        def put(index: np.ndarray | int, value: np.ndarray | float | None = None) -> None:
            nonlocal e
            np.add(index, row_off, out=idx[e])
            if value is not None:
                val[e] = value
            else:
                val[e] = 1.0
            e += 1

        put(st.dealt[games, seats] + OFF_DEALT)
        put(st.dealt[games, nxt] + OFF_RECEIVED)
        if self.has_spare:
            put(st.spare + OFF_SPARE)
        # Seen suspects: the first player's look, or the look after position pos - 1.
        first_looked = st.unseen >= 0
        is_first = pos == 0
        prev = st.accused[games, np.maximum(pos - 1, 0)]
        later_looked = st.num_accused >= pos
        for slot in range(3):
            known_first = first_looked & (st.unseen != slot) & (st.tampered != slot)
            known_later = later_looked & (prev != slot)
            known = np.where(is_first, known_first, known_later)
            put(st.suspects[:, slot] + (OFF_SEEN + 8 * slot), known)
        put(st.victim + OFF_VICTIM, (st.tampered >= 0) & is_first)
        put(np.maximum(st.unseen, 0) + OFF_UNSEEN, st.unseen >= 0)
        put(np.maximum(st.tampered, 0) + OFF_TAMPERED, st.tampered >= 0)
        put(((st.first - seats) % n) + OFF_FIRST)
        put(((st.current - seats) % n) + OFF_TO_ACT, st.phase != OVER)
        put(st.phase + OFF_PHASE)
        for k in range(n):
            put(np.maximum(st.accused[:, k], 0) + (OFF_ACCUSATIONS + 3 * k), st.num_accused > k)
        order = seats[:, None] + np.arange(n)
        order[order >= n] -= n
        coloured = st.coloured[games[:, None], order].T / COUNT_SCALE
        penalty = st.penalty[games[:, None], order].T / COUNT_SCALE
        for r in range(n):
            put(OFF_COLOURED + r, coloured[r])
        for r in range(n):
            put(OFF_PENALTY + r, penalty[r])
        put(OFF_ROUND, (st.round - 1) / ROUND_SCALE)
        assert e == self.num_entries
        out[:] = self.base
        out.reshape(-1)[idx] = val
        return out
