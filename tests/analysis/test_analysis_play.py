"""Exact play against copies of an opponent (grove_env.analysis.play) on small tables."""

from __future__ import annotations

import pytest

from grove_env.analysis.best_response import best_response
from grove_env.analysis.measure import round_tree
from grove_env.analysis.play import best_against, play_against, value_against
from grove_env.analysis.policies import branches_of
from grove_env.rules import get_rules


@pytest.mark.parametrize("rules", ["classic", "revised"])
def test_two_seats_take_from_each_other_what_the_other_gives(rules) -> None:
    tree = round_tree(get_rules(rules), 2)
    a, b = branches_of(tree, "heuristic"), branches_of(tree, "random")
    forward, backward = value_against(tree, a, b), value_against(tree, b, a)
    assert forward > 0.1  # the heuristic takes markers from random seats
    assert forward == pytest.approx(-backward, abs=1e-12)  # a round is zero-sum


def test_every_agent_scores_nothing_against_copies_of_itself_at_three_seats() -> None:
    cells = play_against("greedy", "revised", 3, ["greedy", "random"])
    assert [c.opponent for c in cells] == ["greedy", "random"]
    assert cells[0].value == pytest.approx(0.0, abs=1e-12)
    assert cells[1].value > 0 and all(c.value <= c.best + 1e-12 for c in cells)


def test_the_ceiling_is_what_each_seats_best_response_scores_when_played() -> None:
    tree = round_tree(get_rules("revised"), 3)
    greedy = branches_of(tree, "greedy")
    responses = [best_response(tree, greedy, seat)[1] for seat in range(3)]
    # each depth played as the best response of the seat that acts there
    played = [responses[d.seat][t] for t, d in enumerate(tree.depths)]
    best = best_against(tree, greedy)
    assert value_against(tree, played, greedy) == pytest.approx(best, abs=1e-12)
    assert best > value_against(tree, branches_of(tree, "random"), greedy) + 0.05
