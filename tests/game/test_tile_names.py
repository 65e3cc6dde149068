"""The blank tile is called by its edition's name (``blank`` or ``X``) wherever a tile is named.

The name lives once, in :attr:`grove_env.rules.RuleSet.blank_name`, and every text form
reads it through :func:`grove_env.text.tile_name`, which takes the rule set (or its
name): a caller can no longer hand it the rule set's name where the blank's name belongs
(the web page and the OpenSpiel strings once drew the blank as "classic" or "revised").
"""

from __future__ import annotations

import random

import pytest

from grove_env.core import Game
from grove_env.rules import RULE_SETS, get_rules
from grove_env.text import describe_round, describe_table, tile_name
from grove_env.web.sessions import Replay
from grove_env.web.views import seat_view, table_view

BLANK_TABLES = [("classic", 2), ("classic", 4), ("revised", 4), ("revised", 5)]
"""Tables whose tiles include a 0 (revised has its X only at 4 and 5 players)."""


def test_tile_name_reads_the_blank_from_the_rule_set() -> None:
    for name, rules in RULE_SETS.items():
        assert tile_name(0, name) == tile_name(0, rules) == rules.blank_name
        assert tile_name(7, name) == "7" and tile_name(None, name) == "?"
    assert {tile_name(0, r) for r in RULE_SETS} == {"blank", "X"}
    with pytest.raises(ValueError, match="rules must be one of"):
        tile_name(0, "blank")  # a blank's name is not a rule set


def game_with_a_blank_suspect(rules: str, n: int) -> Game:
    """A game whose first round's suspects include the 0, played to the end of round 1."""
    rng = random.Random(n)
    for seed in range(500):
        game = Game(rules, n, seed=seed)
        if 0 in game.suspects:
            while len(game.history) < 1:
                game.apply_action(rng.choice(game.legal_actions()))
            return game
    raise AssertionError("no deal with a blank suspect in 500 seeds")


@pytest.mark.parametrize(("rules", "n"), BLANK_TABLES)
def test_every_text_and_view_names_the_blank_right(rules: str, n: int) -> None:
    blank = get_rules(rules).blank_name
    game = game_with_a_blank_suspect(rules, n)
    labels = [f"P{s}" for s in range(n)]
    revealed = table_view(game, labels)["rounds"][0]["suspects"]
    assert blank in revealed
    for view in [table_view(game, labels)] + [seat_view(game, s, labels) for s in range(n)]:
        assert view["rounds"][0]["suspects"] == revealed
        assert "classic" not in view["rounds"][0]["suspects"]
        assert "revised" not in view["rounds"][0]["suspects"]
    assert f": {blank}" in describe_round(game.history[0], rules)
    text = describe_table(game)
    assert "revised" not in text.split("\n", 1)[1] and "classic" not in text.split("\n", 1)[1]


@pytest.mark.parametrize(("rules", "n"), BLANK_TABLES)
def test_a_seat_holding_the_blank_sees_its_name(rules: str, n: int) -> None:
    blank = get_rules(rules).blank_name
    for seed in range(200):
        game = Game(rules, n, seed=seed)
        if game.dealt[0] == 0:
            break
    view = seat_view(game, 0, [f"P{s}" for s in range(n)])
    assert view["my_tiles"][0] == blank


def test_a_replay_names_the_blank_right() -> None:
    from grove_env.record import record_game

    game = game_with_a_blank_suspect("revised", 4)
    while not game.terminal:
        game.apply_action(game.legal_actions()[0])
    replay = Replay(record_game(game))
    assert "X" in replay.view(len(replay.steps), None)["rounds"][0]["suspects"]


@pytest.mark.parametrize(("rules", "n"), BLANK_TABLES)
def test_openspiel_names_the_blank_right(rules: str, n: int) -> None:
    pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra is missing")
    pytest.importorskip("grove_env.openspiel")
    blank = get_rules(rules).blank_name
    game = pyspiel.load_game(f"python_grove(players={n},rules={rules})")
    state = game.new_initial_state()
    assert state.action_to_string(state.current_player(), 0) == f"deal {blank}"
    rng = random.Random(1)
    found = False
    for _ in range(400):
        if state.is_terminal():
            state = game.new_initial_state()
        if state.is_chance_node():
            outcomes = [a for a, _ in state.chance_outcomes()]
            state.apply_action(0 if 0 in outcomes else rng.choice(outcomes))
            continue
        text = state.information_state_string(state.current_player())
        assert "revised" not in text and "classic" not in text
        found = found or f"suspects revealed: {blank}" in text or f" {blank} " in text
        state.apply_action(rng.choice(state.legal_actions()))
    assert found  # a revealed blank was named in an information state
