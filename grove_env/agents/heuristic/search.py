"""``heuristic``: a one-round search over every deal against a mixture of playing styles.

The reference agent: not fooled by style, fast in batches, deterministic. (The first
heuristic, which trusted the other seats' accusations, is ``heuristic-trust``:
:mod:`grove_env.agents.trust.agent`.)

**Accuse.** The agent lists every deal its observation allows
(:mod:`grove_env.agents.views.possible_deals`) and, for each, what every other seat saw and
peeked. It
keeps a mixture over *styles of table*: the other seats all play one of the
deterministic styles (:data:`~grove_env.agents.heuristic.style_model.STYLES`, the gauntlet's and
``greedy``) or all accuse at random. The style's own rule, applied to each seat's view
in each deal, says how likely the accusations already made are
(:func:`~grove_env.agents.heuristic.style_model.likelihoods`), which weighs (style, deal) by
Bayes' rule, and what the later seats will do after each of the agent's possible
accusations (:func:`~grove_env.agents.heuristic.style_model.later_paths`). So no style fools it
for long: a piler's accusation of a sure innocent, a follower's echo or a bluffer's lie
is read as what that style does, and the deals are weighed accordingly. A style plays
at random with probability ``noise``, which keeps every hypothesis alive.

Every way the round can end (the later accusations and the culprit) is scored by the
standing it leaves (:func:`standing_value`), with the markers resolved by the batched
engine's table of every round (:func:`grove_env.vector.batched_rules.resolution_table`): each
other seat ``x`` markers behind counts ``tanh(x / (spread * sqrt(rounds left)))``, or
the final ``sign(x)`` where the round ends the game; ``aim`` blends that mean with the
chance of finishing first. The agent accuses where the expected value is highest, ties
to the likelier culprit, then the lowest slot.

**Look**: slot 0 unseen (before anyone looks the slots are exchangeable). **Swap**
(classic first player): keep and each legal swap are valued as the best accusation
afterwards, and a swap is played when it beats keeping by ``swap_margin``.

**Batched.** :meth:`HeuristicAgent.act_batch` decides ``K`` observations with NumPy over
``[rows, deals]`` arrays; loops run over tables, positions in the round, styles and
later seats, never over observations. :meth:`act` is one row of it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from grove_env.actions import ACCUSE_0, KEEP, SWAP_0, Phase
from grove_env.odds import posterior
from grove_env.rules import CulpritMarkers, RuleSet
from grove_env.vector.batched_rules import resolution_table

from ..base import check_params, parse_options
from ..views.possible_deals import deals
from ..views.row_agent import RowAgent
from ..views.rows import Rows
from .style_model import STYLES, later_paths, likelihoods


@dataclass(frozen=True)
class HeuristicParams:
    """Tunable parts of the heuristic (defaults chosen with the gauntlet)."""

    noise: float = 0.1
    """Probability that a seat of a modelled style accuses at random instead."""

    random_prior: float = 0.2
    """Prior weight of the table whose other seats all accuse at random; the
    deterministic styles share the rest equally."""

    spread: float = 1.0
    """Score difference counted as decisive with one round left (see the module doc)."""

    aim: float = 0.5
    """0: value the expected final outcome (the env's reward); 1: the chance of
    finishing first (a tournament's win share); between: a blend."""

    swap_margin: float = 0.01
    """A swap must beat keeping by this much expected value to be played."""

    def __post_init__(self) -> None:
        check_params(self, ("noise", "random_prior", "aim"), ("spread",))


def fold(op: np.ufunc, x: np.ndarray) -> np.ndarray:
    """``x[..., 0] op x[..., 1] op ...``: a reduction over a short last axis (the seats),
    in the order NumPy's reduction adds, without its cost per row."""
    out = x[..., 0]
    for i in range(1, x.shape[-1]):
        out = op(out, x[..., i])
    return out


def standing_value(
    coloured: np.ndarray, penalty: np.ndarray, rules: RuleSet, spread: float, aim: float
) -> np.ndarray:
    """``float[...]``: the value for relative seat 0 of the counts ``[..., n]`` after a round."""
    score = rules.score(coloured, penalty)
    behind = score[..., 1:] - score[..., :1]
    ended = fold(np.logical_or, rules.ends_game(coloured, penalty))
    scale = spread * np.sqrt(np.maximum(fold(np.minimum, coloured), 1.0))
    soft = np.tanh(behind / scale[..., None])
    pairwise = np.where(ended[..., None], np.sign(behind), soft)
    outcome = fold(np.add, pairwise) / pairwise.shape[-1]
    ties = fold(np.add, (behind == 0).astype(np.float64))
    first = fold(np.logical_and, behind >= 0) / (1.0 + ties)
    chance = np.where(ended, first, fold(np.multiply, (1.0 + soft) / 2.0))
    return (1.0 - aim) * outcome + aim * chance


@lru_cache(maxsize=64)
def round_changes(n: int, position: int, returned: bool) -> tuple[np.ndarray, np.ndarray]:
    """What every way a round can end does to the markers, for the seat at ``position``.

    Returns ``(changes, index)``: ``changes[P, U, 2, n]`` holds the distinct changes of
    (coloured, penalty) markers per relative seat, for each code ``P`` of the earlier
    accusations (``sum(slot_i * 3 ** i)``), padded by repeating the first; ``index[P, 3
    own slot, 3 ** later, 3 culprit]`` points into them. The coloured change counts only
    the markers still to be placed (the earlier seats' are off their counts already) and
    the culprit's markers coming back (where the rules return them); the penalty change
    the innocent stacks taken. Markers are resolved by the batched engine's table of
    every round (:func:`grove_env.vector.batched_rules.resolution_table`). Few ways differ: 40
    of the 243 at the first position of four players.
    """
    later = n - 1 - position
    gained, back = resolution_table(n)
    own = np.arange(3)[:, None, None] * 3**position
    seq = np.arange(3**later)[None, :, None] * 3 ** (position + 1)
    placing = (np.arange(n) <= later).astype(np.int64)  # seats 0 .. later have not placed
    per_prefix = []
    for prefix in range(3**position):
        key = ((prefix + own + seq) * 3 + np.arange(3)) * n + (-position % n)
        coloured = (back[:, key] if returned else 0 * back[:, key]) - placing[:, None, None, None]
        both = np.stack([coloured, gained[:, key]]).reshape(2 * n, -1).T  # [endings, 2n]
        distinct, where = np.unique(both, axis=0, return_inverse=True)
        per_prefix.append((distinct.reshape(-1, 2, n), where.reshape(key.shape)))
    width = max(len(c) for c, _ in per_prefix)
    changes = np.stack(
        [np.concatenate([c, c[:1].repeat(width - len(c), 0)]) for c, _ in per_prefix]
    )
    index = np.stack([w for _, w in per_prefix])
    for a in (changes, index):
        a.flags.writeable = False
    return changes, index


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
    at = index[prefix] + (np.arange(len(value)) * value.shape[1])[:, None, None, None]
    return value.reshape(-1).take(at)


@dataclass(frozen=True)
class Outlook:
    """What the rest of a round holds for rows at one position, per style of table and deal.

    ``like[K, T, D]``: how likely each style makes the earlier seats' moves in each deal
    (:func:`~grove_env.agents.heuristic.style_model.likelihoods`); ``styled[K, T, 3, D]``: the
    value of each own accusation if the later seats play that style (their noise
    priced in); ``at_random[K, 3, D]``: its value if they accuse at random;
    ``random_weight``: per deal, the random table's prior times the chance of the earlier
    moves.
    """

    like: np.ndarray
    styled: np.ndarray
    at_random: np.ndarray
    random_weight: float


def outlook(
    rows: Rows, rules: RuleSet, params: HeuristicParams, ends: np.ndarray | None = None
) -> Outlook:
    """The :class:`Outlook` of rows at one position (``ends``: their
    :func:`ending_values`, where the caller has them already)."""
    n, position = rows.num_players, int(rows.position[0])
    later = n - 1 - position
    d = deals(rows)
    culprit = d.culprit  # [K, D]
    k = len(culprit)
    like = likelihoods(rows, d, rules, params.noise)  # [K, T, D]
    swaps = bool(position and rules.victim_swap)
    if ends is None:
        ends = ending_values(rows, rules, params)  # [K, 3, S, 3]
    rand = ends.mean(axis=2)  # [K, 3 own, 3 culprit]
    own = np.arange(k)[:, None, None] * 3 + np.arange(3)[:, None]  # [K, 3 own, 1]
    rand_d = rand.reshape(-1).take(own * 3 + culprit[:, None, :])  # [K, 3 own, D]
    paths = later_paths(rows, d, rules)  # [K, T, 3, D]
    at = paths * 3 + (own * (ends.shape[2] * 3) + culprit[:, None, :])[:, None]  # [K, T, 3, D]
    styled = np.ascontiguousarray(ends).reshape(-1).take(at)  # the value of each path
    slip = 1.0 - (1.0 - params.noise) ** later
    styled *= 1.0 - slip
    styled += slip * rand_d[:, None]  # [K, T, 3, D]
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


def table_values(
    rows: Rows, rules: RuleSet, params: HeuristicParams, ends: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The mixture taken apart: ``(values[K, T + 1, 3], posterior[K, T + 1])``, the
    expected value of accusing each slot if every other seat plays style ``t`` (``t <
    T``, in the order of :data:`~grove_env.agents.heuristic.style_model.STYLES`) or accuses at
    random (``t = T``), and how likely each of those tables is given the earlier moves.
    :func:`accusation_values` is the posterior's mean of the values."""
    o = outlook(rows, rules, params, ends)
    explained = o.like.sum(axis=2)  # [K, T]
    values = np.concatenate(
        [
            np.einsum("ktd,ktcd->ktc", o.like, o.styled) / explained[..., None],
            o.at_random.mean(axis=2)[:, None],
        ],
        axis=1,
    )
    weights = np.concatenate(
        [
            explained * ((1.0 - params.random_prior) / len(STYLES)),
            np.full((len(explained), 1), o.random_weight * o.like.shape[2]),
        ],
        axis=1,
    )
    return values, weights / weights.sum(axis=1, keepdims=True)


def best_slot(values: np.ndarray, q: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Per row: the legal slot of highest value, ties to the likelier culprit, then the
    lowest slot (all three slots when none is legal)."""
    legal = np.where(legal.any(axis=1, keepdims=True), legal, True)
    v = np.where(legal, np.round(values, 9), -np.inf)
    top = v == v.max(axis=1, keepdims=True)
    qq = np.where(top, np.round(q, 9), -np.inf)
    return (qq == qq.max(axis=1, keepdims=True)).argmax(axis=1)


def swap_variants(rows: Rows) -> list[Rows]:
    """The first player's view after keeping and after each swap, in the accuse phase."""
    out = [dataclasses.replace(rows, phase=np.full(len(rows), int(Phase.ACCUSE)))]
    for s in range(3):
        seen = rows.seen.copy()
        seen[:, s] = -1
        out.append(
            dataclasses.replace(
                out[0],
                seen=seen,
                victim=rows.seen[:, s].copy(),
                tampered=np.full(len(rows), s),
            )
        )
    return out


class HeuristicAgent(RowAgent):
    """Accuses the slot with the best value under the style mixture (module doc)."""

    name = "heuristic"

    def __init__(self, params: HeuristicParams | None = None) -> None:
        self.params = params or HeuristicParams()

    def accuse(self, rows: Rows, rules: RuleSet, masks: np.ndarray) -> np.ndarray:
        legal = masks[:, ACCUSE_0 : ACCUSE_0 + 3]
        return ACCUSE_0 + best_slot(self.values(rows, rules), posterior(rows.counts), legal)

    def values(self, rows: Rows, rules: RuleSet) -> np.ndarray:
        """``float[K, 3]``: the value of accusing each slot (rows in the accuse phase)."""
        out = np.zeros((len(rows), 3))
        for position in np.unique(rows.position):
            at = np.flatnonzero(rows.position == position)
            out[at] = accusation_values(rows.take(at), rules, self.params)
        return out

    def swap(self, rows: Rows, rules: RuleSet, masks: np.ndarray) -> np.ndarray:
        """Per row: keep, or the swap whose best accusation afterwards is worth most."""
        variants = swap_variants(rows)  # all at the round's first position
        ends = ending_values(variants[0], rules, self.params)  # the same after any swap
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


def parse_params(arg: str | None) -> HeuristicParams:
    """``"noise=0.2,aim=1"`` -> :class:`HeuristicParams` (``None``: the defaults)."""
    return parse_options(arg, HeuristicParams, "heuristic")


def make(arg: str | None = None, seed: int | None = None) -> HeuristicAgent:
    """Registry factory: ``heuristic`` or ``heuristic:noise=0.2,aim=1``; deterministic."""
    return HeuristicAgent(parse_params(arg))
