"""Helpers shared by the agent tests: build a position and read a seat's observation."""

from __future__ import annotations

import numpy as np

from grove_env import Game, ObservationEncoder
from grove_env.actions import NUM_ACTIONS


def observe(game: Game, seat: int) -> dict[str, np.ndarray]:
    """The observation dict grove_v0 would give ``seat`` now."""
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


TABLES = [("classic", 2), ("classic", 3), ("classic", 4)] + [("revised", n) for n in (2, 3, 4, 5)]
"""Every rule set and player count."""


def count_legal_decisions(agent, rules: str, n: int, first_seed: int, target: int) -> int:
    """Play ``agent`` in every seat but one (random) until it made ``target`` decisions.

    Asserts that every action it picks is allowed by the mask; returns its decision count.
    """
    from grove_env import grove_v0
    from grove_env.agents.base import make_agent

    env = grove_v0.raw_env(num_players=n, rules=rules, illegal_action="raise")
    rnd = make_agent("random", seed=n)
    decisions = 0
    for game in range(400):
        env.reset(seed=first_seed + game)
        while env.agents:
            name = env.agent_selection
            if env.terminations[name] or env.truncations[name]:
                env.step(None)
                continue
            obs = env.observe(name)
            player = rnd if env.agent_name_mapping[name] == game % n else agent
            action = player.act(obs)
            assert obs["action_mask"][action] == 1
            env.step(action)
            decisions += player is agent
        if decisions >= target:
            break
    return decisions
