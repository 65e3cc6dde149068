"""The analysis asks a learned policy the way play does: its input features included.

A ``features: advice`` network reads the heuristic's advice after the observation; the
agent appends it (:meth:`Actor.masked_logits`), and so must every NashConv of it. The
brute force of :mod:`test_best_response` asks the agent one ``act`` per node (the
deterministic agent, as it plays) or reads the softmax of the network over the advised
rows (the sampling agent), and the vectorised analysis must agree with it.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from test_best_response import CASES, BruteForce, rigged_deals

from grove_env.agents.heuristic.advice import advised
from grove_env.agents.learned.policy_net import build_actor
from grove_env.agents.learned.ppo import PPOAgent
from grove_env.analysis.best_response import exploitability
from grove_env.analysis.policies import policy_of
from grove_env.analysis.round_tree import build_round_tree


def advice_actor(seed: int = 0) -> torch.nn.Module:
    torch.manual_seed(seed)
    actor = build_actor("advice", 125, [16], "relu", 10)
    actor.requires_grad_(False)
    return actor


def played(agent: PPOAgent):
    """One ``act`` per observation, as a seat in a game asks it."""

    def probs(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        out = np.zeros(masks.shape)
        for i, (o, m) in enumerate(zip(observations, masks)):
            out[i, agent.act({"observation": o, "action_mask": m})] = 1.0
        return out

    return probs


def network_softmax(actor):
    """The masked softmax of the network over the rows it reads (observation, advice)."""

    def probs(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            logits = actor(torch.as_tensor(advised(observations), dtype=torch.float32))
        logits = np.where(masks.astype(bool), logits.double().numpy(), -np.inf)
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    return probs


@pytest.mark.parametrize("deterministic", [True, False], ids=["argmax", "sampled"])
def test_nash_conv_of_an_advice_policy_matches_the_brute_force(deterministic):
    rules, n, state = CASES[1]  # revised, two seats, mid-game
    deals, weights = rigged_deals(rules, n, 3, seed=n)
    actor = advice_actor()
    agent = PPOAgent(actor, deterministic=deterministic, seed=0)
    reference = played(agent) if deterministic else network_softmax(actor)
    tree = build_round_tree(rules, n, state, deals=deals, weights=weights)
    got = exploitability(tree, policy_of(agent))
    brute = BruteForce(rules, n, deals, weights, state, reference)
    values = brute.values()
    best = np.array([brute.best_response(seat) for seat in range(n)])
    assert np.allclose(got.values, values, atol=1e-9)
    assert np.allclose(got.best_response_values, best, atol=1e-9)
    assert got.nash_conv > 0.01  # an untrained network is exploitable: the check has teeth
