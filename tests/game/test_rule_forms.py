"""Each rule is written once (``grove_env.resolution``, ``grove_env.standings``, the
``RuleSet``); its table and array forms must say exactly what the one rule says.

The culprit table is checked against the independent reference reading of the rules
in ``rules_reference.py``; the array forms of the end check and of the standings against
the same functions applied to plain numbers, one game at a time.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from rules_reference import ref_culprit

from grove_env.resolution import CULPRIT_TABLE, penalty_flows, stacks_of, unseen_by
from grove_env.rules import CLASSIC, REVISED, TILE_VALUES, RuleSet
from grove_env.standings import markers_rewards, outcomes, ranks, win_points


def test_culprit_table_is_the_reference_rule() -> None:
    for triple in itertools.product(range(len(TILE_VALUES)), repeat=3):
        values = tuple(TILE_VALUES[i] for i in triple)
        numbered = [t for t in values if t != 0]
        if not numbered:
            assert CULPRIT_TABLE[triple] == -1
        elif len(set(numbered)) == len(numbered):  # as in a deal: numbers are unique
            assert CULPRIT_TABLE[triple] == ref_culprit(values), values
    assert not CULPRIT_TABLE.flags.writeable


def test_stacks_and_penalty_flows() -> None:
    # 4 players, seat 2 first: seats 2, 3, 0, 1 accuse slots 1, 1, 0, 2; slot 0 guilty.
    stacks = stacks_of(2, (1, 1, 0, 2), 4)
    assert stacks == [[0], [2, 3], [1]]
    assert penalty_flows(stacks, culprit=0) == [(1, 3, 2), (2, 1, 1)]
    assert penalty_flows([[], [4], []], culprit=1) == []


def test_unseen_by_each_position() -> None:
    assert unseen_by(0, 2, None, None) == (2,)
    assert unseen_by(0, 2, 0, None) == (2, 0)  # the swapped-out slot is forgotten
    assert unseen_by(3, 2, 0, 0) == (0,)  # the slot accused just before it


@pytest.mark.parametrize("rules", [CLASSIC, REVISED], ids=lambda r: r.name)
def test_end_check_on_arrays_is_the_end_check_on_numbers(rules: RuleSet) -> None:
    coloured, penalty = np.meshgrid(np.arange(0, 10), np.arange(0, 10))
    ended = rules.ends_game(coloured, penalty)
    for c, p, e in zip(coloured.ravel(), penalty.ravel(), ended.ravel()):
        assert e == rules.ends_game(int(c), int(p)) == rules.game_over([int(c)], [int(p)])
    assert rules.ends_game(0, 0)  # no coloured marker left ends every edition


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_standings_on_arrays_are_the_standings_of_each_game(n: int) -> None:
    rng = np.random.default_rng(n)
    before = rng.integers(0, 6, size=(n, 50))
    after = before + rng.integers(-1, 4, size=(n, 50))
    ranked = np.array(ranks(after))
    paid = np.array(outcomes(after))
    rewards = np.array(markers_rewards(before, after))
    for g in range(50):
        game = [int(s) for s in after[:, g]]
        assert ranked[:, g].tolist() == ranks(game)
        assert paid[:, g].tolist() == outcomes(game)
        assert rewards[:, g].tolist() == markers_rewards(before[:, g].tolist(), game)
        assert sum(win_points(ranks(game))) == pytest.approx(1.0)
    assert np.allclose(rewards.sum(axis=0), 0.0) and np.allclose(paid.sum(axis=0), 0.0)
