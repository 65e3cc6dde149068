"""The whole-game solver, its file and the ``cfr`` agent that plays it."""

from __future__ import annotations

import os

import numpy as np
import pytest
from command_lines import load_script
from test_whole_game_exploitability import DEALS, WholeGameBruteForce

from grove_env import ObservationEncoder, grove_v1
from grove_env.agents.base import make_agent
from grove_env.agents.learned.cfr_agent import (
    PROB_SCALE,
    PROB_SCALE_SMALL,
    CfrAgent,
    data_file,
    load_strategy,
)
from grove_env.analysis.game_solver import save_game_strategy, solve_game
from grove_env.analysis.policies import policy_of
from grove_env.analysis.round_tree import MarkerState, position
from grove_env.analysis.whole_game import whole_game_exploitability
from grove_env.rules import get_rules

TWO_ROUNDS = MarkerState(coloured=(2, 3), penalty=(3, 4), first_player=1, round=5)
"""Revised: the game can last two more rounds (the limit is round 6)."""
CLASSIC_DEALS = [(3, 4, 5, 6, 7, 0), (0, 7, 6, 5, 4, 3), (5, 0, 3, 7, 6, 4)]


@pytest.mark.slow
def test_a_decided_last_round_is_worth_its_known_outcome():
    # Both seats place their last marker, and seat 1 already holds 3 penalty markers
    # more than seat 0 can gain: seat 0 wins whatever anyone does.
    start = MarkerState(coloured=(1, 1), penalty=(0, 3), first_player=0, round=7)
    solution = solve_game("revised", 2, target=1e-6, start=start)
    assert solution.states.count == 1 and solution.exploitability is not None
    assert solution.exploitability.values == pytest.approx((1.0, -1.0), abs=1e-12)
    assert solution.exploitability.nash_conv == pytest.approx(0.0, abs=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("target", [1e-2, 1e-4])
def test_a_solved_game_is_what_a_perfect_recall_brute_force_measures(tmp_path, target):
    solution = solve_game("revised", 2, target, max_rounds=6, start=TWO_ROUNDS, deals=DEALS)
    path = save_game_strategy(tmp_path / "g.npz", solution, note="test")
    brute = WholeGameBruteForce("revised", 2, TWO_ROUNDS, 6, policy_of(CfrAgent(str(path))))
    values = [brute.on_policy(s) for s in range(2)]
    best = [brute.best_response(s) for s in range(2)]
    assert solution.exploitability is not None
    assert np.allclose(solution.exploitability.values, values, atol=1e-12)
    assert np.allclose(solution.exploitability.best_response_values, best, atol=1e-12)
    assert solution.worst_stage <= target
    assert 0.0 <= sum(best) - sum(values) <= 2 * 2 * target  # seats x rounds x target


def test_states_far_from_the_limit_keep_the_strategy_of_two_rounds_later(tmp_path):
    start = MarkerState(coloured=(2, 2), penalty=(5, 5), first_player=0, round=10)
    solution = solve_game("classic", 2, 1e-3, max_rounds=16, start=start, deals=CLASSIC_DEALS)
    assert solution.kept > 0 and len(solution.strategies) + solution.kept == solution.states.count
    path = save_game_strategy(tmp_path / "g.npz", solution, note="test")
    with np.load(path, allow_pickle=False) as f:
        assert f["probs"].shape[0] == len(solution.strategies) < len(f["stage"])
    measured = whole_game_exploitability(
        "classic", 2, policy_of(CfrAgent(str(path))), 16, start, CLASSIC_DEALS
    )
    assert solution.exploitability is not None
    assert measured.nash_conv == pytest.approx(solution.exploitability.nash_conv, abs=1e-12)
    assert measured.nash_conv <= 1e-2


@pytest.mark.parametrize(
    ("rules", "n", "scale"),
    [("classic", 2, PROB_SCALE), ("revised", 2, PROB_SCALE), ("revised", 3, PROB_SCALE_SMALL)],
)
def test_the_shipped_whole_game_file_holds_the_documented_arrays(rules, n, scale):
    with np.load(data_file(rules, n), allow_pickle=False) as f:
        keys, probs, stage = f["keys"], f["probs"], f["stage"]
        assert keys.dtype == np.uint8 and keys.shape[1] == 15
        assert probs.shape[1:] == (len(keys), 3)
        assert probs.dtype == (np.uint16 if scale == PROB_SCALE else np.uint8)
        assert (probs.sum(axis=2, dtype=np.int64) == scale).all()
        assert f["coloured"].dtype == f["penalty"].dtype == np.int8
        assert f["coloured"].shape == f["penalty"].shape == (len(stage), n)
        assert f["round"].dtype == np.int16 and f["round"].min() == 1
        assert sorted(set(stage.tolist())) == list(range(len(probs)))
        assert int(f["max_rounds"]) == 100 and str(f["table"]) == f"{rules} {n}"


@pytest.mark.parametrize(
    ("rules", "n", "specs"),
    [
        ("classic", 2, ["cfr", "cfr-round"]),
        ("revised", 2, ["cfr", "cfr-round"]),
        ("revised", 3, ["cfr"]),
    ],  # fmt: skip
)
def test_cfr_plays_legal_moves_from_the_shipped_whole_game_file(rules, n, specs):
    env = grove_v1.raw_env(num_players=n, rules=rules, max_rounds=120, illegal_action="raise")
    agents = [make_agent(spec, seed=i) for i, spec in enumerate(specs)]
    rounds = []
    for game in range(4):
        env.reset(seed=game)
        for name in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            agent = agents[(env.agents.index(name) + game) % len(agents)]
            probs = policy_of(agent)(obs["observation"][None], obs["action_mask"][None])[0]
            assert probs.sum() == pytest.approx(1.0) and (probs[obs["action_mask"] == 0] == 0).all()
            env.step(agent.act(obs))
        rounds.append(env.unwrapped.game.round)
    assert max(rounds) > 1


def test_past_the_round_limit_a_state_plays_as_at_its_earliest_round():
    strategy = load_strategy(str(data_file("classic", 2)))

    def earliest(state):
        first = min(s[-1] for s in strategy.stage if s[:-1] == state[:-1])
        return strategy.stage[state[:-1] + (first,)]

    # A state whose last round plays another strategy than its earliest round.
    state = next(s for s in strategy.stage if s[-1] == 100 and strategy.stage[s] != earliest(s))
    # A game at round 101 with those counts (seat 0 first, so its seats are the file's).
    marker_state = MarkerState(state[:2], state[2:4], first_player=0, round=101)
    game = position(get_rules("classic"), 2, CLASSIC_DEALS[0], marker_state)
    obs = ObservationEncoder(game.rules, 2).encode(game, 0)[None]
    mask = np.zeros((1, 10), np.int8)
    mask[0, game.legal_actions()] = 1
    probs = CfrAgent().action_probabilities(obs, mask)[mask.astype(bool)]
    row = strategy.found(obs)[0]
    expected = strategy.probs[earliest(state), row] / PROB_SCALE
    assert np.array_equal(probs, expected)
    with pytest.raises(ValueError, match=r"no public state: coloured \(9, 9\)"):
        strategy.stage_of((9, 9, 0, 0, 50))


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("GROVE_SLOW") != "1", reason="set GROVE_SLOW=1 (~5 min)")
@pytest.mark.parametrize("rules", ["classic", "revised"])
def test_the_shipped_whole_game_strategy_is_within_a_hundredth(rules):
    result = whole_game_exploitability(rules, 2, policy_of(make_agent("cfr")))
    assert 0.0 <= result.nash_conv <= 0.01


