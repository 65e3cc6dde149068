"""Batched observation encoder: ``(VectorState, seats) -> float32[B, OBS_SIZE]``.

The encoding is exactly :meth:`grove_env.observation.ObservationEncoder.encode`
(same index table), for one seat per game. Each row starts as the encoder's constant
``base`` row; every other entry of a row is one ``(index, value)`` pair, a fixed
number of them per row, scattered in one assignment. An entry that is absent (an
unknown suspect, no unseen slot yet, an accusation still to come) is written as a
``0.0`` at the place its one-hot would have been, which no other entry touches.
"""

from __future__ import annotations

import itertools

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
from grove_env.resolution import SLOTS, unseen_by
from grove_env.rules import RuleSet
from grove_env.vector.state import OVER, VectorState


class VectorEncoder:
    """Writes one seat's observation per game, for one rule set and table size."""

    def __init__(self, rules: RuleSet, num_players: int) -> None:
        self.rules = rules
        self.num_players = n = num_players
        self.has_spare = rules.has_spare(n)
        self.base = ObservationEncoder(rules, n).base
        # Entries in the order encode() fills them: (name, observation offsets).
        spare = [OFF_SPARE] if self.has_spare else []
        layout = [
            ("tiles", [OFF_DEALT, OFF_RECEIVED, *spare]),
            ("seen", [OFF_SEEN + 8 * slot for slot in range(3)]),
            ("victim", [OFF_VICTIM]),
            ("marks", [OFF_UNSEEN, OFF_TAMPERED]),
            ("first", [OFF_FIRST]),
            ("to_act", [OFF_TO_ACT]),
            ("phase", [OFF_PHASE]),
            ("accusations", [OFF_ACCUSATIONS + 3 * k for k in range(n)]),
            ("counts", [OFF_COLOURED] * n + [OFF_PENALTY] * n),
            ("round", [OFF_ROUND]),
        ]
        self.rows: dict[str, slice] = {}
        offsets: list[int] = []
        for name, offs in layout:
            self.rows[name] = slice(len(offsets), len(offsets) + len(offs))
            offsets += offs
        self.offsets = np.array(offsets, dtype=np.intp)
        self._positions = np.arange(n)[:, None]
        self._mod = np.arange(2 * n) % n  # x % n for 0 <= x < 2n
        self._next = (np.arange(n) + 1) % n
        self._buffers: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}

    def _buffers_for(
        self, b: int, keep: bool
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(field, value, index, start)`` work arrays ``[entries, b]`` (kept if ``keep``).

        An entry's flat index in the output is ``start + field``: ``start`` is the flat
        position of the field's block in its row. Entries whose value is always 1 keep
        it from one call to the next.
        """
        if b in self._buffers:
            return self._buffers[b]
        start = self.offsets[:, None] + np.arange(b, dtype=np.intp) * OBS_SIZE
        field = np.zeros_like(start)
        buffers = (field, np.ones(start.shape, np.float32), np.empty_like(start), start)
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
        field, value, index, start = self._buffers_for(b, keep)
        rows = self.rows
        games = np.arange(b)

        # (x - seat) % n for any seat x, by table: mod[x + shift] with shift = n - seat.
        mod = self._mod
        shift = n - seats
        tiles = field[rows["tiles"]]
        dealt = st.dealt.reshape(-1)
        at = seats * b
        at += games
        np.take(dealt, at, out=tiles[0])
        at = self._next.take(seats)
        at *= b
        at += games
        np.take(dealt, at, out=tiles[1])
        if self.has_spare:
            tiles[2] = st.spare

        first = field[rows["first"]][0]
        np.take(mod, st.first_player + shift, out=first)
        to_act = field[rows["to_act"]][0]
        np.take(mod, st.current_player + shift, out=to_act)
        np.not_equal(st.phase, OVER, out=value[rows["to_act"]][0])
        field[rows["phase"]] = st.phase

        # Seen suspects (once the seat has looked), from the table of unseen_by.
        pos = mod.take(n - first)  # the seat's position in this round's order
        looked = st.num_accusations >= pos
        looked &= st.unseen_slot >= 0
        code = np.minimum(pos, 1)
        pos -= 1
        pos *= b
        pos += games
        code *= 4
        code += st.unseen_slot
        code *= 4
        code += st.tampered_slot
        code *= 4
        code += st.accusations.reshape(-1).take(pos)  # position -1: ignored
        code += _SEEN_CODE_SHIFT
        field[rows["seen"]] = st.suspects
        known = value[rows["seen"]]
        np.take(_SEEN, code, axis=1, out=known)
        known *= looked

        field[rows["victim"]] = st.victim
        np.logical_and(first == 0, st.tampered_slot >= 0, out=value[rows["victim"]])
        marks = field[rows["marks"]]
        marks[0] = st.unseen_slot
        marks[1] = st.tampered_slot
        np.greater_equal(marks, 0, out=value[rows["marks"]])
        np.maximum(marks, 0, out=marks)

        accusations = field[rows["accusations"]]
        np.maximum(st.accusations, 0, out=accusations)
        np.greater(st.num_accusations, self._positions, out=value[rows["accusations"]])

        # Counts of absolute seat x go to relative seat (x - seat) % n.
        counts = field[rows["counts"]]
        np.take(mod, self._positions + shift, out=counts[:n])
        counts[n:] = counts[:n]
        both = value[rows["counts"]]
        np.divide(st.coloured, COUNT_SCALE, out=both[:n], casting="same_kind")
        np.divide(st.penalty, COUNT_SCALE, out=both[n:], casting="same_kind")
        np.divide(st.round - 1, ROUND_SCALE, out=value[rows["round"]][0], casting="same_kind")

        np.add(start, field, out=index)
        out[:] = self.base
        out.reshape(-1)[index] = value
        return out


def _seen_table() -> np.ndarray:
    """float32[3, 2 * 4 * 4 * 4]: 1 where a seat that has looked saw the slot, by
    :func:`grove_env.resolution.unseen_by`, at the column
    ``((later * 4 + unseen + 1) * 4 + tampered + 1) * 4 + previous + 1``: ``later`` 0
    for the first player, 1 for the others, ``previous`` the slot accused just before
    the seat (any for the first player), slots ``-1`` where none."""
    table = np.zeros((3, 2 * 4 * 4 * 4), dtype=np.float32)
    slots = range(-1, 3)
    for later, unseen, tampered, previous in itertools.product((0, 1), slots, slots, slots):
        code = ((later * 4 + unseen + 1) * 4 + tampered + 1) * 4 + previous + 1
        hidden = unseen_by(later, unseen, tampered if tampered >= 0 else None, previous)
        table[:, code] = [slot not in hidden for slot in SLOTS]
    return table


_SEEN = _seen_table()
_SEEN_CODE_SHIFT = (1 * 4 + 1) * 4 + 1  # the + 1 of every slot in the column code
