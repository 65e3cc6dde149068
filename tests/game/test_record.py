"""Game records: built from the core's history, read back, replayed and checked."""

from __future__ import annotations

import copy
import json
import random
import re

import pytest

from grove_env.actions import action_name
from grove_env.core import Game
from grove_env.record import load_record, record_game, replay, round_actions


def played(rules: str, n: int, seed: int) -> Game:
    game, rng = Game(rules, n, seed=seed), random.Random(seed)
    while not game.terminal:
        game.apply_action(rng.choice(game.legal_actions()))
    return game


@pytest.mark.parametrize(
    ("rules", "n"), [("classic", 2), ("classic", 4), ("revised", 2), ("revised", 5)]
)
def test_a_record_replays_to_the_same_game(rules: str, n: int) -> None:
    game = played(rules, n, seed=n)
    data = json.loads(json.dumps(record_game(game, [f"agent{s}" for s in range(n)])))
    record = load_record(data)
    again = replay(record)
    assert again.history == game.history
    assert (again.coloured, again.penalty, again.terminal) == (game.coloured, game.penalty, True)
    assert data["final"] == {
        "terminal": True,
        "scores": game.scores(),
        "standings": game.standings(),
    }
    assert record.players == tuple(f"agent{s}" for s in range(n))


def test_every_move_is_recorded_in_order() -> None:
    game, rng, moves = Game("classic", 3, seed=5), random.Random(5), []
    while not game.terminal:
        seat, action = game.current_player, rng.choice(game.legal_actions())
        moves.append((seat, action))
        game.apply_action(action)
    record = load_record(record_game(game))
    assert record.steps == moves
    first = record_game(game)["rounds"][0]
    assert first["deal"] == list(game.history[0].deal)
    assert [m["name"] for m in first["actions"]] == [
        action_name(a) for _, a in round_actions(game, game.history[0])
    ]


def test_replay_stops_after_the_steps_asked() -> None:
    game = played("revised", 3, seed=2)
    record = load_record(record_game(game))
    partial = replay(record, 4)
    fresh = Game("revised", 3, deals=record.deals)
    for seat, action in record.steps[:4]:
        assert fresh.current_player == seat
        fresh.apply_action(action)
    assert partial.information_state(0) == fresh.information_state(0)


def _tamper(data: dict, how: str) -> dict:
    bad = copy.deepcopy(data)
    first = bad["rounds"][0]
    if how == "deal":
        first["deal"][0] = 99
    elif how == "turn":
        first["actions"][-1]["seat"] = (first["actions"][-1]["seat"] + 1) % 3
    elif how == "result":
        first["result"]["penalty"] = [9, 9, 9]
    elif how == "short":
        first["actions"].pop()
    elif how == "illegal":
        first["actions"][0]["action"] = 7
    return bad


@pytest.mark.parametrize(
    ("how", "message"),
    [
        ("deal", "permutation"),
        ("turn", "is to act"),
        ("result", re.escape("penalty is [9, 9, 9], the rules give")),
        ("short", "do not end the round"),
        ("illegal", "illegal"),
    ],
)
def test_a_record_that_breaks_the_rules_is_refused(how: str, message: str) -> None:
    data = record_game(played("classic", 3, seed=1))
    with pytest.raises(ValueError, match=message):
        replay(load_record(_tamper(data, how)))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "top level"),
        ({"format": "x"}, "'format'"),
        (
            {"format": "grove-record", "version": 1, "rules": "classic", "num_players": "3"},
            "num_players",
        ),
        (
            {
                "format": "grove-record",
                "version": 1,
                "rules": "classic",
                "num_players": 3,
                "rounds": [],
            },
            "'rounds'",
        ),
        (
            {
                "format": "grove-record",
                "version": 1,
                "rules": "classic",
                "num_players": 3,
                "rounds": [{"deal": [1], "actions": [{"seat": "0"}], "result": {}}],
            },
            "an action",
        ),
    ],
)
def test_a_malformed_record_is_refused_in_one_line(data: object, message: str) -> None:
    with pytest.raises(ValueError, match=message) as err:
        load_record(data)
    assert "\n" not in str(err.value)