@pytest.mark.parametrize("scale", [PROB_SCALE, PROB_SCALE_SMALL])
def test_a_three_seat_solution_is_what_the_cfr_agent_plays(tmp_path, scale):
    start = MarkerState(coloured=(2, 2, 3), penalty=(3, 4, 2), first_player=2, round=5)
    solution = solve_game("revised", 3, 1e-3, max_rounds=6, start=start, deals=DEALS, scale=scale)
    path = save_game_strategy(tmp_path / "g3.npz", solution, note="test")
    with np.load(path, allow_pickle=False) as f:
        assert f["coloured"].shape == (solution.states.count, 3) and str(f["table"]) == "revised 3"
        assert f["probs"].dtype == (np.uint16 if scale == PROB_SCALE else np.uint8)
        assert (f["probs"].sum(axis=2, dtype=np.int64) == scale).all()
    played = whole_game_exploitability(
        "revised", 3, policy_of(CfrAgent(str(path))), 6, start, DEALS
    )
    assert solution.exploitability is not None and solution.states.count > 3
    assert played.values == pytest.approx(solution.exploitability.values, abs=1e-12)
    assert played.nash_conv == pytest.approx(solution.exploitability.nash_conv, abs=1e-12)
    assert played.nash_conv <= 3 * 2 * 1e-3  # seats x rounds x stage target


def test_a_file_stored_smaller_is_measured_as_the_cfr_agent_plays_it(tmp_path, capsys):
    small = load_script("cfr_small")
    solution = solve_game("revised", 2, 1e-2, max_rounds=2)
    source = save_game_strategy(tmp_path / "big.npz", solution, note="test")
    assert small.main([str(source), str(tmp_path / "small.npz")]) == 0
    with np.load(tmp_path / "small.npz", allow_pickle=False) as f, np.load(source) as g:
        assert f["probs"].dtype == np.uint8 and f["probs"].shape == g["probs"].shape
        assert (f["probs"].sum(axis=2, dtype=np.int64) == PROB_SCALE_SMALL).all()
        gap = np.abs(f["probs"] / PROB_SCALE_SMALL - g["probs"] / PROB_SCALE).max()
        assert gap <= 1 / PROB_SCALE_SMALL
        note = str(f["note"])
    measured = whole_game_exploitability(
        "revised", 2, policy_of(CfrAgent(str(tmp_path / "small.npz"))), 2
    ).nash_conv
    assert note.startswith("test; probabilities stored x255") and f"{measured:.2e}" in note
    assert f"NashConv {measured:.6f}" in capsys.readouterr().out
    assert small.main([str(tmp_path / "small.npz"), str(tmp_path / "again.npz")]) == 1
    assert "stores uint8, not uint16" in capsys.readouterr().err
