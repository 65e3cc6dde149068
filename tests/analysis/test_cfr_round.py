"""CFR+ on one round, the shipped two-player round strategies and the ``cfr-round`` agent."""

from __future__ import annotations

import numpy as np
import pytest

from grove_env.agents.base import make_agent
from grove_env.agents.learned.cfr_agent import CfrAgent, data_file
from grove_env.analysis.best_response import exploitability_of
from grove_env.analysis.cfr import save_strategy, solve, strategy_probs
from grove_env.analysis.policies import policy_of
from grove_env.analysis.round_tree import MarkerState, build_round_tree
from grove_env.core import Game
from grove_env.observation import ObservationEncoder

RIGGED = [(2, 3, 4, 5, 6, 7, 8), (8, 7, 6, 5, 4, 3, 2), (5, 2, 8, 3, 7, 4, 6)]


def test_cfr_plus_drives_nash_conv_down_on_a_rigged_round():
    tree = build_round_tree("revised", 3, deals=RIGGED)
    start = exploitability_of(tree, [np.full((len(d.observations), 3), 1 / 3) for d in tree.depths])
    solution = solve(tree, seconds=1e9, max_iterations=200, check_every=50)
    assert solution.iterations == 200
    assert solution.exploitability.nash_conv < start.nash_conv / 20
    assert [nc for _, _, nc in solution.trace] == sorted(nc for _, _, nc in solution.trace)[::-1]


def test_a_saved_strategy_plays_back_what_was_solved(tmp_path):
    tree = build_round_tree("classic", 2, deals=[(3, 4, 5, 6, 7, 0), (0, 7, 6, 5, 4, 3)])
    solution = solve(tree, seconds=1e9, max_iterations=20)
    path = save_strategy(tmp_path / "s.npz", tree, solution.probs, note="test")
    agent = CfrAgent(str(path), seed=0)
    back = strategy_probs(tree, agent)
    for a, b in zip(back, solution.probs):
        assert np.allclose(a, b, atol=1e-6)
    with np.load(path, allow_pickle=False) as f:
        assert str(f["note"]) == "test"


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["classic", "revised"])
def test_shipped_two_player_strategy_is_within_a_thousandth_of_a_marker(rules):
    assert data_file(rules, 2, whole_game=False).is_file()
    tree = build_round_tree(rules, 2, MarkerState(first_player=1, round=3))
    result = exploitability_of(tree, strategy_probs(tree, make_agent("cfr-round")))
    assert 0.0 <= result.nash_conv <= 1e-3


@pytest.mark.parametrize("spec", ["cfr", "cfr-round"])
def test_cfr_agent_plays_legal_actions_at_any_marker_state(spec):
    agent = make_agent(spec, seed=1)
    game = Game("revised", 2, seed=3)
    encoder = ObservationEncoder(game.rules, 2)
    while not game.terminal and game.round < 4:
        seat = game.current_player
        mask = np.array([int(game.is_legal(a)) for a in range(10)], dtype=np.int8)
        obs = encoder.encode(game, seat)
        probs = policy_of(agent)(obs[None], mask[None])[0]
        assert probs.sum() == pytest.approx(1.0) and (probs[mask == 0] == 0).all()
        game.apply_action(agent.act({"observation": obs, "action_mask": mask}))


@pytest.mark.parametrize("spec", ["cfr", "cfr-round"])
def test_cfr_agent_names_a_table_it_has_no_strategy_for(spec):
    game = Game("classic", 3)
    obs = ObservationEncoder(game.rules, 3).encode(game, 0)
    with pytest.raises(ValueError, match=f"{spec}: no solved strategy ships for classic with 3"):
        make_agent(spec).act({"observation": obs, "action_mask": np.array([1] * 3 + [0] * 7)})
