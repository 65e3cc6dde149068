"""Rule-based playing styles: ``greedy`` and the gauntlet's styles, each one small idea.

A style decides from a seat's *view* alone: its exact culprit odds
(:func:`grove_env.odds.culprit_counts`), the stacks already under each slot,
the slot accused just before it and how many seats still accuse after it this round.
:func:`accusation` states each style's accusation once, for arrays of views; the style
agents apply it to their own observations, and the heuristic
(:mod:`grove_env.agents.heuristic.search`) applies the same function to the views it imagines
for the other seats, so its model of a style is that style. None keeps memory or draws
random numbers, so each is deterministic (the seed is accepted and unused). Unless its
paragraph says otherwise a style's first player leaves slot 0 unseen (before anyone
looks the slots are exchangeable) and keeps the victim. Odds are compared exactly, as
integers, and the last tie goes to the lowest slot.

Words used below: a seat's *position* ``k`` is how many seats accused before it this
round, so ``n - 1 - k`` *later seats* still accuse after it; a slot's *stack* is the
markers already under it; a slot is *likelier* than another when its culprit posterior
is higher.

* ``greedy``: the likeliest culprit; it ignores the stacks.
* ``stack-avoider``: the slot of lowest expected marker cost (:func:`marker_cost`),
  taking the later seats to accuse at random: a tall innocent stack that nobody will
  cover is expensive, and at classic a likely innocent that later seats will probably
  cover is *cheaper* than the culprit, since the coverer takes the marker off its
  hands. So an early seat at classic accuses a likely innocent and counts on being
  piled on, and the last seat avoids topping stacks; at revised, where a covered or
  culprit marker costs nothing, it accuses the likeliest culprit unless a stack makes
  another slot cheaper. Ties go to the likelier culprit.
* ``piler``: while later seats remain, the slot least likely to be the culprit, ties to
  the tallest stack (piling on), in the hope that someone tops it and takes the stack;
  as the last seat, nobody can cover it, so the likeliest culprit, ties to the shortest
  stack.
* ``follower``: the slot the seat just before it accused, whatever it knows itself (it
  is the one slot it did not see, so it has nothing against it); as the round's first
  accuser, the likeliest culprit.
* ``contrarian``: among the slots with the shortest stack (no marker, while an empty
  slot is left), the likeliest culprit.
* ``bluffer``: as the round's first player it exchanges the victim (when the rules
  allow) with the seen suspect whose exchange leaves it surest of an innocent slot,
  ties to the likelier culprit (which it thereby removes, knowing it as the victim),
  then accuses the slot it holds least likely to be the culprit: a lie for any later
  seat that reads the first accusation as evidence, and a stack it hopes they pile
  onto. As a later seat it accuses like ``greedy``.

>>> from grove_env.core import Game
>>> from grove_env.observation import ObservationEncoder
>>> g = Game("classic", 4, deals=[(2, 3, 4, 6, 5, 7, 8, 0)])
>>> obs = {"observation": ObservationEncoder(g.rules, 4).encode(g, 0),
...        "action_mask": [int(g.is_legal(a)) for a in range(10)]}
>>> [make_style(name).act(obs) for name in STYLE_NAMES]  # look: all leave slot 0 unseen
[0, 0, 0, 0, 0]
"""

from __future__ import annotations

import numpy as np

from grove_env.actions import ACCUSE_0, KEEP, SWAP_0
from grove_env.odds import culprit_counts
from grove_env.rules import CulpritMarkers, RuleSet, Scoring

from ..views.row_agent import RowAgent
from ..views.rows import Rows

ACCUSERS: tuple[str, ...] = (
    "greedy",
    "stack-avoider",
    "piler",
    "follower",
    "contrarian",
    "bluffer",
)
"""Every deterministic style that :func:`accusation` knows."""

STYLE_NAMES: tuple[str, ...] = ACCUSERS[1:]
"""The gauntlet's own styles (``greedy`` has its own module), in the order it plays them."""

READ_STACKS: frozenset[str] = frozenset({"stack-avoider", "piler", "contrarian"})
"""The styles whose accusation depends on the stacks and the later seats; the others
decide from the posterior and the previous accusation alone."""


