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

Asking is a look-up (:mod:`grove_env.agents.heuristic.style_tables`): the views are
codes, and each style's decisions a table of its own rule over them.

Rows are grouped by position in the round (``position``, the same for every row of a
call), so which relative seat accuses at which position is fixed: the first player is
relative seat ``-position mod n``.
"""

from __future__ import annotations

import numpy as np

from grove_env.rules import RuleSet

from ..scripted.styles import ACCUSERS, READ_STACKS
from ..views.possible_deals import Deals
from ..views.rows import Rows
from .style_tables import (
    HEIGHT_STEP,
    SeatCodes,
    alike,
    bluffer_swaps,
    decision_index,
    decisions,
    earlier_classes,
    later_classes,
    slot_sum,
)

STYLES: tuple[str, ...] = ACCUSERS
"""The deterministic styles of the mixture, in the order of its style axis."""


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
    for group in alike(STYLES, later, codes.coder, rules):  # styles that decide alike share a path
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
