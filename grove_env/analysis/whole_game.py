"""Exploitability of the whole game, by backward induction over public marker states.

Between rounds only the public state carries over: the marker counts and the round
number (the first player follows from it). The deals are fresh each round, and the
agents decide from the observation alone, so a best response to fixed policies is a
best response in each round's stage game whose payoffs are the continuation values
of the state the round leads to. Rounds only go forward, so the states are visited
from the last round back to the first: a round's payoff at each (culprit slot,
accusations) is the env's ``outcome`` reward if the game ends there (``Game.returns``),
0 if the round limit cuts it off (truncated, as in the env), else the value of the
next state. The transitions come from :class:`Game` played on a deal with that culprit.

Observations differ between states only in the counts and the round, so each first
player's round tree is built once and those entries are rewritten per state (a test
checks them against the encoder).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from grove_env.core import culprit_slot
from grove_env.observation import COUNT_SCALE, OFF_COLOURED, OFF_PENALTY, OFF_ROUND, ROUND_SCALE
from grove_env.rules import RuleSet, get_rules

from .best_response import best_response_value, policy_values
from .policies import Policy, branch_probabilities
from .round_tree import MarkerState, RoundTree, build_round_tree, position

Counts = tuple[tuple[int, ...], tuple[int, ...]]


@dataclass(frozen=True)
class WholeGameExploitability:
    """NashConv of a policy profile over the whole game, in ``outcome`` reward."""

    nash_conv: float
    values: tuple[float, ...]
    best_response_values: tuple[float, ...]
    states: int
    """Public states (counts, round) evaluated."""

    @property
    def gains(self) -> tuple[float, ...]:
        return tuple(b - v for b, v in zip(self.best_response_values, self.values))


@dataclass(frozen=True)
class Step:
    """Where a round leads, per (culprit slot, accusations): next counts, or the game's end."""

    counts: list[list[Counts | None]]
    outcome: np.ndarray
    """``float64[3, 3**n, n]``: the ``outcome`` reward where the game ends, else 0."""


def round_step(rules: RuleSet, n: int, counts: Counts, first_player: int) -> Step:
    """Play each (culprit, accusations) from ``counts`` through :class:`Game`."""
    deal_for: dict[int, tuple[int, ...]] = {}
    for deal in itertools.permutations(rules.tiles(n)):
        deal_for.setdefault(culprit_slot(deal[n : n + 3]), deal)
        if len(deal_for) == 3:
            break
    state = MarkerState(counts[0], counts[1], first_player, 1)
    nexts: list[list[Counts | None]] = []
    outcome = np.zeros((3, 3**n, n))
    for c in range(3):
        row: list[Counts | None] = []
        for acc, slots in enumerate(itertools.product(range(3), repeat=n)):
            game = position(rules, n, deal_for[c], state)
            game.apply_action(0)
            if rules.victim_swap:
                game.apply_action(3)
            for slot in slots:
                game.apply_action(7 + slot)
            if game.terminal:
                outcome[c, acc] = game.returns()
                row.append(None)
            else:
                row.append((tuple(game.coloured), tuple(game.penalty)))
        nexts.append(row)
    return Step(nexts, outcome)


def at_state(tree: RoundTree, counts: Counts, round_number: int) -> RoundTree:
    """``tree`` with its observations' counts and round rewritten for another state.

    Counts seen mid-round already lack the markers placed so far, so each is moved by
    the difference between the two states' starting counts.
    """
    n = tree.num_players
    was = tree.state.counts(tree.rules, n)
    depths = []
    for depth in tree.depths:
        obs = depth.observations.copy()
        order = [(depth.seat + r) % n for r in range(n)]
        for part, offset in enumerate((OFF_COLOURED, OFF_PENALTY)):
            shift = np.array([counts[part][s] - was[part][s] for s in order])
            held = np.rint(obs[:, offset : offset + n] * COUNT_SCALE) + shift
            obs[:, offset : offset + n] = held / COUNT_SCALE
        obs[:, OFF_ROUND] = (round_number - 1) / ROUND_SCALE
        depths.append(dataclasses.replace(depth, observations=obs))
    return dataclasses.replace(tree, depths=depths)


def whole_game_exploitability(
    rules: str | RuleSet,
    num_players: int,
    policies: list[Policy] | Policy,
    max_rounds: int = 100,
    start: MarkerState | None = None,
    deals: Sequence[Sequence[int]] | None = None,
) -> WholeGameExploitability:
    """NashConv of ``policies`` over the game from ``start`` (default: its beginning).

    ``max_rounds`` is the env's round limit; ``deals`` rigs every round's deal (uniform
    over the list; default: a shuffle).
    """
    rules = get_rules(rules)
    n = rules.check_players(num_players)
    if callable(policies):
        policies = [policies] * n
    start = start or MarkerState()
    begin: Counts = tuple(tuple(c) for c in start.counts(rules, n))  # type: ignore[assignment]
    trees = [build_round_tree(rules, n, MarkerState(first_player=f), deals) for f in range(n)]

    def first(r: int) -> int:
        return (start.first_player + r - start.round) % n

    steps: dict[tuple[Counts, int], Step] = {}
    layers: list[set[Counts]] = [{begin}]
    for r in range(start.round, max_rounds + 1):  # every state reachable, round by round
        following: set[Counts] = set()
        for counts in layers[-1]:
            key = (counts, first(r))
            if key not in steps:
                steps[key] = round_step(rules, n, counts, first(r))
            following.update(c for row in steps[key].counts for c in row if c is not None)
        if r < max_rounds:
            layers.append(following)
    later: dict[Counts, np.ndarray] = {}
    """Per state of the next round: on-policy values (n) then best-response values (n)."""
    for k in range(len(layers) - 1, -1, -1):
        r = start.round + k
        now: dict[Counts, np.ndarray] = {}
        for counts in layers[k]:
            step = steps[(counts, first(r))]
            stage = at_state(trees[first(r)], counts, r)
            now[counts] = _stage_values(stage, step, later, r < max_rounds, policies)
        later = now
    root = later[begin]
    return WholeGameExploitability(
        nash_conv=float(root[n:].sum() - root[:n].sum()),
        values=tuple(float(v) for v in root[:n]),
        best_response_values=tuple(float(v) for v in root[n:]),
        states=sum(len(layer) for layer in layers),
    )


def _stage_values(
    stage: RoundTree, step: Step, later: dict, more: bool, policies: list[Policy]
) -> np.ndarray:
    """On-policy then best-response values of one state, continuation values as payoffs."""
    n = stage.num_players
    probs = branch_probabilities(stage, policies)
    out = np.zeros(2 * n)
    for part in range(2):
        payoff = step.outcome.copy()
        for c, acc in itertools.product(range(3), range(3**n)):
            nxt = step.counts[c][acc]
            if nxt is not None and more:
                payoff[c, acc] = later[nxt][part * n : part * n + n]
        staged = dataclasses.replace(stage, payoff=payoff)
        if part == 0:
            out[:n] = policy_values(staged, probs)
        else:
            out[n:] = [best_response_value(staged, probs, s) for s in range(n)]
    return out
