"""Exact NashConv of an agent at a table: one call for the command line and for training.

:func:`nash_conv` takes an agent (or a spec such as ``"ppo:runs/x"``) and asks it through
its own act path (:func:`~grove_env.analysis.policies.policy_of`: the agent's
``action_probabilities``, or its ``act_batch`` choices), so a network's input features
are made as they are in play. A trainer measures its live network by wrapping the actor
it plays with, e.g. ``PPOAgent(actor, deterministic=False)`` for the policy it samples.

The round trees (the arrays of every deal x history) are kept between calls, the last
:data:`KEPT_TREES` of them, so a trainer that measures every few steps builds them once.
They are large at four seats: classic 4p's takes about 80 s to build and about 2 GB.

========================  ==============================================================
``whole_game``            what is measured
========================  ==============================================================
``False``                 one round from the start of a game, ``markers`` reward
``True``                  the whole game to ``max_rounds``, ``outcome`` reward (two or
                          three seats: at four a round tree alone is a minute and GBs,
                          and revised 4p has 2,740 public states)
========================  ==============================================================
"""

from __future__ import annotations

import functools
from typing import Any

from grove_env.rules import RULE_SETS, RuleSet, get_rules

from .best_response import Exploitability, exploitability
from .policies import policy_of
from .round_tree import MarkerState, RoundTree, build_round_tree
from .whole_game import WholeGameExploitability, whole_game_exploitability

WHOLE_GAME_PLAYERS = 3
"""The most seats whose whole game is measured exactly (revised 4p has 2,740 public
states, each a round tree of a minute and GBs); beyond, a learned best response gives
a lower bound."""

WHOLE_GAME_ROUTINE = {"classic": 2, "revised": 3}
"""Per rule set, the most seats whose whole game a final figure measures as a matter of
course (a trained run's ``final_nashconv``, the zoo's cards): minutes. Classic 3p is
exact too, but its 141,170 public states (with the round) take hours for a policy that
reads the marker counts, as a network does (random: minutes)."""

KEPT_TREES = 3
"""Round trees kept between calls: every first player of a whole game at up to three seats."""


def round_tree(rules: RuleSet, num_players: int, first_player: int = 0) -> RoundTree:
    """The round tree from the start of a game with ``first_player`` to act (kept, for
    the named rule sets)."""
    if RULE_SETS.get(rules.name) != rules:  # a rule set made by hand: no name to keep it by
        return build_round_tree(rules, num_players, MarkerState(first_player=first_player))
    return _named_tree(rules.name, num_players, first_player)


@functools.lru_cache(maxsize=KEPT_TREES)
def _named_tree(rules: str, num_players: int, first_player: int) -> RoundTree:
    return build_round_tree(rules, num_players, MarkerState(first_player=first_player))


def nash_conv(
    agent: Any,
    rules: str | RuleSet,
    num_players: int,
    whole_game: bool = False,
    max_rounds: int = 100,
    seed: int | None = 0,
    *,
    workers: int = 1,
) -> Exploitability | WholeGameExploitability:
    """NashConv of ``agent`` (an agent or a spec) playing every seat (module docstring).

    The result's ``nash_conv`` is the sum of the seats' best-response gains; ``values``
    and ``gains`` give each seat's part. ``seed`` seeds an agent built from a spec.
    ``workers`` processes ask the policy over the whole game where it allows it
    (:class:`~grove_env.analysis.state_views.PolicyAnswers`; the figure is the same).
    """
    rules = get_rules(rules)
    n = rules.check_players(num_players)
    if whole_game and n > WHOLE_GAME_PLAYERS:
        raise ValueError(
            f"the whole game is measured exactly at 2 to {WHOLE_GAME_PLAYERS} players, got {n}"
        )
    policy = policy_of(agent, seed=seed)
    if whole_game:
        trees = [round_tree(rules, n, f) for f in range(n)]
        return whole_game_exploitability(rules, n, policy, max_rounds, trees=trees, workers=workers)
    return exploitability(round_tree(rules, n), policy)
