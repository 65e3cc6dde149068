"""Exploitability descent over the whole two-player game, one round's stage at a time.

:mod:`~grove_env.training.descent` trains the round from the start of a game for its own
markers, and a round's equilibrium is not the game's. The game is a walk over public
marker states (:mod:`grove_env.analysis.whole_game`), each state a round whose payoffs
are the outcome where the game ends and the values of the states it leads to otherwise.
:func:`descend_game`:

- every ``refresh`` iterations, the whole game's exact NashConv of the network (the
  analysis's backward walk, asking the network at each state), keeping each state's
  stage: its round tree with the on-policy continuation values as payoffs;
- each iteration in between, a descent step (:func:`~grove_env.training.descent.
  descent_loss`) on the first state's stage and on one other state's drawn at random,
  with those payoffs held fixed: against each stage's best responses, the deviations
  of one round.

Where no one-round deviation gains against continuation values that are the profile's
own, the profile is the game's equilibrium (backward induction, as the whole-game solver
builds it). Between refreshes the values lag the network, which is why they are
refreshed. The weights of the lowest whole-game NashConv measured are kept.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable

import numpy as np
import torch

from grove_env.agents.learned.actor import Actor
from grove_env.analysis.measure import round_tree
from grove_env.analysis.round_tree import RoundTree
from grove_env.analysis.whole_game import Counts, at_state, public_states, whole_game_nash_conv
from grove_env.rules import RuleSet

from .descent import DescentReport, Inputs, branch_probabilities, descent_loss, tree_inputs

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
) -> list[DescentReport]:
    """Train ``actor`` by stage-wise descent over the whole game (module docstring); leave
    it holding the weights of the lowest whole-game NashConv measured. Two players."""
    if num_players != 2:
        raise ValueError("whole-game descent is for two players")
    if iterations < 0 or refresh < 1 or lr <= 0 or not 0 <= lr_end <= 1:
        raise ValueError("need iterations >= 0, refresh >= 1, lr > 0, 0 <= lr_end <= 1")
    states = public_states(rules, num_players, max_rounds)
    trees = [round_tree(rules, num_players, f) for f in range(num_players)]
    inputs: dict[State, Inputs] = {}
    for k, layer in enumerate(states.layers):
        r = states.round_of(k)
        for counts in layer:
            inputs[(counts, r)] = tree_inputs(actor, at_state(trees[states.first(r)], counts, r))
    keys = sorted(inputs, key=lambda key: (key[1], key[0]))
    first: State = (states.begin, states.start.round)
    params = [p for m in (actor.body, actor.head) for p in m.parameters()]
    optimizer = torch.optim.Adam(params, lr=lr)
    rng = np.random.default_rng(seed)
    began = time.perf_counter()
    reports: list[DescentReport] = []
    best: tuple[float, dict] | None = None
    stages: dict[State, RoundTree] = {}

    def strategy(counts: Counts, r: int, stage: RoundTree) -> list[np.ndarray]:
        stages[(counts, r)] = stage
        with torch.no_grad():
            return [p.double().numpy() for p in branch_probabilities(actor, inputs[(counts, r)])]

    for k in range(iterations + 1):
        if k % refresh == 0 or k == iterations:
            measured = whole_game_nash_conv(states, trees, strategy).nash_conv
            report = DescentReport(k, measured, time.perf_counter() - began)
            reports.append(report)
            if on_report is not None:
                on_report(report)
            if best is None or measured < best[0]:
                best = (measured, copy.deepcopy(actor.state_dict()))
        if k == iterations:
            break
        for group in optimizer.param_groups:
            group["lr"] = lr * (1.0 - (1.0 - lr_end) * k / max(iterations, 1))
        other = keys[int(rng.integers(len(keys)))]
        loss = torch.zeros(())
        for key in (first, other):
            loss = loss + descent_loss(stages[key], branch_probabilities(actor, inputs[key]))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    assert best is not None
    actor.load_state_dict(best[1])
    return reports
