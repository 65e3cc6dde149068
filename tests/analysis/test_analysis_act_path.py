"""The analysis asks a learned policy the way play does: its input features included.

A ``features: advice`` network reads the heuristic's advice after the observation; the
agent appends it (:meth:`Actor.masked_logits`), and so must every NashConv of it. The
brute force of :mod:`test_best_response` asks the agent one ``act`` per node (the
deterministic agent, as it plays) or reads the softmax of the network over the advised
rows (the sampling agent), and the vectorised analysis must agree with it.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from test_best_response import CASES, BruteForce, rigged_deals

from grove_env.agents.heuristic.advice import advised
from grove_env.agents.learned.policy_net import build_actor
from grove_env.agents.learned.ppo import PPOAgent
from grove_env.agents.learned.safe_policy import PolicyCard, save_policy
from grove_env.analysis import nash_conv
from grove_env.analysis.__main__ import main
from grove_env.analysis.best_response import exploitability
from grove_env.analysis.policies import policy_of, uniform
from grove_env.analysis.round_tree import build_round_tree
from grove_env.analysis.whole_game import whole_game_exploitability
from grove_env.rules import get_rules


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


def test_the_command_line_measures_a_saved_advice_policy(tmp_path, capsys):
    actor = advice_actor(seed=1)
    card = PolicyCard("advice", (16,), "relu", ("revised",), (2,))
    path = save_policy(actor, card, tmp_path / "policy.json")
    assert (
        main(
            ["nashconv", "--rules", "revised", "--players", "2"]
            + ["--agent", f"ppo:{path}", "--json"]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    expected = nash_conv(PPOAgent(actor), "revised", 2)
    assert out["nash_conv"] == pytest.approx(expected.nash_conv, abs=1e-12) and out["nash_conv"] > 0


@pytest.mark.slow
def test_nash_conv_keeps_the_trees_and_measures_as_the_parts_do():
    whole = whole_game_exploitability("classic", 2, uniform, max_rounds=2)
    for _ in range(2):  # the second call finds the trees kept
        got = nash_conv("random", "classic", 2, whole_game=True, max_rounds=2)
        assert got.nash_conv == whole.nash_conv and got.values == whole.values
    one = exploitability(build_round_tree("classic", 2), policy_of("greedy"))
    assert nash_conv("greedy", get_rules("classic"), 2).nash_conv == one.nash_conv
    with pytest.raises(ValueError, match="round trees"):
        whole_game_exploitability("classic", 2, uniform, 2, trees=[build_round_tree("classic", 2)])