def marker_cost(
    counts: np.ndarray, later: np.ndarray | int, rules: RuleSet
) -> tuple[np.ndarray, np.ndarray]:
    """``(fixed, per_marker)``, each ``int[..., 3]``: the expected change of the seat's
    score count if it accuses each slot is ``fixed + per_marker * height`` (``height``:
    the markers already there), times ``total * 3 ** later`` (``total``: the sum of its
    culprit ``counts``), so that the slots of one seat compare exactly.

    The score count is the one the game ranks by: every marker held (classic) or
    penalty markers (revised). The later seats are taken to accuse uniformly at random,
    so none of them covers the marker with probability ``(2/3) ** later``. The marker
    costs one held marker when placed (classic counts them) and comes back if the slot
    is the culprit (unless the rules remove culprit markers); on an innocent slot that
    nobody covers the seat takes the whole stack, its own marker included; once
    covered it goes to the seat on top.
    """
    counts = np.asarray(counts, dtype=np.int32)
    total = counts.sum(axis=-1, keepdims=True, dtype=np.int32)
    later = np.asarray(later, dtype=np.int32)[..., None]
    uncovered = (total - counts) * 2**later  # innocent and nobody covers it, / 3 ** later
    fixed = uncovered
    if rules.scoring is not Scoring.PENALTY:
        returned = rules.culprit_markers is CulpritMarkers.RETURN
        fixed = fixed - (total - counts if returned else total) * 3**later
    return fixed, uncovered


SCALE = 128
"""Larger than any culprit count or stack, to fold two keys into one integer (the keys
stay far inside ``int32``: a count is at most 72, a marker cost at most 72 * 16 * 6)."""


def first_of(candidates: np.ndarray | None, key: np.ndarray) -> np.ndarray:
    """Per row, the slot of lowest integer ``key`` among ``candidates`` (bool[..., 3];
    ``None``: every slot), the lowest slot on a tie."""
    key = np.asarray(key, dtype=np.int32)
    if candidates is not None:
        key = np.where(candidates, key, np.iinfo(np.int32).max)
    return key.argmin(axis=-1)


def stack_key(
    style: str, counts: np.ndarray, later: np.ndarray | int, rules: RuleSet
) -> tuple[np.ndarray, np.ndarray | int]:
    """``(fixed, per_marker)``: a :data:`READ_STACKS` style accuses the legal slot of
    lowest ``fixed + per_marker * height``, the lowest slot on a tie (``int[..., 3]``;
    ``per_marker`` is one number where it is the same for every slot and view)."""
    counts = np.asarray(counts, dtype=np.int32)
    if style == "stack-avoider":  # lowest expected cost, ties to the likelier culprit
        fixed, per_marker = marker_cost(counts, later, rules)
        return fixed * SCALE - counts, np.broadcast_to(per_marker * SCALE, counts.shape)
    if style == "piler":  # early: least likely, ties to the tallest; last: the opposite
        if np.ndim(later) == 0:
            sign = 1 if later > 0 else -1
            return sign * counts * SCALE, -sign
        signs = np.where(np.asarray(later)[..., None] > 0, 1, -1).astype(np.int32)
        return signs * counts * SCALE, np.broadcast_to(-signs, counts.shape)
    if style == "contrarian":  # the shortest stack, ties to the likelier culprit
        return -counts, SCALE
    raise ValueError(f"{style!r} is not a style that reads the stacks: {sorted(READ_STACKS)}")


def accusation(
    style: str,
    counts: np.ndarray,
    heights: np.ndarray,
    previous: np.ndarray,
    later: np.ndarray | int,
    legal: np.ndarray | None,
    rules: RuleSet,
) -> np.ndarray:
    """``int[...]``: the slot a seat of ``style`` accuses (see the module docstring).

    ``counts`` (``int[..., 3]``) are its :func:`~grove_env.odds.culprit_counts`,
    ``heights`` (``int[..., 3]``) the stacks before it, ``previous`` (``int[...]``) the
    slot accused just before it (``-1``: it is the round's first accuser), ``later`` the
    seats after it, ``legal`` (``bool[..., 3]``; ``None``: all three) the slots it may
    accuse; all broadcast together. Likelier means a higher count (the three slots of a
    view share its total).
    """
    counts = np.asarray(counts, dtype=np.int32)
    if legal is not None:
        shape = np.broadcast_shapes(counts.shape, np.shape(heights), np.shape(legal))
        legal = np.broadcast_to(legal, shape)
    previous = np.asarray(previous)
    if style in READ_STACKS:
        fixed, per_marker = stack_key(style, counts, later, rules)
        return first_of(legal, fixed + per_marker * np.asarray(heights, dtype=np.int32))
    if style == "greedy":
        return first_of(legal, -counts)
    if style == "follower":
        back = previous >= 0
        if legal is not None:
            at = np.maximum(previous, 0)[..., None]
            back = back & np.take_along_axis(legal, at, axis=-1)[..., 0]
        if back.all():  # every seat repeats: no need to rank the slots
            shape = np.broadcast_shapes(back.shape, counts.shape[:-1])
            return np.broadcast_to(previous, shape).copy()
        return np.where(back, previous, first_of(legal, -counts))
    if style == "bluffer":
        first = previous < 0
        if first.any():
            return np.where(first, first_of(legal, counts), first_of(legal, -counts))
        slot = first_of(legal, -counts)  # no seat is the first accuser
        shape = np.broadcast_shapes(first.shape, slot.shape)
        return slot if slot.shape == shape else np.broadcast_to(slot, shape).copy()
    raise ValueError(f"unknown style {style!r}; styles: {list(ACCUSERS)}")


