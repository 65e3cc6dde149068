"""The exact three-player whole game against games played through the engine.

:func:`whole_game_exploitability` values every public state at once (a policy that reads
the mask alone through one :func:`~grove_env.analysis.stage_maps.stage_map` per round
tree). Here each state's stage is walked on its own instead, each seat's best response is
read off it, and then games are *played* through :class:`Game` from a position a few
rounds from the end, with every deal: the policy at every seat (asked on the encoder's
observation of the live game) and one seat at a time playing the computed best response.
The mean outcomes must lie within 3.29 standard errors (99.9%, twelve comparisons) of
``values`` and ``best_response_values``.
"""

from __future__ import annotations

import numpy as np
import pytest

from grove_env.analysis.best_response import best_response, stage_values
from grove_env.analysis.measure import nash_conv, round_tree
from grove_env.analysis.policies import Policy, branch_probabilities, policy_of, uniform
from grove_env.analysis.round_tree import MarkerState, RoundTree, build_round_tree
from grove_env.analysis.stage_maps import stage_map
from grove_env.analysis.state_views import PolicyAnswers, branches_at
from grove_env.analysis.whole_game import (
    PublicStates,
    at_state,
    public_states,
    stage_payoff,
    whole_game_exploitability,
)
from grove_env.core import Game
from grove_env.observation import ObservationEncoder
from grove_env.rules import get_rules

REVISED = get_rules("revised")
START = MarkerState(coloured=(3, 3, 3), penalty=(2, 1, 2), first_player=1, round=5)
"""Revised 3p, at most three rounds from the end: a few dozen public states."""

GAMES = 3000
Z = 3.29

_WEIGHTS = np.random.default_rng(7).normal(scale=3.0, size=(125, 10))


