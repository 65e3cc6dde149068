"""Exploitability descent over the whole two-player game, one round's stage at a time.

:mod:`~grove_env.training.descent.exact` trains the round from the start of a game for its own
markers, and a round's equilibrium is not the game's. The game is a walk over public
marker states (:mod:`grove_env.analysis.whole_game`), each state a round whose payoffs
are the outcome where the game ends and the values of the states it leads to otherwise.
:func:`descend_game`:

- every ``refresh`` iterations, the whole game's exact NashConv of the network (the
  analysis's backward walk, asking the network at each state), keeping each state's
  stage: its round tree with the on-policy continuation values as payoffs;
- each iteration in between, a descent step (:func:`~grove_env.training.descent.exact.
  descent_loss`) on the first state's stage and on one other state's drawn at random,
  with those payoffs held fixed: against each stage's best responses, the deviations
  of one round.

Where no one-round deviation gains against continuation values that are the profile's
own, the profile is the game's equilibrium (backward induction, as the whole-game solver
builds it). Between refreshes the values lag the network, which is why they are
refreshed. The weights of the lowest whole-game NashConv measured are kept.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from grove_env.agents.learned.actor import Actor
from grove_env.analysis.measure import round_tree
from grove_env.analysis.round_tree import RoundTree
from grove_env.analysis.whole_game import Counts, at_state, public_states, whole_game_nash_conv
from grove_env.rules import RuleSet
from grove_env.training.descent.exact import descent_loss
from grove_env.training.descent.loop import check_settings, run_descent
from grove_env.training.descent.tree import (
    DescentReport,
    Inputs,
    Measured,
    as_fixed,
    branch_probabilities,
    tree_inputs,
)

State = tuple[Counts, int]
"""A public state: the marker counts and the round."""


def descend_game(
    actor: Actor,
    rules: RuleSet,
    num_players: int,
    max_rounds: int,
    iterations: int,
    lr: float,
    lr_end: float = 0.02,
    refresh: int = 100,
    on_report: Callable[[DescentReport], None] | None = None,
    seed: int = 0,
    round_weight: float = 0.0,
) -> list[DescentReport]:
    """Train ``actor`` by stage-wise descent over the whole game (module docstring); leave
    it holding the weights of the lowest whole-game NashConv measured. Two players.

    ``round_weight``: the first round's own descent loss (its markers as payoffs, as the
    one-round NashConv counts them), times this weight, is added to each step, so that
    the policy stays near the round's equilibrium while it learns the game's."""
    if num_players != 2:
        raise ValueError("whole-game descent is for two players")
    check_settings(iterations, lr, lr_end, ("refresh", refresh))  # before the inputs
    states = public_states(rules, num_players, max_rounds)
    trees = [round_tree(rules, num_players, f) for f in range(num_players)]
    inputs: dict[State, Inputs] = {}
    for k, layer in enumerate(states.layers):
        r = states.round_of(k)
        for counts in layer:
            inputs[(counts, r)] = tree_inputs(actor, at_state(trees[states.first(r)], counts, r))
    first: State = (states.begin, states.start.round)
    others = sorted((key for key in inputs if key != first), key=lambda key: (key[1], key[0]))
    rng = np.random.default_rng(seed)
    stages: dict[State, RoundTree] = {}

    def strategy(counts: Counts, r: int, stage: RoundTree) -> list[np.ndarray]:
        stages[(counts, r)] = stage
        with torch.no_grad():
            return as_fixed(branch_probabilities(actor, inputs[(counts, r)]))

    def measure() -> Measured:  # refreshes the stages too; no play term here
        return whole_game_nash_conv(states, trees, strategy).nash_conv, {}

    def loss() -> torch.Tensor:
        other = others[int(rng.integers(len(others)))]
        total = torch.zeros(())
        for key in (first, other):
            probs = branch_probabilities(actor, inputs[key])
            total = total + descent_loss(stages[key], probs)
            if key == first and round_weight:
                total = total + round_weight * descent_loss(trees[states.first(first[1])], probs)
        return total

    return run_descent(
        actor, iterations, lr, lr_end, ("refresh", refresh), measure, loss, on_report
    )
