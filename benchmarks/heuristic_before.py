"""The heuristic's search as it was before issue 55, kept only for the comparison in
:mod:`heuristic_batch` (old and new times, identical actions) and to record the actions
that ``tests/agents/test_heuristic_batch.py`` holds the new code to.

Verbatim copies of the functions that changed (``search``'s ``standing_value``,
``ending_values``, ``outlook`` and ``accusation_values``; ``style_model``'s
``peeked``, ``earlier_view``, ``likelihoods``, ``swap_likelihood``,
``later_posteriors`` and ``later_paths``; ``styles.lowest``), and
:class:`OldHeuristicAgent`, the heuristic deciding through them. Not a second
production path: nothing in ``grove_env`` imports it.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from grove_env.actions import KEEP, SWAP_0
from grove_env.agents.arena.match import decision_positions
from grove_env.agents.heuristic.search import (
    HeuristicAgent,
    HeuristicParams,
    Outlook,
    parse_params,
    round_changes,
    swap_variants,
)
from grove_env.agents.heuristic.style_model import (
    SOME_SWAP,
    STYLES,
)
from grove_env.agents.scripted.styles import READ_STACKS, accusation, bluffer_swap, stack_key
from grove_env.agents.views.possible_deals import Deals, deals
from grove_env.agents.views.rows import Rows, counts_of, hot
from grove_env.odds import culprit_counts
from grove_env.rules import RULE_SETS, CulpritMarkers, RuleSet


def lowest(k0: np.ndarray, k1: np.ndarray, k2: np.ndarray) -> np.ndarray:
    """``int8[...]``: which of the three slot keys is lowest, the lowest slot on a tie;
    :func:`first_of` over every slot, for keys held one array per slot."""
    later = k1 < k0
    slot = later.astype(np.int8)
    slot[k2 < np.where(later, k1, k0)] = 2
    return slot


def peeked(deals: Deals, seat: int) -> np.ndarray:
    """``int[K, D, 8]``: the two tiles relative seat ``seat`` peeked, as counts."""
    n = deals.dealt.shape[2]
    return hot(deals.dealt[:, :, seat]) + hot(deals.dealt[:, :, (seat + 1) % n])


def standing_value(
    coloured: np.ndarray, penalty: np.ndarray, rules: RuleSet, spread: float, aim: float
) -> np.ndarray:
    """``float[...]``: the value for relative seat 0 of the counts ``[..., n]`` after a round."""
    score = rules.score(coloured, penalty)
    behind = score[..., 1:] - score[..., :1]
    ended = rules.ends_game(coloured, penalty).any(axis=-1, keepdims=True)
    scale = spread * np.sqrt(np.maximum(coloured.min(axis=-1, keepdims=True), 1.0))
    soft = np.tanh(behind / scale)
    pairwise = np.where(ended, np.sign(behind), soft)
    outcome = pairwise.mean(axis=-1)
    first = (behind >= 0).all(axis=-1) / (1.0 + (behind == 0).sum(axis=-1))
    chance = np.where(ended[..., 0], first, np.prod((1.0 + soft) / 2.0, axis=-1))
    return (1.0 - aim) * outcome + aim * chance


def ending_values(rows: Rows, rules: RuleSet, params: HeuristicParams) -> np.ndarray:
    """``float[K, 3 own slot, 3**later, 3 culprit]``: the value of every way the round
    can end, for rows at one position (later sequences coded as in ``later_paths``)."""
    n, position = rows.num_players, int(rows.position[0])
    returned = rules.culprit_markers is CulpritMarkers.RETURN
    changes, index = round_changes(n, position, returned)
    prefix = (rows.accused[:, :position] * 3 ** np.arange(position)).sum(axis=1)
    after = changes[prefix] + np.stack([rows.coloured, rows.penalty], axis=1)[:, None]
    value = standing_value(
        after[:, :, 0].astype(np.float64),
        after[:, :, 1].astype(np.float64),
        rules,
        params.spread,
        params.aim,
    )  # [K, U]
    at = index[prefix]
    return np.take_along_axis(value, at.reshape(len(at), -1), axis=1).reshape(at.shape)


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


def outlook(
    rows: Rows, rules: RuleSet, params: HeuristicParams, ends: np.ndarray | None = None
) -> Outlook:
    """The :class:`Outlook` of rows at one position (``ends``: their
    :func:`ending_values`, where the caller has them already)."""
    n, position = rows.num_players, int(rows.position[0])
    later = n - 1 - position
    d = deals(rows)
    culprit = d.culprit  # [K, D]
    k, size = culprit.shape
    like = likelihoods(rows, d, rules, params.noise)  # [K, T, D]
    swaps = bool(position and rules.victim_swap)
    if ends is None:
        ends = ending_values(rows, rules, params)  # [K, 3, S, 3]
    rand = ends.mean(axis=2)  # [K, 3 own, 3 culprit]
    rand_d = np.take_along_axis(rand, np.broadcast_to(culprit[:, None, :], (k, 3, size)), axis=2)
    paths = later_paths(rows, d, rules)  # [K, T, 3, D]
    paths_n = ends.shape[2]
    base = (np.arange(k)[:, None] * 3 + np.arange(3)) * (paths_n * 3)  # [K, 3 own]
    at = base[:, None, :, None] + paths * 3 + culprit[:, None, None, :]  # [K, T, 3, D]
    path_value = np.ascontiguousarray(ends).reshape(-1).take(at)
    slip = 1.0 - (1.0 - params.noise) ** later
    styled = (1.0 - slip) * path_value + slip * rand_d[:, None]  # [K, T, 3, D]
    return Outlook(like, styled, rand_d, params.random_prior * (1.0 / 3.0) ** (position + swaps))


def accusation_values(
    rows: Rows, rules: RuleSet, params: HeuristicParams, ends: np.ndarray | None = None
) -> np.ndarray:
    """``float[K, 3]``: the expected value of accusing each slot under the mixture, for
    rows at one position (``ends`` as in :func:`outlook`)."""
    o = outlook(rows, rules, params, ends)
    weight = o.like * ((1.0 - params.random_prior) / len(STYLES))
    total = weight.sum(axis=(1, 2)) + o.random_weight * o.like.shape[2]  # [K]
    value = np.einsum("ktd,ktcd->kc", weight, o.styled)
    value += o.random_weight * o.at_random.sum(axis=2)
    return value / total[:, None]


class OldHeuristicAgent(HeuristicAgent):
    """The heuristic as it decided before issue 55 (the same ``accuse`` and ``swap``,
    through the old :func:`accusation_values`)."""

    def values(self, rows: Rows, rules: RuleSet) -> np.ndarray:
        out = np.zeros((len(rows), 3))
        for position in np.unique(rows.position):
            at = np.flatnonzero(rows.position == position)
            out[at] = accusation_values(rows.take(at), rules, self.params)
        return out

    def swap(self, rows: Rows, rules: RuleSet, masks: np.ndarray) -> np.ndarray:
        variants = swap_variants(rows)
        ends = ending_values(variants[0], rules, self.params)
        keep = accusation_values(variants[0], rules, self.params, ends).max(axis=1)
        best = np.full((3, len(rows)), -np.inf)
        can = masks[:, SWAP_0 : SWAP_0 + 3] & (rows.seen >= 0)
        for s in range(3):
            at = np.flatnonzero(can[:, s])
            if at.size:
                value = accusation_values(variants[s + 1].take(at), rules, self.params, ends[at])
                best[s, at] = value.max(axis=1)
        play = best.max(axis=0) > keep + self.params.swap_margin
        return np.where(play, SWAP_0 + best.argmax(axis=0), KEEP)


RECORDED = {"default": None, "noisy": "noise=0.2,aim=0.3"}
"""The heuristics whose actions :func:`record` keeps: key in the file, options."""


def record(path: str, count: int = 300) -> None:
    """Write ``count`` positions of random play per table (every rule set and player
    count, seeds ``55 + n``) with the actions the old search takes on them, in one
    batch, to ``path`` (``.npz``: ``observations``, ``masks``, then one array of actions
    per key of :data:`RECORDED`) for ``tests/agents/test_heuristic_batch.py``."""
    obs, masks = zip(
        *(
            decision_positions(name, n, count, seed=55 + n)
            for name, rules in RULE_SETS.items()
            for n in rules.player_counts
        )
    )
    observations, all_masks = np.concatenate(obs), np.concatenate(masks)
    actions = {
        key: OldHeuristicAgent(parse_params(options)).act_batch(observations, all_masks)
        for key, options in RECORDED.items()
    }
    np.savez_compressed(path, observations=observations, masks=all_masks, **actions)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Record the old heuristic's actions.")
    p.add_argument("path", help="the .npz file to write")
    p.add_argument("--count", type=int, default=300, help="positions per table")
    args = p.parse_args(argv)
    record(args.path, args.count)
    return 0


if __name__ == "__main__":
    sys.exit(main())
