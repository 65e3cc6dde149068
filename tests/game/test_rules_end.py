"""Rule scenarios at the end of the game: the end conditions, standings and returns,
and whole random games, checked against the reference reading in ``rules_reference.py``.
"""

from __future__ import annotations

import random

import pytest
from positions import TABLES
from rules_reference import (
    REF_MARKERS,
    REF_PLAYER_COUNTS,
    REF_TILES,
    RefTable,
    hand_built,
    play_round,
    ref_returns,
    ref_standings,
)

from grove_env import Game
from grove_env.actions import ACCUSE_0, KEEP, SWAP_0, Phase

# --------------------------------------------------------------------------- end of game

OTHERS = 2  # in the end scenarios, seats 2.. accuse the culprit (slot 2 holds the 7)

# (rules, coloured/penalty of seats 0 and 1 before, accusations of seats 0 and 1,
#  seats 0 and 1 after, whether the game ends, which of seats 0/1 ended it)
END_CASES = {
    "classic: 7 held -> 8 held ends": (
        "classic", [(5, 0), (3, 4)], [0, 0], [(4, 0), (2, 6)], True, [1]),
    "classic: 6 held -> 7 held goes on": (
        "classic", [(5, 0), (3, 3)], [0, 0], [(4, 0), (2, 5)], False, []),
    "classic: 7 held -> 8 held on slot 1 ends": (
        "classic", [(5, 0), (3, 4)], [1, 1], [(4, 0), (2, 6)], True, [1]),
    "classic: 7 penalty -> 8 penalty, the last coloured gone": (
        "classic", [(5, 0), (1, 6)], [0, 0], [(4, 0), (0, 8)], True, [1]),
    "classic: last coloured on an innocent ends": (
        "classic", [(5, 0), (1, 2)], [2, 1], [(5, 0), (0, 3)], True, [1]),
    "classic: last coloured on the culprit comes back": (
        "classic", [(5, 0), (1, 2)], [2, 2], [(5, 0), (1, 2)], False, []),
    "classic: both conditions in one round": (
        "classic", [(1, 0), (3, 4)], [0, 0], [(0, 0), (2, 6)], True, [0, 1]),
    "revised: 4 penalty -> 5 ends": (
        "revised", [(7, 0), (5, 3)], [0, 0], [(6, 0), (4, 5)], True, [1]),
    "revised: 2 penalty -> 4 goes on": (
        "revised", [(7, 0), (5, 2)], [0, 0], [(6, 0), (4, 4)], False, []),
    "revised: 9 markers held does not end": (
        "revised", [(7, 0), (6, 2)], [0, 0], [(6, 0), (5, 4)], False, []),
    "revised: last marker on the culprit is removed and ends": (
        "revised", [(7, 0), (1, 2)], [2, 2], [(6, 0), (0, 2)], True, [1]),
    "revised: last marker on an innocent ends": (
        "revised", [(7, 0), (1, 2)], [2, 1], [(6, 0), (0, 3)], True, [1]),
    "revised: both conditions in one round": (
        "revised", [(1, 0), (5, 3)], [0, 0], [(0, 0), (4, 5)], True, [0, 1]),
}  # fmt: skip


@pytest.mark.parametrize(
    "case,n",
    [(case, n) for case in sorted(END_CASES) for n in REF_PLAYER_COUNTS[END_CASES[case][0]]],
)
def test_end_conditions(case: str, n: int) -> None:
    rules, before, accuse, after, ends, ended_by = END_CASES[case]
    start = REF_MARKERS[rules]
    coloured = [c for c, _ in before] + [start] * (n - OTHERS)
    penalty = [p for _, p in before] + [0] * (n - OTHERS)
    game = hand_built(rules, n, coloured, penalty, (3, 6, 7))
    play_round(game, accuse=accuse + [2] * (n - OTHERS))
    assert [(game.coloured[s], game.penalty[s]) for s in (0, 1)] == after
    rest = start if rules == "classic" else start - 1
    assert game.coloured[OTHERS:] == [rest] * (n - OTHERS)
    assert game.terminal is ends
    assert game.end_triggers() == ended_by
    if ends:
        assert game.phase is Phase.OVER and game.legal_actions() == []
        assert game.round == 1
        assert game.standings() == ref_standings(_ref_scores(rules, game))
        assert game.returns() == pytest.approx(ref_returns(_ref_scores(rules, game)))
    else:
        assert (game.round, game.phase, game.first_player) == (2, Phase.LOOK, 1)
        assert game.current_player == 1
        assert game.returns() == [0.0] * n


def _ref_scores(rules: str, game: Game) -> list[int]:
    if rules == "classic":
        return [c + p for c, p in zip(game.coloured, game.penalty)]
    return list(game.penalty)


