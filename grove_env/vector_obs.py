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
        # The observation offset of each entry, in the order encode() fills them.
        offsets = [OFF_DEALT, OFF_RECEIVED] + [OFF_SPARE] * self.has_spare
        offsets += [OFF_SEEN + 8 * slot for slot in range(3)]
        offsets += [OFF_VICTIM, OFF_UNSEEN, OFF_TAMPERED, OFF_FIRST, OFF_TO_ACT, OFF_PHASE]
        offsets += [OFF_ACCUSATIONS + 3 * k for k in range(n)]
        offsets += [OFF_COLOURED] * n + [OFF_PENALTY] * n + [OFF_ROUND]
        self.offsets = np.array(offsets, dtype=np.intp)
        self._buffers: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def _buffers_for(self, b: int, keep: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(index, value, first index)`` work arrays ``[entries, b]`` (kept if ``keep``).

        ``first index`` holds each entry's flat position for the value 0 of its field.
        """
        if b in self._buffers:
            return self._buffers[b]
        start = self.offsets[:, None] + np.arange(b, dtype=np.intp) * OBS_SIZE
        buffers = (np.empty_like(start), np.empty(start.shape, np.float32), start)
        if keep:
            self._buffers[b] = buffers
        return buffers

    def encode(
        self, st: VectorState, seats: np.ndarray, out: np.ndarray, keep: bool = True
    ) -> np.ndarray:
        """Write the observation of seat ``seats[g]`` in game ``g`` into ``out[g]``.

        ``keep=False`` for one-off batch sizes: their work arrays are not kept.
        """
        n = self.num_players
        b = len(seats)
        idx, val, start = self._buffers_for(b, keep)
        games = np.arange(b)
        e = 0

        def put(field: np.ndarray | int, value: np.ndarray | float = 1.0) -> None:
            nonlocal e
            np.add(start[e], field, out=idx[e])
            val[e] = value
            e += 1

        own = seats * b
        own += games
        nxt = own + b
        nxt[seats == n - 1] -= n * b
        dealt = st.dealt.reshape(-1)
        put(dealt.take(own))
        put(dealt.take(nxt))
        if self.has_spare:
            put(st.spare)
        # Seen suspects: the first player's look, or the look after position pos - 1.
        pos = seats - st.first
        pos[pos < 0] += n
        is_first = pos == 0
        looked = (st.num_accused >= pos) & (st.unseen >= 0)
        skipped = st.accused.reshape(-1).take((pos - 1) * b + games)  # pos 0: ignored
        skipped = np.where(is_first, st.unseen, skipped)
        forgot = np.where(is_first, st.tampered, -1)
        for slot in range(3):
            put(st.suspects[slot], looked & (skipped != slot) & (forgot != slot))
        put(st.victim, is_first & (st.tampered >= 0))
        put(np.maximum(st.unseen, 0), st.unseen >= 0)
        put(np.maximum(st.tampered, 0), st.tampered >= 0)
        rel = st.first - seats
        rel[rel < 0] += n
        put(rel)
        rel = st.current - seats
        rel[rel < 0] += n
        put(rel, st.phase != OVER)
        put(st.phase)
        for k in range(n):
            put(np.maximum(st.accused[k], 0), st.num_accused > k)
        # Counts of absolute seat x go to relative seat (x - seat) % n.
        rels = []
        for x in range(n):
            rel = x - seats
            rel[rel < 0] += n
            rels.append(rel)
        for counts in (st.coloured, st.penalty):
            for x in range(n):
                np.add(start[e], rels[x], out=idx[e])
                np.divide(counts[x], COUNT_SCALE, out=val[e], casting="same_kind")
                e += 1
        np.add(start[e], 0, out=idx[e])
        np.divide(st.round - 1, ROUND_SCALE, out=val[e], casting="same_kind")
        e += 1
        assert e == len(self.offsets)
        out[:] = self.base
        out.reshape(-1)[idx] = val
        return out
