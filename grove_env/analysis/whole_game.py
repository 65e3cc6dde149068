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
player's round tree is built once and those entries are rewritten per state
(:mod:`~grove_env.analysis.state_views`; a test checks them against the encoder). A
fixed policy is asked about many states of a round at once, and each state's values
(on-policy and every seat's best response) share one gather of its node policies. A
policy that reads the action mask alone (``random``) is asked once per round tree, and
all its states are valued through one :mod:`~grove_env.analysis.stage_maps` map per
tree: a product per state, which is what brings classic 3p's 141,170 states within
minutes. For any other policy its own answers (18.5M observations at revised 3p) are
most of the cost.

The walk is shared: :func:`public_states` lists the states (a state where the game
cannot still be going is never listed), :func:`stage_payoff` makes a round's payoffs
from the next states' values, and :func:`whole_game_nash_conv` goes backward asking a
:data:`StageStrategy` for each state's strategy, given the stage with its on-policy
payoffs: a fixed policy answers by its observations, the whole-game solver
(:mod:`~grove_env.analysis.game_solver`) by solving that stage.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from grove_env.core import culprit_slot
from grove_env.rules import RuleSet, get_rules

from .best_response import stage_values
from .policies import Policy, branch_probabilities, reads_mask_only
from .round_tree import MarkerState, RoundTree, build_round_tree, position
from .stage_maps import StageMap, stage_map
from .state_views import Counts, PolicyAnswers, State, observations_at

STATE_ROWS = 1 << 18
"""Information sets (over all depths) asked of a fixed policy at once: that many over
the states of a round, a few hundred MB of observations at most."""


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
    """``tree`` with its observations' counts and round rewritten for another state
    (:func:`~grove_env.analysis.state_views.observations_at` of one state)."""
    state = [(counts, round_number)]
    depths = [
        dataclasses.replace(depth, observations=observations_at(tree, t, state)[0])
        for t, depth in enumerate(tree.depths)
    ]
    return dataclasses.replace(tree, depths=depths)


@dataclass(frozen=True)
class PublicStates:
    """Every public state a game can reach from ``start``, round by round.

    States where the game cannot still be going are never listed: a round that ends
    the game leads nowhere, and nothing follows the round limit.
    """

    rules: RuleSet
    num_players: int
    start: MarkerState
    max_rounds: int
    layers: list[set[Counts]]
    """``layers[k]``: the counts a game can hold at the start of round ``start.round + k``."""
    steps: dict[tuple[Counts, int], Step]
    """Where a round leads, per (counts, first player)."""

    def round_of(self, k: int) -> int:
        return self.start.round + k

    def first(self, round_number: int) -> int:
        """The first player of a round (the token moves one seat a round)."""
        return (self.start.first_player + round_number - self.start.round) % self.num_players

    def step(self, counts: Counts, round_number: int) -> Step:
        return self.steps[(counts, self.first(round_number))]

    @property
    def begin(self) -> Counts:
        return tuple(tuple(c) for c in self.start.counts(self.rules, self.num_players))  # type: ignore[return-value]

    @property
    def count(self) -> int:
        return sum(len(layer) for layer in self.layers)


def public_states(
    rules: str | RuleSet, num_players: int, max_rounds: int = 100, start: MarkerState | None = None
) -> PublicStates:
    """The states reachable from ``start`` (default: the game's beginning) by ``max_rounds``."""
    rules = get_rules(rules)
    n = rules.check_players(num_players)
    states = PublicStates(rules, n, start or MarkerState(), max_rounds, [], {})
    states.layers.append({states.begin})
    for r in range(states.start.round, max_rounds + 1):
        following: set[Counts] = set()
        for counts in states.layers[-1]:
            key = (counts, states.first(r))
            if key not in states.steps:
                states.steps[key] = round_step(rules, n, counts, key[1])
            following.update(c for row in states.steps[key].counts for c in row if c is not None)
        if r < max_rounds:
            states.layers.append(following)
    return states


def stage_payoff(step: Step, later: dict[Counts, np.ndarray], more: bool) -> np.ndarray:
    """``float64[3, 3**n, n]``: a round's payoffs with the next states' values ``later``.

    The ``outcome`` reward where the game ends, 0 where the round limit cuts it off
    (``more`` is false in the last round), else ``later`` of the state it leads to.
    """
    payoff = step.outcome.copy()
    if more:
        for c, row in enumerate(step.counts):
            for acc, nxt in enumerate(row):
                if nxt is not None:
                    payoff[c, acc] = later[nxt]
    return payoff


StageStrategy = Callable[[Counts, int, RoundTree], list[np.ndarray]]
"""``(counts, round, stage) -> branch probabilities per depth`` of a state's round.

``stage`` is the round tree of the state's first player with the state's on-policy
payoffs (:func:`stage_payoff` of the values of the states the round leads to), so a
solver can solve it there; its observations are those of the tree as built.
"""


def whole_game_exploitability(
    rules: str | RuleSet,
    num_players: int,
    policies: list[Policy] | Policy,
    max_rounds: int = 100,
    start: MarkerState | None = None,
    deals: Sequence[Sequence[int]] | None = None,
    trees: Sequence[RoundTree] | None = None,
    workers: int = 1,
) -> WholeGameExploitability:
    """NashConv of ``policies`` over the game from ``start`` (default: its beginning).

    ``max_rounds`` is the env's round limit; ``deals`` rigs every round's deal (uniform
    over the list; default: a shuffle). ``trees`` gives the round trees, one per first
    player, already built for these deals (their observations are rewritten per state).
    ``workers`` processes answer for the policies where they allow it
    (:class:`~grove_env.analysis.state_views.PolicyAnswers`); the figure is the same.
    """
    states = public_states(rules, num_players, max_rounds, start)
    n = states.num_players
    if callable(policies):
        policies = [policies] * n
    if trees is None:
        trees = [
            build_round_tree(states.rules, n, MarkerState(first_player=f), deals) for f in range(n)
        ]
    elif [(t.num_players, t.state.first_player) for t in trees] != [(n, f) for f in range(n)]:
        raise ValueError(f"give {n} round trees of {n} seats, first players 0 to {n - 1}")
    with PolicyAnswers(trees, policies, workers) as answers:
        strategy = fixed_strategy(states, trees, policies, answers)
        return whole_game_nash_conv(states, list(trees), strategy)


def fixed_strategy(
    states: PublicStates,
    trees: Sequence[RoundTree],
    policies: Sequence[Policy],
    answers: PolicyAnswers | None = None,
) -> StageStrategy:
    """The :data:`StageStrategy` of fixed policies (one per absolute seat).

    The policies are asked in batches of states in the order of
    :func:`whole_game_nash_conv`'s walk, :data:`STATE_ROWS` information sets a batch, by
    ``answers`` (default: in this process), one batch ahead of the walk; each answer is
    kept until it is asked for. Policies that all read the action mask alone
    (:func:`~grove_env.analysis.policies.reads_mask_only`) are asked once per round
    tree, and give that same list at every state.
    """
    if all(reads_mask_only(p) for p in policies):
        once: dict[int, list[np.ndarray]] = {}

        def everywhere(counts: Counts, r: int, stage: RoundTree) -> list[np.ndarray]:
            f = states.first(r)
            if f not in once:
                once[f] = branch_probabilities(trees[f], list(policies))
            return once[f]

        return everywhere
    answers = answers or PolicyAnswers(trees, policies)
    batches: list[tuple[int, list[State]]] = []
    for k in range(len(states.layers) - 1, -1, -1):
        r = states.round_of(k)
        f = states.first(r)
        size = max(1, STATE_ROWS // sum(len(d.observations) for d in trees[f].depths))
        walk = [(c, r) for c in sorted(states.layers[k])]
        batches += [(f, walk[i : i + size]) for i in range(0, len(walk), size)]
    asked = [answers.submit(*batch) for batch in batches[:2]]
    taken = [0]
    ready: dict[State, list[np.ndarray]] = {}

    def strategy(counts: Counts, r: int, stage: RoundTree) -> list[np.ndarray]:
        if (counts, r) not in ready:
            i = taken[0]
            taken[0] += 1
            ready.update(zip(batches[i][1], asked.pop(0)()))
            if i + 2 < len(batches):
                asked.append(answers.submit(*batches[i + 2]))
        return ready.pop((counts, r))

    return strategy


def whole_game_nash_conv(
    states: PublicStates, trees: list[RoundTree], strategy: StageStrategy
) -> WholeGameExploitability:
    """NashConv of the profile that plays ``strategy`` at each state.

    ``trees[f]`` is the round tree with first player ``f`` (only its information sets
    and chance are used). ``strategy`` is asked for each state once, from the last round
    back to the first. Where it gives the very same list for consecutive states of a
    round (a policy that reads the action mask alone), those states are valued together
    by one :func:`~grove_env.analysis.stage_maps.stage_map`; any other state walks its
    tree (:func:`~grove_env.analysis.best_response.stage_values`).
    """
    n = states.num_players
    later: dict[Counts, np.ndarray] = {}
    """Per state of the next round: on-policy values (n) then best-response values (n)."""
    maps: dict[int, tuple[list[np.ndarray], StageMap]] = {}
    for k in range(len(states.layers) - 1, -1, -1):
        r = states.round_of(k)
        stage = trees[states.first(r)]
        later_on, later_best = _part(later, 0, n), _part(later, 1, n)
        shared: dict[int, list[tuple[Counts, np.ndarray, np.ndarray]]] = {}
        alone: tuple[Counts, list[np.ndarray], np.ndarray, np.ndarray] | None = None
        now: dict[Counts, np.ndarray] = {}
        for counts in sorted(states.layers[k]):
            step = states.step(counts, r)
            on = stage_payoff(step, later_on, r < states.max_rounds)
            best = stage_payoff(step, later_best, r < states.max_rounds)
            probs = strategy(counts, r, dataclasses.replace(stage, payoff=on))
            if alone is not None and alone[1] is probs:  # the same answers again: one map
                if id(probs) not in maps:
                    maps[id(probs)] = (probs, stage_map(stage, probs))
                shared[id(probs)] = [(alone[0], alone[2], alone[3])]
                alone = None
            if id(probs) in maps:
                shared.setdefault(id(probs), []).append((counts, on, best))
                continue
            if alone is not None:
                now[alone[0]] = np.concatenate(stage_values(stage, *alone[1:]))
            alone = (counts, probs, on, best)
        if alone is not None:
            now[alone[0]] = np.concatenate(stage_values(stage, *alone[1:]))
        for key, rows in shared.items():
            on_all, best_all = (np.stack([row[i] for row in rows]) for i in (1, 2))
            values, responses = maps[key][1].values(on_all, best_all)
            for (counts, _, _), v, b in zip(rows, values, responses):
                now[counts] = np.concatenate([v, b])
        later = now
    root = later[states.begin]
    return WholeGameExploitability(
        nash_conv=float(root[n:].sum() - root[:n].sum()),
        values=tuple(float(v) for v in root[:n]),
        best_response_values=tuple(float(v) for v in root[n:]),
        states=states.count,
    )


def _part(values: dict[Counts, np.ndarray], part: int, n: int) -> dict[Counts, np.ndarray]:
    return {c: v[part * n : part * n + n] for c, v in values.items()}
