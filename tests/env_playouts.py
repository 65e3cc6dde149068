"""Policies and a playout loop for the ``grove_v1`` tests, and the scores and outcome
a finished game should pay, written out again from the rules.
"""

from __future__ import annotations

import copy
import random

import numpy as np

from grove_env import culprit_slot
from grove_env.actions import ACCUSE_0, KEEP, Phase


def legal_of(obs: dict) -> list[int]:
    return [int(a) for a in np.flatnonzero(obs["action_mask"])]


def random_policy(rng: random.Random):
    def policy(env, agent, obs):
        return rng.choice(legal_of(obs))

    return policy


def culprit_policy(env, agent, obs):
    """Look at slots 1 and 2, keep the victim, and accuse the true culprit (peeking)."""
    game = env.unwrapped.game
    if game.phase is Phase.ACCUSE:
        return ACCUSE_0 + culprit_slot(game.suspects)
    return KEEP if game.phase is Phase.SWAP else 0


def play(env, policy, on_step=None) -> dict[str, list]:
    """Run ``env`` (already reset) to the end; returns what ``last()`` said, per agent."""
    seen: dict[str, list] = {a: [] for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        seen[agent].append((reward, terminated, truncated, copy.deepcopy(info)))
        action = None if terminated or truncated else policy(env, agent, obs)
        env.step(action)
        if on_step is not None:
            on_step(env, agent, action)
    return seen


def scores_of(rules: str, coloured, penalty) -> list[int]:
    if rules == "classic":
        return [c + p for c, p in zip(coloured, penalty)]
    return list(penalty)


def outcome(scores: list[int]) -> list[float]:
    d = len(scores) - 1
    return [(sum(o > s for o in scores) - sum(o < s for o in scores)) / d for s in scores]


def plain(value):
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value.tolist() if isinstance(value, np.ndarray) else copy.deepcopy(value)
