"""What the other seats of a round did and will do, per deal, under each playing style.

The heuristic (:mod:`grove_env.agents.heuristic.search`) does not assume how the other seats
play. It keeps a mixture over *styles of table*: all other seats play one of the
deterministic styles of :mod:`grove_env.agents.scripted.styles`, or accuse at random. For every
deal its observation allows (:mod:`grove_env.agents.views.possible_deals`) it knows what each other
seat saw and peeked, so it rebuilds each seat's view exactly and asks the style's own
:func:`~grove_env.agents.scripted.styles.accusation` what that seat does:

* :func:`likelihoods`: how well each style explains the accusations (and the first
  player's swap) already made this round, per deal: a seat that did what the style
  does counts ``1 - noise + noise / 3``, one that did not ``noise / 3`` (the style
  plays at random with probability ``noise``);
* :func:`later_paths`: the accusations that the later seats of each style make after
  each of the observer's three possible accusations, per deal: one path each, since the
  styles are deterministic (their noise is priced by the caller).

Asking is a look-up. A view is a code (:class:`grove_env.odds.ViewCoder`), the sum of
what its parts add, so the views of every seat in every deal are a few additions of
codes shared by the deals; and the views fall into a few hundred classes of culprit
counts. A style decides from its counts, the stacks and the previous accusation, so
:func:`decisions` tables the style's own ``accusation`` once over those classes, and
:func:`bluffer_swaps` the bluffer's swap over every view.

Rows are grouped by position in the round (``position``, the same for every row of a
call), so which relative seat accuses at which position is fixed: the first player is
relative seat ``-position mod n``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from grove_env.odds import ViewCoder, every_view, table_radix, view_coder
from grove_env.rules import MAX_PLAYERS, RuleSet

from ..scripted.styles import ACCUSERS, READ_STACKS, accusation, bluffer_swap
from ..views.possible_deals import Deals
from ..views.rows import Rows, hot

STYLES: tuple[str, ...] = ACCUSERS
"""The deterministic styles of the mixture, in the order of its style axis."""


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


def likelihoods(rows: Rows, deals: Deals, rules: RuleSet, noise: float) -> np.ndarray:
    """``float[K, T, D]``: P(what the earlier seats did | style, deal), ``T = len(STYLES)``."""
    n, position = rows.num_players, int(rows.position[0])
    k, d = deals.suspects.shape[:2]
    like = np.ones((k, len(STYLES), d))
    agree, disagree = 1.0 - noise + noise / 3.0, noise / 3.0
    stacks = np.zeros(k, dtype=np.int64)  # the code of the stacks before seat i
    codes = SeatCodes.of(rows, deals)
    for i in range(position):
        ids = earlier_classes(rows, codes, i)  # [K, D]
        previous = rows.accused[:, i - 1] if i else np.full(k, -1)
        at = decision_index(ids, previous[:, None], stacks[:, None])
        done = rows.accused[:, i, None]
        for t, style in enumerate(STYLES):
            slot = decisions(style, n - 1 - i, codes.coder, rules).take(at)
            like[:, t] *= np.where(slot == done, agree, disagree)
        stacks += HEIGHT_STEP.take(rows.accused[:, i])
    if position and rules.victim_swap:
        like *= swap_likelihood(rows, deals, agree, disagree)
    return like


def swap_likelihood(rows: Rows, deals: Deals, agree: float, disagree: float) -> np.ndarray:
    """``float[K, T, D]``: P(the first player's keep or swap | style, deal); only the
    bluffer swaps (:func:`~grove_env.agents.scripted.styles.bluffer_swap`). Which slot it would
    have swapped matters only where the first player swapped: where it kept, any legal
    swap (there always is one) disagrees."""
    n, position = rows.num_players, int(rows.position[0])
    k, d = deals.victim.shape
    slots = np.arange(3)
    before = np.where(
        slots == rows.tampered[:, None, None], deals.victim[..., None], deals.suspects
    )
    before = np.where(slots == rows.unseen[:, None, None], -1, before)
    seen_some = (before[..., 0] >= 0) | (before[..., 1] >= 0) | (before[..., 2] >= 0)
    bluff = np.where(seen_some, SOME_SWAP, -1)  # [K, D]
    swapped = np.flatnonzero(rows.tampered >= 0)
    if swapped.size:  # the first player's view before its swap, and the bluffer's swap
        codes = SeatCodes.of(rows, deals)
        shown = codes.coder.shown(before[swapped])
        code = codes.base[swapped] - codes.peeked(-position % n)[swapped]
        bluff[swapped] = bluffer_swaps(codes.coder).take(code + slot_sum(shown))
    out = np.empty((k, len(STYLES), d))
    for t, style in enumerate(STYLES):
        predicted = bluff if style == "bluffer" else np.full_like(bluff, -1)
        out[:, t] = np.where(predicted == rows.tampered[:, None], agree, disagree)
    return out


SOME_SWAP = -2
"""Stands for "some legal swap" where which one does not matter (the first player kept)."""


@lru_cache(maxsize=16)
def bluffer_swaps(coder: ViewCoder) -> np.ndarray:
    """``int8[views]``: the slot the bluffer exchanges the victim with (``-1``: none), by
    the code of its view before the swap: a table of the style's own
    :func:`~grove_env.agents.scripted.styles.bluffer_swap`, made once per coder."""
    pool, seen = every_view(coder.radix)
    table = bluffer_swap(pool, seen, seen >= 0).astype(np.int8)
    table.flags.writeable = False
    return table


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


def later_paths(rows: Rows, deals: Deals, rules: RuleSet) -> np.ndarray:
    """``int[K, T, 3 own slot, D]``: the later seats' accusations under each style, as
    ``sum(slot_j * 3 ** j)`` over the later positions ``j = 0, 1, ...``.

    Each later seat's view is one of a few classes of culprit counts, so its choice is
    a look-up in the style's :func:`decisions`, by that class, the previous accusation
    and the stacks so far.
    """
    n, position = rows.num_players, int(rows.position[0])
    k, d = deals.suspects.shape[:2]
    later = n - 1 - position
    codes_out = np.zeros((k, len(STYLES), 3, d), dtype=np.int64)
    if later == 0:
        return codes_out
    codes = SeatCodes.of(rows, deals)
    entry = decision_index(later_classes(rows, codes), np.arange(3), 0)
    start = (rows.heights @ HEIGHT_STEP)[:, None, None] + HEIGHT_STEP[None, :, None]
    first = entry[0].transpose(0, 2, 1) + start  # [K, 3 own, D]: the previous is the own
    entry = entry[1:].reshape(later - 1, k * d * 3)
    flat3 = (np.arange(k)[:, None, None] * d + np.arange(d)[None, None, :]) * 3  # [K, 1, D]
    for group in alike(later, codes.coder, rules):  # styles that decide alike share a path
        tables = [
            decisions(STYLES[group[0]], later - 1 - j, codes.coder, rules) for j in range(later)
        ]
        reads_stacks = any(STYLES[t] in READ_STACKS for t in group)
        slot = tables[0].take(first)
        code, stacks = slot.astype(np.int64), start
        for j in range(1, later):
            if reads_stacks:  # the others' tables are the same at every height
                stacks = stacks + HEIGHT_STEP.take(slot)
            slot = tables[j].take(entry[j - 1].take(flat3 + slot) + stacks)
            code += slot * 3**j
        codes_out[:, group] = code[:, None]
    return codes_out


def alike(later: int, coder: ViewCoder, rules: RuleSet) -> list[list[int]]:
    """The indices of :data:`STYLES`, grouped where the styles' :func:`decisions` agree
    at every later seat (``later`` seats after the observer): such styles take the same
    paths (a bluffer or a greedy seat after the first accuser, say)."""
    return _alike(later, coder, _rules_key(rules))


@lru_cache(maxsize=64)
def _alike(later: int, coder: ViewCoder, key: _RulesKey) -> list[list[int]]:
    def after_someone(style: str, j: int) -> np.ndarray:  # a later seat is never the first
        return _decisions(style, later - 1 - j, coder, key).reshape(-1, 4, HEIGHT_CODES)[:, 1:]

    groups: list[list[int]] = []
    for t, style in enumerate(STYLES):
        same = (
            g
            for g in groups
            if all(
                np.array_equal(after_someone(style, j), after_someone(STYLES[g[0]], j))
                for j in range(later)
            )
        )
        group = next(same, None)
        if group is None:
            groups.append([t])
        else:
            group.append(t)
    return groups