def bluffer_swap(pool: np.ndarray, seen: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """``int[...]``: the slot the bluffer exchanges the victim with (``-1``: none legal).

    ``pool`` and ``seen`` are its view before the swap; ``legal`` (``bool[..., 3]``) the
    slots it may swap. It takes the swap after which its least likely slot is least
    likely, ties to the likelier culprit now.
    """
    now = culprit_counts(pool, seen)
    after = np.stack(
        [
            culprit_counts(pool, np.where(np.arange(3) == s, -1, seen)).min(axis=-1)
            for s in range(3)
        ],
        axis=-1,
    )
    return np.where(legal.any(axis=-1), first_of(legal, after * SCALE - now), -1)


class StyleAgent(RowAgent):
    """A style (``name`` is one of :data:`ACCUSERS`): slot 0 unseen, keep, and its
    :func:`accusation`; the bluffer swaps by :func:`bluffer_swap`."""

    def __init__(self, name: str, seed: int | None = None) -> None:
        del seed  # deterministic: accepted so that every spec takes one
        if name not in ACCUSERS:
            raise ValueError(f"unknown style {name!r}; styles: {list(ACCUSERS)}")
        self.name = name

    def accuse(self, rows: Rows, rules: RuleSet, masks: np.ndarray) -> np.ndarray:
        later = rows.num_players - 1 - rows.position
        legal = masks[:, ACCUSE_0 : ACCUSE_0 + 3]
        slot = accusation(self.name, rows.counts, rows.heights, rows.previous, later, legal, rules)
        return ACCUSE_0 + slot

    def swap(self, rows: Rows, rules: RuleSet, masks: np.ndarray) -> np.ndarray:
        if self.name != "bluffer":
            return super().swap(rows, rules, masks)
        slot = bluffer_swap(rows.pool, rows.seen, masks[:, SWAP_0 : SWAP_0 + 3])
        return np.where(slot >= 0, SWAP_0 + slot, KEEP)


def make_style(name: str, arg: str | None = None, seed: int | None = None) -> StyleAgent:
    """The style called ``name`` (one of :data:`ACCUSERS`); it takes no argument."""
    if name not in ACCUSERS:
        raise ValueError(f"unknown style {name!r}; styles: {list(STYLE_NAMES)}")
    if arg is not None:
        raise ValueError(f"the {name} agent takes no argument, got {arg!r}")
    return StyleAgent(name, seed=seed)


def make_stack_avoider(arg: str | None = None, seed: int | None = None) -> StyleAgent:
    """Registry factory for ``stack-avoider``."""
    return make_style("stack-avoider", arg, seed)


def make_piler(arg: str | None = None, seed: int | None = None) -> StyleAgent:
    """Registry factory for ``piler``."""
    return make_style("piler", arg, seed)


def make_follower(arg: str | None = None, seed: int | None = None) -> StyleAgent:
    """Registry factory for ``follower``."""
    return make_style("follower", arg, seed)


def make_contrarian(arg: str | None = None, seed: int | None = None) -> StyleAgent:
    """Registry factory for ``contrarian``."""
    return make_style("contrarian", arg, seed)


def make_bluffer(arg: str | None = None, seed: int | None = None) -> StyleAgent:
    """Registry factory for ``bluffer``."""
    return make_style("bluffer", arg, seed)
