"""Exact play against fixed opponents: one round from the start of a game.

The gauntlet plays an agent against ``n - 1`` copies of each style over whole games and
counts its wins, with sampling error. This is its exact counterpart for one round: the
agent's expected ``markers`` reward in the first round against ``n - 1`` copies of an
opponent, the mean over the seats it can take (:func:`value_against`), beside what a
best response to those copies gets there (:func:`best_against`), the ceiling of that
cell. NashConv asks how much a policy gives away to the best opponent; this asks how
much it takes from a given one, which an equilibrium need not maximise (at classic 4
players the CFR+ solution takes less from ``contrarian`` than the heuristic does).

A round's rewards are centred, so against copies of itself every agent scores 0.

>>> cells = play_against("heuristic", "revised", 2, ["random", "heuristic"])
>>> [(c.opponent, round(c.value, 4)) for c in cells][1]
('heuristic', 0.0)
>>> all(c.value <= c.best + 1e-12 for c in cells)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from grove_env.rules import RuleSet, get_rules

from .best_response import best_response_value, policy_values
from .measure import round_tree
from .policies import branches_of
from .round_tree import RoundTree


@dataclass(frozen=True)
class PlayCell:
    """One opponent's cell: the agent's expected first-round markers against ``n - 1``
    copies of it, and a best response's, each the mean over the seats."""

    opponent: str
    value: float
    best: float


def against_profile(
    tree: RoundTree, probs: list[np.ndarray], branches: list[np.ndarray], seat: int
) -> list[np.ndarray]:
    """``seat`` plays ``probs``, every other seat the opponent's ``branches``."""
    return [probs[t] if d.seat == seat else branches[t] for t, d in enumerate(tree.depths)]


def value_against(tree: RoundTree, probs: list[np.ndarray], branches: list[np.ndarray]) -> float:
    """The policy ``probs``' expected reward against ``n - 1`` copies of the opponent
    ``branches`` (branch probabilities at every depth of ``tree``), the mean over its seats."""
    seats = range(tree.num_players)
    values = [policy_values(tree, against_profile(tree, probs, branches, j))[j] for j in seats]
    return float(np.mean(values))


def best_against(tree: RoundTree, branches: list[np.ndarray]) -> float:
    """A best response's expected reward against ``n - 1`` copies of ``branches``, the
    mean over its seats: the most any policy takes from them in the round."""
    return float(np.mean([best_response_value(tree, branches, j) for j in range(tree.num_players)]))


def play_against(
    agent: Any,
    rules: str | RuleSet,
    num_players: int,
    opponents: Sequence[str],
    seed: int | None = 0,
) -> list[PlayCell]:
    """Per opponent spec, ``agent``'s (an agent or a spec) cell at the table (module
    docstring), every policy asked through its own act path as NashConv asks it."""
    rules = get_rules(rules)
    n = rules.check_players(num_players)
    tree = round_tree(rules, n)
    probs = branches_of(tree, agent, seed)
    cells = []
    for spec in opponents:
        branches = branches_of(tree, spec, seed)
        value = value_against(tree, probs, branches)
        cells.append(PlayCell(spec, value, best_against(tree, branches)))
    return cells


__all__ = ["PlayCell", "against_profile", "best_against", "play_against", "value_against"]
