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

Rows are grouped by position in the round (``position``, the same for every row of a
call), so which relative seat accuses at which position is fixed: the first player is
relative seat ``-position mod n``.
"""

from __future__ import annotations

import numpy as np

from grove_env.odds import culprit_counts
from grove_env.rules import RuleSet

from ..scripted.styles import ACCUSERS, READ_STACKS, accusation, bluffer_swap, lowest, stack_key
from ..views.possible_deals import Deals
from ..views.rows import Rows, counts_of, hot

STYLES: tuple[str, ...] = ACCUSERS
"""The deterministic styles of the mixture, in the order of its style axis."""


def peeked(deals: Deals, seat: int) -> np.ndarray:
    """``int[K, D, 8]``: the two tiles relative seat ``seat`` peeked, as counts."""
    n = deals.dealt.shape[2]
    return hot(deals.dealt[:, :, seat]) + hot(deals.dealt[:, :, (seat + 1) % n])


def earlier_view(rows: Rows, deals: Deals, i: int) -> tuple[np.ndarray, np.ndarray]:
    """``(pool, seen)`` over ``[K, D]`` of the seat that accused at position ``i``."""
    n, position = rows.num_players, int(rows.position[0])
    seat = (i - position) % n
    slots = np.arange(3)
    if i == 0:
        hidden = (slots == rows.unseen[:, None]) | (slots == rows.tampered[:, None])
        knows_victim = (rows.tampered >= 0)[:, None]
    else:
        hidden = slots == rows.accused[:, i - 1, None]
        knows_victim = np.zeros((len(rows), 1), dtype=bool)
    seen = np.where(hidden[:, None, :], -1, deals.suspects)
    pool = rows.in_play[:, None, :] - peeked(deals, seat) - hot(rows.spare)[:, None, :]
    pool = pool - counts_of(seen) - np.where(knows_victim, 1, 0)[..., None] * hot(deals.victim)
    return pool, seen


def likelihoods(rows: Rows, deals: Deals, rules: RuleSet, noise: float) -> np.ndarray:
    """``float[K, T, D]``: P(what the earlier seats did | style, deal), ``T = len(STYLES)``."""
    n, position = rows.num_players, int(rows.position[0])
    k, d = deals.suspects.shape[:2]
    like = np.ones((k, len(STYLES), d))
    agree, disagree = 1.0 - noise + noise / 3.0, noise / 3.0
    heights = np.zeros((k, 3), dtype=np.int16)
    for i in range(position):
        pool, seen = earlier_view(rows, deals, i)
        q = culprit_counts(pool, seen)
        previous = rows.accused[:, i - 1, None] if i else np.full((k, 1), -1)
        done = rows.accused[:, i, None]
        for t, style in enumerate(STYLES):
            slot = accusation(style, q, heights[:, None, :], previous, n - 1 - i, None, rules)
            like[:, t] *= np.where(slot == done, agree, disagree)
        heights[np.arange(k), rows.accused[:, i]] += 1
    if position and rules.victim_swap:
        like *= swap_likelihood(rows, deals, agree, disagree)
    return like


def swap_likelihood(rows: Rows, deals: Deals, agree: float, disagree: float) -> np.ndarray:
    """``float[K, T, D]``: P(the first player's keep or swap | style, deal); only the
    bluffer swaps (:func:`~grove_env.agents.scripted.styles.bluffer_swap`). Which slot it would
    have swapped matters only where the first player swapped: where it kept, any legal
    swap (there always is one) disagrees."""
    n, position = rows.num_players, int(rows.position[0])
    k, d = deals.culprit.shape
    slots = np.arange(3)
    before = np.where(
        slots == rows.tampered[:, None, None], deals.victim[..., None], deals.suspects
    )
    before = np.where(slots == rows.unseen[:, None, None], -1, before)
    bluff = np.where((before >= 0).any(axis=2), SOME_SWAP, -1)  # [K, D]
    swapped = np.flatnonzero(rows.tampered >= 0)
    if swapped.size:
        seen = before[swapped]
        pool = rows.in_play[swapped, None, :] - hot(rows.spare[swapped])[:, None, :]
        pool = pool - peeked(deals, -position % n)[swapped] - counts_of(seen)
        bluff[swapped] = bluffer_swap(pool, seen, seen >= 0)
    out = np.empty((k, len(STYLES), d))
    for t, style in enumerate(STYLES):
        predicted = bluff if style == "bluffer" else np.full_like(bluff, -1)
        out[:, t] = np.where(predicted == rows.tampered[:, None], agree, disagree)
    return out


SOME_SWAP = -2
"""Stands for "some legal swap" where which one does not matter (the first player kept)."""


def later_posteriors(rows: Rows, deals: Deals) -> list[np.ndarray]:
    """Per later seat (relative seats ``1 .. later``), ``int[K, D, 3 previous, 3]``: its
    culprit counts after it looked, for each slot the seat before it may have accused
    (the one it does not see).

    A seat does not know the tiles of its pool: every tile but its peeked ones, the
    spare and the two suspects it saw, so the hidden suspect is in its pool.
    """
    later = rows.num_players - 1 - int(rows.position[0])
    common = rows.in_play[:, None, :] - hot(rows.spare)[:, None, :]
    common = (common - counts_of(deals.suspects)).astype(np.int16)  # [K, D, 8]
    hidden = np.eye(3, dtype=bool)  # [previous, slot]
    seen = np.where(hidden, -1, deals.suspects[:, :, None, :])  # [K, D, 3, 3]
    back = hot(deals.suspects)  # [K, D, 3 previous, 8]: the hidden suspect, back in the pool
    return [
        culprit_counts((common - peeked(deals, seat))[:, :, None, :] + back, seen)
        for seat in range(1, later + 1)
    ]


Table = np.ndarray | int
"""A flat table of one slot's key, or the number it is everywhere."""


def by_slot(key: np.ndarray | int) -> list[Table]:
    """A key (``int[..., 3]``, or one number) as one flat table per slot."""
    if isinstance(key, np.ndarray):
        return [np.ascontiguousarray(key[..., s]).reshape(-1) for s in range(3)]
    return [key, key, key]


def look_up(table: Table, at: np.ndarray) -> np.ndarray | int:
    """The entries ``at`` of a flat table (a number stays a number)."""
    return table.take(at) if isinstance(table, np.ndarray) else table


def later_paths(rows: Rows, deals: Deals, rules: RuleSet) -> np.ndarray:
    """``int[K, T, 3 own slot, D]``: the later seats' accusations under each style, as
    ``sum(slot_j * 3 ** j)`` over the later positions ``j = 0, 1, ...``.

    A style that reads no stacks (:data:`~grove_env.agents.scripted.styles.READ_STACKS`) decides
    from the seat's view and the previous accusation alone, so its choice is tabled once
    per later seat and previous slot, and the paths are look-ups in those tables.
    """
    n, position = rows.num_players, int(rows.position[0])
    k, d = deals.suspects.shape[:2]
    later = n - 1 - position
    codes = np.zeros((k, len(STYLES), 3, d), dtype=np.int64)
    if later == 0:
        return codes
    views = later_posteriors(rows, deals)
    own = np.broadcast_to(np.arange(3)[None, :, None], (k, 3, d))
    flat3 = (np.arange(k)[:, None, None] * d + np.arange(d)[None, None, :]) * 3  # [K, 1, D]
    prevs = np.arange(3)[None, None, :]
    for t, style in enumerate(STYLES):
        previous = own
        if style in READ_STACKS:  # keys linear in the heights, tabled one array per slot
            keys = [
                [by_slot(key) for key in stack_key(style, view, later - 1 - j, rules)]
                for j, view in enumerate(views)
            ]
            heights = [rows.heights[:, s, None, None] + (own == s) for s in range(3)]
        else:
            tables = [
                accusation(style, view, np.zeros(3), prevs, later - 1 - j, None, rules)
                for j, view in enumerate(views)
            ]
        for j in range(later):
            at = flat3 + previous  # the (row, deal, previous slot) entry of a table
            if style in READ_STACKS:
                fixed, per_marker = keys[j]
                slot = lowest(
                    *(
                        look_up(f, at) + look_up(m, at) * h
                        for f, m, h in zip(fixed, per_marker, heights)
                    )
                )
                if j + 1 < later:
                    heights = [h + (slot == s) for s, h in enumerate(heights)]
            else:
                slot = tables[j].reshape(-1).take(at)
            codes[:, t] += slot * 3**j
            previous = slot
    return codes
