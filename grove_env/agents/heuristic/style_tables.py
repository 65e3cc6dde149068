"""The heuristic's model of the styles as look-ups: the views of the seats as codes,
the styles' decisions as tables over them.

A view is a code (:class:`grove_env.odds.ViewCoder`), the sum of what its parts add,
so the views of every seat in every deal are a few additions of codes that the deals
share (:class:`SeatCodes`, :func:`earlier_classes`, :func:`later_classes`); and views
fall into a few hundred classes of culprit counts. A style decides from its counts,
the stacks and the previous accusation, so :func:`decisions` tables the style's own
:func:`~grove_env.agents.scripted.styles.accusation` once over those classes, and
:func:`bluffer_swaps` the bluffer's swap over every view. Used by
:mod:`grove_env.agents.heuristic.style_model`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from grove_env.odds import ViewCoder, every_view, table_radix, view_coder
from grove_env.rules import MAX_PLAYERS, RuleSet

from ..scripted.styles import accusation, bluffer_swap
from ..views.possible_deals import Deals
from ..views.rows import Rows, hot


@dataclass(frozen=True, eq=False)
class SeatCodes:
    """What the views of the seats of rows share, as codes
    (:class:`~grove_env.odds.ViewCoder`): ``base`` (``int64[K, 1]``) the pool of every
    tile in play but the spare, ``shown`` (``int64[K, D, 3]``) what seeing each suspect
    of each deal adds. No view's pool holds more of a tile than ``base``, so one coder
    holds them all."""

    coder: ViewCoder
    base: np.ndarray
    deals: Deals

    @classmethod
    def of(cls, rows: Rows, deals: Deals) -> SeatCodes:
        unknown = rows.in_play - hot(rows.spare)
        radix = table_radix(unknown)
        if radix is None:
            raise ValueError("the rows' tiles in play are not those of a table")
        coder = view_coder(radix)
        return cls(coder, coder.pool(unknown)[:, None], deals)

    @cached_property
    def shown(self) -> np.ndarray:
        return self.coder.shown(self.deals.suspects)

    def peeked(self, seat: int) -> np.ndarray:
        """``int64[K, D]``: the code of the two tiles relative seat ``seat`` peeked."""
        dealt = self.deals.dealt
        n = dealt.shape[2]
        tile = self.coder.tile
        return tile.take(dealt[:, :, seat] + 1) + tile.take(dealt[:, :, (seat + 1) % n] + 1)


def slot_sum(x: np.ndarray) -> np.ndarray:
    """``x[..., 0] + x[..., 1] + x[..., 2]`` (without a reduction's cost per row)."""
    return x[..., 0] + x[..., 1] + x[..., 2]


def earlier_classes(rows: Rows, codes: SeatCodes, i: int) -> np.ndarray:
    """``int32[K, D]``: the class of the culprit counts (``codes.coder.classes``) of the
    seat that accused at position ``i``."""
    n, position = rows.num_players, int(rows.position[0])
    slots = np.arange(3)
    if i == 0:
        hidden = (slots == rows.unseen[:, None]) | (slots == rows.tampered[:, None])
        victim = np.where(rows.tampered[:, None] >= 0, codes.deals.victim + 1, 0)
    else:
        hidden = slots == rows.accused[:, i - 1, None]
        victim = np.zeros((1, 1), dtype=np.int64)
    shown = np.where(hidden[:, None, :], 0, codes.shown)
    code = codes.base - codes.peeked((i - position) % n) - codes.coder.tile.take(victim)
    return codes.coder.of_view.take(code + slot_sum(shown))


def later_classes(rows: Rows, codes: SeatCodes) -> np.ndarray:
    """``int32[later, K, D, 3 previous]``: the class of the culprit counts
    (``codes.coder.classes``) of the later seats (relative seats ``1 .. later``) after
    they looked, for each slot the seat before may have accused (the one it does not
    see).

    A seat does not know the tiles of its pool: every tile but its peeked ones, the
    spare and the two suspects it saw, so the hidden suspect is in its pool.
    """
    later = rows.num_players - 1 - int(rows.position[0])
    every = codes.base + slot_sum(codes.shown)  # [K, D]: all three suspects seen
    code = np.stack([every - codes.peeked(seat) for seat in range(1, later + 1)])
    return codes.coder.of_view.take(code[..., None] - codes.shown)


@lru_cache(maxsize=16)
def bluffer_swaps(coder: ViewCoder) -> np.ndarray:
    """``int8[views]``: the slot the bluffer exchanges the victim with (``-1``: none), by
    the code of its view before the swap: a table of the style's own
    :func:`~grove_env.agents.scripted.styles.bluffer_swap`, made once per coder."""
    pool, seen = every_view(coder.radix)
    table = bluffer_swap(pool, seen, seen >= 0).astype(np.int8)
    table.flags.writeable = False
    return table


HEIGHT_BASE = MAX_PLAYERS
"""Stacks are coded in this base: before a seat accuses, at most ``n - 1`` markers lie."""

HEIGHT_STEP = HEIGHT_BASE ** np.arange(3)
"""What one more marker under each slot adds to the code of the stacks."""

HEIGHT_CODES = HEIGHT_BASE**3


class _RulesKey:
    """A rule set as a cache key (a ``RuleSet`` holds dicts, so it has no hash)."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules, self.text = rules, repr(rules)

    def __hash__(self) -> int:
        return hash(self.text)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _RulesKey) and self.rules == other.rules


def decisions(style: str, later: int, coder: ViewCoder, rules: RuleSet) -> np.ndarray:
    """``int8[U * 4 * HEIGHT_CODES]``: the slot a seat of ``style`` with ``later`` seats
    after it accuses, for every class of its culprit counts (``coder.classes``), previous
    accusation and code of the stacks, at :func:`decision_index`: a table of the style's
    own :func:`~grove_env.agents.scripted.styles.accusation`, made once per coder."""
    return _decisions(style, later, coder, _rules_key(rules))


def _rules_key(rules: RuleSet) -> _RulesKey:
    key = _RULES_KEYS.get(id(rules))
    if key is None or key.rules is not rules:
        key = _RULES_KEYS[id(rules)] = _RulesKey(rules)
    return key


_RULES_KEYS: dict[int, _RulesKey] = {}


@lru_cache(maxsize=256)
def _decisions(style: str, later: int, coder: ViewCoder, key: _RulesKey) -> np.ndarray:
    heights = np.arange(HEIGHT_CODES)[:, None] // HEIGHT_STEP % HEIGHT_BASE  # [H, 3]
    counts = coder.classes[:, None, None, :]
    previous = np.arange(-1, 3)[None, :, None]
    slot = accusation(style, counts, heights[None, None], previous, later, None, key.rules)
    table = np.broadcast_to(slot, (len(counts), 4, HEIGHT_CODES)).astype(np.int8).reshape(-1)
    table.flags.writeable = False
    return table


def decision_index(ids: np.ndarray, previous: np.ndarray, stacks: np.ndarray | int) -> np.ndarray:
    """Where :func:`decisions` holds a seat's slot: ``ids`` the class of its counts,
    ``previous`` the slot accused before it (``-1``: none), ``stacks`` their code
    (``heights @ HEIGHT_STEP``); all broadcast together."""
    return (ids * 4 + (previous + 1)) * HEIGHT_CODES + stacks


def alike(styles: tuple[str, ...], later: int, coder: ViewCoder, rules: RuleSet) -> list[list[int]]:
    """The indices of ``styles``, grouped where their :func:`decisions` agree at every
    later seat (``later`` seats after the observer): such styles take the same paths (a
    bluffer or a greedy seat after the first accuser, say)."""
    return _alike(styles, later, coder, _rules_key(rules))


@lru_cache(maxsize=64)
def _alike(
    styles: tuple[str, ...], later: int, coder: ViewCoder, key: _RulesKey
) -> list[list[int]]:
    def after_someone(style: str, j: int) -> np.ndarray:  # a later seat is never the first
        return _decisions(style, later - 1 - j, coder, key).reshape(-1, 4, HEIGHT_CODES)[:, 1:]

    groups: list[list[int]] = []
    for t, style in enumerate(styles):
        same = (
            g
            for g in groups
            if all(
                np.array_equal(after_someone(style, j), after_someone(styles[g[0]], j))
                for j in range(later)
            )
        )
        group = next(same, None)
        if group is None:
            groups.append([t])
        else:
            group.append(t)
    return groups
