"""OpenSpiel registration: OpenSpiel's own checks, Shimmy's api_test, and NashConv agreement."""

from __future__ import annotations

import os
import random

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="the openspiel extra (open_spiel wheels need CPython >= 3.11) is missing"
)
grove_openspiel = pytest.importorskip("grove_env.openspiel")

from grove_env.analysis.best_response import exploitability  # noqa: E402
from grove_env.analysis.policies import policy_of, spiel_policy  # noqa: E402
from grove_env.analysis.round_tree import build_round_tree, markers_reward_table  # noqa: E402
from grove_env.observation import ObservationEncoder  # noqa: E402
from grove_env.rules import get_rules  # noqa: E402

NAMES = [
    "python_grove",
    "python_grove(players=3,rules=revised)",
    "python_grove(players=5,rules=revised,max_rounds=4)",
    "python_grove(players=4,rules=classic,max_rounds=3)",
    "python_grove_round",
    "python_grove_round(players=4,coloured=3 4 5 2,penalty=1 1 0 2,first_player=2,round=4)",
    "python_grove_round(players=5,rules=revised)",
]


@pytest.mark.parametrize("name", NAMES)
def test_openspiel_random_simulation(name):
    game = pyspiel.load_game(name)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_game_info_follows_the_parameters():
    game = pyspiel.load_game("python_grove(players=3,rules=revised)")
    assert game.num_players() == 3
    assert game.observation_tensor_shape() == [125]
    assert game.information_state_tensor_shape()[0] > 125
    assert pyspiel.load_game("python_grove_round(players=4)").num_players() == 4
    with pytest.raises(Exception, match="allows num_players"):
        pyspiel.load_game("python_grove(players=5,rules=classic)")


def play_round(state, rng):
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("rules,n", [("classic", 2), ("classic", 4), ("revised", 3)])
def test_round_utility_is_the_env_markers_reward(rules, n):
    table = markers_reward_table(get_rules(rules), n)
    game = pyspiel.load_game(f"python_grove_round(players={n},rules={rules},first_player=1)")
    rng = random.Random(0)
    for _ in range(20):
        state = play_round(game.new_initial_state(), rng)
        record = state.game.history[-1]
        acc = sum(slot * 3 ** (n - 1 - k) for k, (_, slot) in enumerate(record.accusations))
        rel = [(s - 1) % n for s in range(n)]
        assert np.allclose(state.returns(), table[record.culprit, acc][rel])


def test_observation_is_the_encoders_and_information_state_recalls_past_rounds():
    game = pyspiel.load_game("python_grove(players=2,max_rounds=5)")
    state = game.new_initial_state()
    rng = random.Random(1)
    encoder = ObservationEncoder(get_rules("classic"), 2)
    rounds = 0
    while not state.is_terminal() and rounds < 3:
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(outcomes, probs)[0])
            continue
        seat = state.current_player()
        assert np.array_equal(state.observation_tensor(seat), encoder.encode(state.game, seat))
        info = np.asarray(state.information_state_tensor(seat))
        assert np.array_equal(info[:125], state.observation_tensor(seat))
        assert info[125:].reshape(-1, grove_openspiel.ROUND_BLOCK)[:rounds].any(axis=1).all()
        before = state.game.round
        state.apply_action(rng.choice(state.legal_actions()))
        rounds += state.is_chance_node() and state.round > before


def test_shimmy_api_test():
    shimmy = pytest.importorskip("shimmy", reason="the openspiel extra installs shimmy")
    from pettingzoo.test import api_test

    for config in ({"players": 3, "rules": "revised", "max_rounds": 3}, {"players": 2}):
        env = shimmy.OpenSpielCompatibilityV0(game_name="python_grove", config=config)
        api_test(env, num_cycles=200)


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("GROVE_SLOW") != "1", reason="set GROVE_SLOW=1 (1-2 min each)")
@pytest.mark.parametrize(
    ("rules", "spec"),
    [
        ("classic", "random"),
        ("classic", "greedy"),
        ("classic", "heuristic"),
        ("revised", "random"),
        ("revised", "heuristic"),
    ],
)
def test_nash_conv_equals_openspiel_at_two_players(rules, spec):
    from open_spiel.python.algorithms.exploitability import nash_conv

    game = pyspiel.load_game(f"python_grove_round(players=2,rules={rules})")
    policy = policy_of(spec)
    theirs = nash_conv(game, spiel_policy(game, policy))
    ours = exploitability(build_round_tree(rules, 2), policy).nash_conv
    assert ours == pytest.approx(theirs, abs=1e-6)
