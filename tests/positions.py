"""Helpers shared by the tests: every table, a position's observation, and agent playouts."""

from __future__ import annotations

import numpy as np

from grove_env import Game, ObservationEncoder, grove_v1
from grove_env.actions import NUM_ACTIONS
from grove_env.agents.arena.match import play_game
from grove_env.agents.base import Agent, make_agent
from grove_env.rules import RULE_SETS

TABLES = [(name, n) for name, rules in RULE_SETS.items() for n in rules.player_counts]
"""Every rule set and player count, ``(rules, num_players)``, from the RuleSet registry."""


def observe(game: Game, seat: int) -> dict[str, np.ndarray]:
    """The observation dict grove_v1 would give ``seat`` now."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    if seat == game.current_player:
        mask[game.legal_actions()] = 1
    enc = ObservationEncoder(game.rules, game.num_players)
    return {"observation": enc.encode(game, seat), "action_mask": mask}


def play(game: Game, *actions: int) -> Game:
    """Apply ``actions`` in order and return the game."""
    for a in actions:
        game.apply_action(a)
    return game


def count_legal_decisions(agent: Agent, rules: str, n: int, first_seed: int, target: int) -> int:
    """Play ``agent`` in every seat but one (random) until it made ``target`` decisions.

    Every action is checked against its mask (a masked one raises
    :class:`~grove_env.agents.arena.match.IllegalActionError`); returns the agent's decision count.
    """
    env = grove_v1.raw_env(num_players=n, rules=rules, illegal_action="raise")
    rnd = make_agent("random", seed=n)
    decisions = 0
    for game in range(400):
        seats = [rnd if seat == game % n else agent for seat in range(n)]
        result = play_game(env, seats, first_seed + game)
        decisions += sum(d for seat, d in enumerate(result.decisions) if seat != game % n)
        if decisions >= target:
            break
    return decisions