def linear(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """A mixed policy that reads the whole observation (counts and round included)."""
    logits = np.asarray(observations, np.float64) @ _WEIGHTS
    logits = np.where(masks > 0, logits, -np.inf)
    weights = np.exp(logits - logits.max(axis=1, keepdims=True))
    return weights / weights.sum(axis=1, keepdims=True)  # type: ignore[no-any-return]


def trees() -> list[RoundTree]:
    return [round_tree(REVISED, 3, f) for f in range(3)]


def stage_plans(states: PublicStates, policy: Policy) -> tuple[dict, np.ndarray]:
    """Per state, the policy's branch probabilities and each seat's best response,
    one state's stage at a time; and the root's on-policy then best-response values."""
    n, plans, later = 3, {}, {}
    for k in range(len(states.layers) - 1, -1, -1):
        r = states.round_of(k)
        tree = trees()[states.first(r)]
        on_later = {c: v[:n] for c, v in later.items()}
        best_later = {c: v[n:] for c, v in later.items()}
        now = {}
        for counts in states.layers[k]:
            step = states.step(counts, r)
            on = stage_payoff(step, on_later, r < states.max_rounds)
            best = stage_payoff(step, best_later, r < states.max_rounds)
            probs = branches_at(tree, [policy] * n, [(counts, r)])[0]
            values, responses = stage_values(tree, probs, on, best)
            leaves = best[tree.culprit.astype(np.intp)].reshape(len(tree.deals), -1, n)
            plans[(counts, r)] = [
                best_response(tree, probs, s, leaves=leaves[:, :, s])[1] for s in range(n)
            ]
            now[counts] = np.concatenate([values, responses])
        later = now
    return plans, later[states.begin]


def play(policy: Policy, plans: dict, deviator: int | None, seed: int) -> np.ndarray:
    """Outcomes ``float64[GAMES, 3]`` of games from :data:`START` through :class:`Game`."""
    rng = np.random.default_rng(seed)
    encoder = ObservationEncoder(REVISED, 3)
    deal_index = [{tuple(int(x) for x in d): i for i, d in enumerate(t.deals)} for t in trees()]
    out = np.zeros((GAMES, 3))
    for g in range(GAMES):
        game = Game(REVISED, 3, seed=int(rng.integers(2**32)))
        game.coloured, game.penalty = list(START.coloured), list(START.penalty)
        game.first_player = game.current_player = START.first_player
        game.round = START.round
        while True:
            state = ((tuple(game.coloured), tuple(game.penalty)), game.round)
            tree, node, record = trees()[game.first_player], 0, None
            deal = deal_index[game.first_player][tuple(game.deal)]
            for t in range(tree.num_decisions):
                seat, legal = game.current_player, game.legal_actions()
                if seat == deviator:
                    choice = plans[state][seat][t][tree.depths[t].infoset[deal, node]]
                    branch = int(np.argmax(choice))
                else:
                    mask = np.zeros((1, 10), np.int8)
                    mask[0, legal] = 1
                    p = policy(encoder.encode(game, seat)[None], mask)[0][legal]
                    branch = int(rng.choice(3, p=p / p.sum()))
                record = game.apply_action(legal[branch])
                node = 3 * node + branch
            assert record is not None
            if game.terminal:
                out[g] = game.returns()
                break
            # START is far from the 100-round limit: no game is cut off.
    return out


@pytest.mark.parametrize("policy", [uniform, linear], ids=["uniform", "linear"])
def test_sampled_games_agree_with_the_whole_game(policy):
    states = public_states(REVISED, 3, start=START)
    got = whole_game_exploitability(REVISED, 3, policy, start=START, trees=trees())
    plans, root = stage_plans(states, policy)
    assert np.allclose(got.values, root[:3], atol=1e-12)
    assert np.allclose(got.best_response_values, root[3:], atol=1e-12)
    assert min(got.gains) > 0.05  # a best response that gains little would test little
    for deviator, target in [(None, got.values), *enumerate(got.best_response_values)]:
        outcomes = play(policy, plans, deviator, seed=11 + (deviator or 0))
        seats = range(3) if deviator is None else [deviator]
        for s in seats:
            want = target[s] if deviator is None else target
            mean, se = outcomes[:, s].mean(), outcomes[:, s].std() / np.sqrt(GAMES)
            assert abs(mean - want) < Z * se, (deviator, s, mean, want, se)


def test_worker_processes_give_the_figure_one_process_gives():
    heuristic = policy_of("heuristic")
    figures = [
        whole_game_exploitability(
            REVISED, 3, heuristic, START.round + 1, START, trees=trees(), workers=w
        )
        for w in (1, 2)
    ]
    assert figures[0] == figures[1] and figures[0].states > 3 and figures[0].nash_conv > 0
    with PolicyAnswers(trees(), [heuristic] * 3, workers=2) as answers:
        assert answers.workers == 2  # the heuristic is NumPy alone: it says it may be forked
    with PolicyAnswers(trees(), [linear] * 3, workers=2) as answers:
        assert answers.workers == 1 and answers.pool is None  # it does not say so


@pytest.mark.parametrize("policy", [policy_of("heuristic"), linear], ids=["heuristic", "linear"])
def test_the_information_sets_left_unasked_change_no_value(policy):
    """Where a policy gives branches probability 0, ``branches_at`` asks it only where a
    value can depend on the answer; the sets it leaves (1/3 a branch) change no value."""
    tree = trees()[START.first_player]
    states = [(c, START.round) for c in sorted(public_states(REVISED, 3, start=START).layers[0])]
    rng = np.random.default_rng(5)
    for state, asked in zip(states, branches_at(tree, [policy] * 3, states)):
        full = branch_probabilities(at_state(tree, *state), [policy] * 3)
        left = sum(int((a != f).any(axis=1).sum()) for a, f in zip(asked, full))
        assert left > 1000 if policy is not linear else left == 0  # it mixes: all asked
        on, best = rng.normal(size=(2, 3, 27, 3))
        for got, want in zip(
            stage_values(tree, asked, on, best), stage_values(tree, full, on, best)
        ):
            assert np.allclose(got, want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("rules", ["revised", "classic"])
def test_one_map_values_many_states_as_each_tree_walk(rules):
    deals = {"revised": [(2, 3, 4, 5, 6, 7, 8), (8, 6, 4, 2, 3, 5, 7), (5, 2, 8, 3, 7, 4, 6)]}
    deals["classic"] = [(3, 4, 5, 6, 7, 8, 0), (8, 0, 3, 4, 5, 6, 7), (5, 3, 0, 8, 4, 7, 6)]
    tree = build_round_tree(rules, 3, MarkerState(first_player=2), deals=deals[rules])
    rng = np.random.default_rng(3)
    on, best = rng.normal(size=(2, 4, 3, 27, 3))
    for policy in (uniform, linear):
        probs = branch_probabilities(tree, [policy] * 3)
        values, responses = stage_map(tree, probs).values(on, best)
        for s in range(4):
            want = stage_values(tree, probs, on[s], best[s])
            assert np.allclose(values[s], want[0], atol=1e-12)
            assert np.allclose(responses[s], want[1], atol=1e-12)


def test_random_at_revised_three_players_keeps_its_figure():
    """The exact figure of the whole game, as the tree walk of every state gave it."""
    result = nash_conv("random", "revised", 3, whole_game=True)
    assert result.nash_conv == pytest.approx(2.176927583045387, abs=1e-9)
    assert result.states == 564
