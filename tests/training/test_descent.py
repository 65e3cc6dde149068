"""Exploitability descent on the exact round tree: its pieces and its progress.

The runs of the training command with a ``descent:`` section: ``test_descent_runs.py``.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import torch
from descents import ROOT, fresh_actor

from grove_env.analysis import nash_conv
from grove_env.analysis.best_response import (
    best_response,
    best_response_value,
    exploitability_of,
    policy_values,
    seat_counterfactual_values,
)
from grove_env.analysis.measure import round_tree
from grove_env.analysis.policies import branch_probabilities as policy_branches
from grove_env.analysis.policies import policy_of
from grove_env.analysis.whole_game import public_states
from grove_env.rules import get_rules
from grove_env.training.config import load_config, read_yaml
from grove_env.training.descent.exact import descend, descent_loss, other_states
from grove_env.training.descent.game import descend_game
from grove_env.training.descent.loop import GRADIENTS, check_settings, kept, lowest
from grove_env.training.descent.tree import (
    DescentReport,
    branch_probabilities,
    floors_on,
    opponents_on,
    play_loss,
    play_values,
    tree_inputs,
)


@pytest.fixture(scope="module")
def tree():
    return round_tree(get_rules("revised"), 2)


def heuristic_probs(tree) -> list[np.ndarray]:
    return policy_branches(tree, [policy_of("heuristic")] * 2)


def test_the_best_response_profile_reaches_the_best_response_value(tree) -> None:
    probs = heuristic_probs(tree)
    for seat in (0, 1):
        value, profile = best_response(tree, probs, seat)
        assert value == pytest.approx(best_response_value(tree, probs, seat), abs=1e-12)
        assert policy_values(tree, profile)[seat] == pytest.approx(value, abs=1e-9)
        assert value >= policy_values(tree, probs)[seat] - 1e-12
        mine = [t for t, d in enumerate(tree.depths) if d.seat == seat]
        for t in mine:  # one-hot rows where the seat acts, the others' rows untouched
            assert ((profile[t] == 0) | (profile[t] == 1)).all() and (profile[t].sum(1) == 1).all()
        for t in set(range(len(probs))) - set(mine):
            assert profile[t] is probs[t]


def test_counterfactual_values_at_a_seats_first_decision_add_up_to_its_value(tree) -> None:
    probs = heuristic_probs(tree)
    values = policy_values(tree, probs)
    for seat in (0, 1):
        cfv = seat_counterfactual_values(tree, probs, seat)
        first = min(cfv)
        assert float((probs[first] * cfv[first]).sum()) == pytest.approx(values[seat], abs=1e-9)


def test_descent_lowers_nashconv_and_keeps_the_lowest_weights(tree) -> None:
    actor = fresh_actor()
    reports = descend(actor, tree, iterations=20, lr=0.003, report_every=5)
    assert [r.iteration for r in reports] == [0, 5, 10, 15, 20]
    assert all(r.play == {} for r in reports)  # no play term, no play values
    assert reports[0].nash_conv == pytest.approx(0.495, abs=0.01)  # about uniform at the start
    kept = lowest(reports)
    assert kept.nash_conv < 0.35
    as_played = SimpleNamespace(action_probabilities=actor.probabilities)  # the play path
    assert nash_conv(as_played, "revised", 2).nash_conv == pytest.approx(kept.nash_conv, abs=1e-6)
    probs = branch_probabilities(actor, tree_inputs(actor, tree))
    assert all(torch.allclose(p.sum(1), torch.ones(len(p))) for p in probs)


def test_the_descent_term_follows_the_gradient_of_nashconv_at_three_seats() -> None:
    """The loss's slope along a direction equals NashConv's own (central differences):
    checked where each seat acts for the first time, since the counterfactual values
    leave the seat's own reach out (the same convention at every depth). ``own``, each
    seat pushed up for itself, follows something else at three seats."""
    tree = round_tree(get_rules("revised"), 3)
    g = torch.Generator().manual_seed(0)
    logits = [torch.randn(len(d.masks), 3, generator=g, dtype=torch.float64) for d in tree.depths]
    seats = [d.seat for d in tree.depths]
    first = [seats.index(seat) == t for t, seat in enumerate(seats)]
    assert first == [True, False, True, True]  # seat 0 looks, then swaps
    d = [torch.randn(x.shape, generator=g, dtype=torch.float64) * f for x, f in zip(logits, first)]

    def nash_conv_at(step: float) -> float:
        moved = [torch.softmax(x + step * dx, 1).numpy() for x, dx in zip(logits, d)]
        return exploitability_of(tree, moved).nash_conv

    eps = 1e-5
    numeric = (nash_conv_at(eps) - nash_conv_at(-eps)) / (2 * eps)
    slopes = {}
    for gradient in GRADIENTS:
        leaves = [x.clone().requires_grad_(True) for x in logits]
        descent_loss(tree, [torch.softmax(x, 1) for x in leaves], gradient).backward()
        slopes[gradient] = sum(float((x.grad * dx).sum()) for x, dx in zip(leaves, d))
    assert abs(numeric) > 1e-3
    assert slopes["nashconv"] == pytest.approx(numeric, rel=1e-5)
    assert slopes["own"] != pytest.approx(numeric, rel=0.01)
    with pytest.raises(ValueError, match="gradient is nashconv or own"):
        descent_loss(tree, [torch.softmax(x, 1) for x in logits], "best")


def test_at_two_players_the_two_gradients_are_one(tree) -> None:
    actor = fresh_actor()
    probs = branch_probabilities(actor, tree_inputs(actor, tree))
    losses = [descent_loss(tree, probs, gradient).item() for gradient in GRADIENTS]
    assert losses[0] == losses[1] and abs(losses[0]) > 0.01


def test_descent_refuses_bad_settings(tree) -> None:
    for lr in (0.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="lr > 0"):
            descend(fresh_actor(), tree, iterations=5, lr=lr)


def test_other_states_are_the_later_rounds_with_their_own_inputs(tree) -> None:
    actor = fresh_actor()
    rules = get_rules("revised")
    later = other_states(actor, rules, 2, max_rounds=2)
    second = public_states(rules, 2, max_rounds=2).layers[1]
    assert len(later) == len(second) > 1
    first_inputs = tree_inputs(actor, tree)
    for one in later:
        other, inputs = one.tree, one.inputs
        assert one.against == []  # no opponents asked for
        assert other.state is not None and len(other.depths) == len(tree.depths)
        assert all(d.observations.size == 0 for d in other.depths)  # the inputs hold them
        assert [x.shape for x, _ in inputs] == [x.shape for x, _ in first_inputs]
        assert not torch.equal(inputs[0][0], first_inputs[0][0])  # round and counts differ
    reports = descend(actor, tree, iterations=2, lr=0.003, report_every=1, also=later, seed=1)
    assert [r.iteration for r in reports] == [0, 1, 2]


def test_other_states_of_the_first_later_rounds_carry_their_opponents() -> None:
    actor = fresh_actor()
    rules = get_rules("revised")
    states = public_states(rules, 2, max_rounds=100)
    later = other_states(actor, rules, 2, 100, rounds=1, against={"greedy": 1.0})
    assert len(later) == len(states.layers[1]) < sum(len(x) for x in states.layers) - 1
    for one in later:
        ((spec, weight, branches),) = one.against
        assert (spec, weight) == ("greedy", 1.0)
        assert [len(b) for b in branches] == [len(x) for x, _ in one.inputs]
        assert all(((b == 0) | (b == 1)).all() for b in branches)  # greedy decides


def against_greedy(tree, probs, seat) -> list[np.ndarray]:
    greedy = policy_branches(tree, [policy_of("greedy")] * 2)
    return [probs[t] if d.seat == seat else greedy[t] for t, d in enumerate(tree.depths)]


def test_play_values_are_each_seats_value_against_copies_of_the_opponent(tree) -> None:
    actor = fresh_actor()
    inputs = tree_inputs(actor, tree)
    probs = [p.detach().double().numpy() for p in branch_probabilities(actor, inputs)]
    opponents = opponents_on(tree, {"greedy": 3, "random": 1})
    assert [(spec, w) for spec, w, _ in opponents] == [("greedy", 0.75), ("random", 0.25)]
    values = play_values(tree, probs, opponents)
    direct = [policy_values(tree, against_greedy(tree, probs, j))[j] for j in (0, 1)]
    assert values["greedy"] == pytest.approx(float(np.mean(direct)), abs=1e-12)
    assert set(values) == {"greedy", "random"}
    loss = play_loss(tree, branch_probabilities(actor, inputs), opponents)
    loss.backward()  # a loss with a gradient through the network
    assert any(p.grad is not None and p.grad.abs().sum() > 0 for p in actor.parameters())


def test_the_play_term_moves_the_policy_towards_beating_the_opponent(tree) -> None:
    actor = fresh_actor()
    inputs = tree_inputs(actor, tree)
    opponents = opponents_on(tree, {"greedy": 1})

    def value() -> float:
        with torch.no_grad():
            probs = [p.double().numpy() for p in branch_probabilities(actor, inputs)]
        return play_values(tree, probs, opponents)["greedy"]

    before = value()
    greedy = opponents[0][2]
    best = float(np.mean([best_response_value(tree, greedy, j) for j in (0, 1)]))
    reports = descend(
        actor, tree, 30, 0.003, report_every=10, against=opponents, against_weight=20.0, keep="last"
    )
    after = value()
    assert before + 0.4 * (best - before) < after <= best + 1e-9  # 0.48 of the way here
    assert [r.iteration for r in reports] == [0, 10, 20, 30]  # each measures the play values
    assert reports[0].play["greedy"] == pytest.approx(before, abs=1e-9)
    assert reports[-1].play == pytest.approx({"greedy": after}, abs=1e-9)
    as_played = SimpleNamespace(action_probabilities=actor.probabilities)
    last = nash_conv(as_played, "revised", 2).nash_conv
    assert reports[-1].iteration == 30 and last == pytest.approx(reports[-1].nash_conv, abs=1e-6)
    with pytest.raises(ValueError, match="keep is lowest or last"):
        descend(actor, tree, 1, 0.003, keep="best")


def test_an_iteration_under_a_floor_steps_on_that_play_term_alone(tree) -> None:
    floored, by_hand = fresh_actor(), fresh_actor()
    greedy = floors_on(tree, {"greedy": 10.0})  # above any policy: every step is short
    assert [(spec, floor) for spec, floor, _ in greedy] == [("greedy", 10.0)]
    reports = descend(floored, tree, 1, 0.003, report_every=1, floors=greedy, keep="last")
    assert set(reports[0].play) == {"greedy"}  # each measurement has the floor's value
    params = [p for m in (by_hand.body, by_hand.head) for p in m.parameters()]
    optimizer = torch.optim.Adam(params, lr=0.003)
    probs = branch_probabilities(by_hand, tree_inputs(by_hand, tree))
    play_loss(tree, probs, [("greedy", 1.0, greedy[0][2])]).backward()
    optimizer.step()
    for a, b in zip(floored.state_dict().values(), by_hand.state_dict().values()):
        assert torch.equal(a, b)


def test_a_floor_that_holds_leaves_the_descent_as_it_was_and_one_above_is_climbed(tree) -> None:
    plain, held = fresh_actor(), fresh_actor()
    descend(plain, tree, 4, 0.003, report_every=2)
    descend(held, tree, 4, 0.003, report_every=2, floors=floors_on(tree, {"greedy": -10.0}))
    for a, b in zip(plain.state_dict().values(), held.state_dict().values()):
        assert torch.equal(a, b)
    greedy = floors_on(tree, {"greedy": 0.0})[0][2]
    best = float(np.mean([best_response_value(tree, greedy, j) for j in (0, 1)]))
    actor = fresh_actor()
    before = descend(actor, tree, 0, 0.003, floors=[("greedy", 0.0, greedy)])[0].play["greedy"]
    floor = before + 0.5 * (best - before)
    reports = descend(
        actor, tree, 40, 0.003, report_every=1, floors=[("greedy", floor, greedy)], keep="last"
    )
    values = [r.play["greedy"] for r in reports]
    reached = next(k for k, v in enumerate(values) if v >= floor)  # climbed to the floor,
    assert 0 < reached < 40 and all(b > a for a, b in zip(values, values[1 : reached + 1]))
    assert min(values[reached:]) > floor - 0.1 * (floor - before)  # held it,
    assert reports[-1].nash_conv < reports[reached].nash_conv - 0.05  # and descended there


def test_keep_lowest_keeps_the_lowest_nashconv_that_meets_every_floor() -> None:
    def at(k: int, nash_conv: float, greedy: float) -> DescentReport:
        return DescentReport(k, nash_conv, 0.0, {"greedy": greedy, "random": 0.3})

    reports = [at(0, 0.5, 0.1), at(1, 0.2, -0.1), at(2, 0.3, 0.0), at(3, 0.4, 0.2)]
    assert kept(reports).iteration == 1  # no floors: the lowest
    assert kept(reports, "lowest", {"greedy": 0.0}).iteration == 2  # the lowest held
    assert kept(reports, "lowest", {"greedy": 0.0, "random": 0.31}).iteration == 1  # none
    assert kept(reports, "last", {"greedy": 0.0}).iteration == 3


def test_a_descent_with_floors_keeps_the_weights_that_kept_names(tree) -> None:
    greedy = floors_on(tree, {"greedy": 0.0})[0][2]
    actor = fresh_actor()
    before = descend(actor, tree, 0, 0.003, floors=[("greedy", 0.0, greedy)])[0].play["greedy"]
    floors = [("greedy", before + 0.03, greedy)]  # met from the 11th of 13 steps
    reports = descend(actor, tree, 13, 0.003, report_every=1, floors=floors)
    assert reports[0].play["greedy"] < before + 0.03
    chosen = kept(reports, "lowest", {"greedy": before + 0.03})
    assert chosen.play["greedy"] >= before + 0.03  # a measurement that meets the floor,
    assert chosen.nash_conv > lowest(reports).nash_conv  # not a lower one under it
    again = descend(actor, tree, 0, 0.003, floors=floors)[0]  # the weights left are its
    assert again.nash_conv == pytest.approx(chosen.nash_conv, abs=1e-9)
    assert again.play["greedy"] == pytest.approx(chosen.play["greedy"], abs=1e-9)


@pytest.mark.slow
def test_whole_game_descent_measures_what_the_analysis_measures_and_keeps_the_lowest() -> None:
    actor = fresh_actor()
    as_played = SimpleNamespace(action_probabilities=actor.probabilities)
    before = nash_conv(as_played, "revised", 2, whole_game=True).nash_conv
    reports = descend_game(actor, get_rules("revised"), 2, 100, iterations=6, lr=0.003, refresh=3)
    assert [r.iteration for r in reports] == [0, 3, 6]
    assert reports[0].nash_conv == pytest.approx(before, abs=1e-6)  # float32 softmax
    kept = lowest(reports)
    assert kept.nash_conv < before
    after = nash_conv(as_played, "revised", 2, whole_game=True).nash_conv
    assert after == pytest.approx(kept.nash_conv, abs=1e-6)


@pytest.mark.slow
def test_the_round_weight_adds_the_first_rounds_own_loss(tree, monkeypatch) -> None:
    import grove_env.training.descent.game as descent_game

    first_step = []

    def one_step(actor, iterations, lr, lr_end, every, measure, loss, on_report=None):
        measure()  # the stages and their payoffs, as the loop's first measurement makes them
        first_step.append(loss().item())
        return []

    monkeypatch.setattr(descent_game, "run_descent", one_step)
    actor = fresh_actor()
    for weight in (0.0, 2.0):
        descend_game(
            actor, get_rules("revised"), 2, 100, iterations=1, lr=0.003, round_weight=weight
        )
    own = descent_loss(tree, branch_probabilities(actor, tree_inputs(actor, tree))).item()
    assert abs(own) > 0.01
    assert first_step[1] - first_step[0] == pytest.approx(2.0 * own, rel=1e-4)


@pytest.mark.slow
def test_each_whole_game_step_takes_the_first_stage_once_and_one_other(monkeypatch) -> None:
    import grove_env.training.descent.game as descent_game

    stages: list[list[object]] = []
    real = descent_game.descent_loss

    def recording(stage, probs, gradient="nashconv"):
        stages[-1].append(stage)
        return real(stage, probs, gradient)

    def steps(actor, iterations, lr, lr_end, every, measure, loss, on_report=None):
        measure()  # builds the stages
        for _ in range(40):
            stages.append([])
            loss()
        return []

    monkeypatch.setattr(descent_game, "descent_loss", recording)
    monkeypatch.setattr(descent_game, "run_descent", steps)
    descend_game(fresh_actor(), get_rules("revised"), 2, 100, iterations=1, lr=0.003)
    firsts = {id(step[0]) for step in stages}
    assert len(firsts) == 1 and all(len(step) == 2 for step in stages)
    drawn = [id(step[1]) for step in stages]
    assert firsts.isdisjoint(drawn)  # the other state is never the first one again
    assert len(set(drawn)) > 10  # and it is drawn among many


def test_the_shipped_descent_configs_are_valid() -> None:
    configs = sorted((ROOT / "configs" / "descent").glob("*.yaml"))
    configs += [p for p in (ROOT / "configs" / "zoo").glob("*.yaml") if "descent" in read_yaml(p)]
    assert len(configs) >= 2
    for path in configs:
        cfg = load_config(path)  # the section typed and checked with the rest
        assert cfg.descent is not None and len(cfg.table_list()) == 1, path
        for stage in cfg.descent.stages():  # and what descend itself checks, too
            every = ("report_every", stage.report_every)
            check_settings(
                stage.iterations, stage.lr, stage.lr_end, every, stage.keep, stage.gradient
            )


def test_whole_game_descent_is_for_two_players() -> None:
    with pytest.raises(ValueError, match="two players"):
        descend_game(fresh_actor(), get_rules("revised"), 3, 100, iterations=1, lr=0.003)