@pytest.mark.parametrize("rules,n", TABLES)
def test_end_check_only_after_the_resolution(rules: str, n: int) -> None:
    """Seat 0 places its last marker first; the round still runs to every accusation."""
    start = REF_MARKERS[rules]
    game = hand_built(rules, n, [1] + [start] * (n - 1), [0] * n, (3, 6, 7))
    game.apply_action(0)
    if game.phase is Phase.SWAP:
        game.apply_action(KEEP)
    game.apply_action(ACCUSE_0 + 0)
    assert game.coloured[0] == 0 and not game.terminal
    assert game.phase is Phase.ACCUSE and game.current_player == 1
    for _ in range(n - 1):
        game.apply_action(ACCUSE_0 + 2)
    assert game.terminal and game.end_triggers() == [0]


def test_classic_ranks_the_seat_that_ran_out_best() -> None:
    """The rules: classic keeps the English ranking; the trigger is only reported."""
    game = hand_built("classic", 3, [1, 5, 5], [0, 2, 1], (3, 6, 7))
    play_round(game, accuse=[1, 0, 0])
    assert (game.coloured, game.penalty) == ([0, 4, 4], [1, 2, 3])
    assert game.terminal and game.end_triggers() == [0]
    assert game.standings() == [1, 2, 3]
    assert game.returns() == [1.0, 0.0, -1.0]


STANDING_CASES = [
    # rules, coloured, penalty, standings, returns
    ("classic", [3, 2, 5], [0, 1, 3], [1, 1, 3], [0.5, 0.5, -1.0]),
    ("classic", [4, 4], [0, 0], [1, 1], [0.0, 0.0]),
    ("classic", [2, 5, 1, 3], [6, 0, 1, 1], [4, 3, 1, 2], [-1.0, -1 / 3, 1.0, 1 / 3]),
    ("classic", [5, 3, 4, 2], [0, 2, 1, 3], [1, 1, 1, 1], [0.0] * 4),
    ("revised", [7, 1], [0, 0], [1, 1], [0.0, 0.0]),  # coloured do not count
    ("revised", [6, 2, 4], [1, 1, 5], [1, 1, 3], [0.5, 0.5, -1.0]),
    ("revised", [0, 3, 3, 3, 3], [0, 2, 2, 1, 5], [1, 3, 3, 2, 5], [1.0, -0.25, -0.25, 0.5, -1.0]),
    ("revised", [5, 4, 6, 5], [2, 2, 5, 5], [1, 1, 3, 3], [2 / 3, 2 / 3, -2 / 3, -2 / 3]),
]


@pytest.mark.parametrize("rules,coloured,penalty,standings,returns", STANDING_CASES)
def test_standings_and_returns(rules, coloured, penalty, standings, returns) -> None:
    n = len(coloured)
    game = Game(rules, n)
    game.coloured, game.penalty = list(coloured), list(penalty)
    assert game.standings() == standings
    assert game.returns() == [0.0] * n  # nothing until the game is over
    game.terminal = True
    assert game.returns() == pytest.approx(returns)
    assert sum(game.returns()) == pytest.approx(0.0)


@pytest.mark.parametrize("rules,n", TABLES)
def test_random_games_match_the_reference(rules: str, n: int) -> None:
    """Whole games of random deals and moves: every round's counts, the end, the returns."""
    rng = random.Random(f"{rules}-{n}")
    for _ in range(60):
        ref = RefTable(rules, n)
        deals = [rng.sample(REF_TILES[(rules, n)], len(REF_TILES[(rules, n)])) for _ in range(60)]
        game = Game(rules, n, deals=deals)
        for deal in deals:
            assert game.first_player == ref.first == game.current_player
            suspects = list(deal[n : n + 3])
            leave = rng.randrange(3)
            game.apply_action(leave)
            if rules == "classic":
                choice = rng.choice([None] + [s for s in (0, 1, 2) if s != leave])
                game.apply_action(KEEP if choice is None else SWAP_0 + choice)
                if choice is not None:
                    suspects[choice] = deal[n + 3]
            accusations = []
            for k in range(n):
                seat = (ref.first + k) % n
                assert game.current_player == seat
                slot = rng.randrange(3)
                accusations.append((seat, slot))
                game.apply_action(ACCUSE_0 + slot)
            ref.play_round(tuple(suspects), accusations)
            assert (game.coloured, game.penalty, game.removed) == (
                ref.coloured,
                ref.penalty,
                ref.removed,
            )
            assert game.terminal is ref.over
            if ref.over:
                break
        assert game.terminal, "60 rounds should end any game"
        assert game.scores() == ref.scores()
        assert game.standings() == ref_standings(ref.scores())
        assert game.returns() == pytest.approx(ref_returns(ref.scores()))
        assert game.end_triggers() == [s for s, t in enumerate(ref.triggers()) if t]
