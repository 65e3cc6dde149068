"""The JSON a seat's page is sent holds that seat's information state and nothing more."""

from __future__ import annotations

import json
import random

import pytest

from grove_env.actions import Phase
from grove_env.core import Game
from grove_env.text import tile_name
from grove_env.web.views import seat_view, table_view

TABLES = [("classic", 2), ("classic", 4), ("revised", 2), ("revised", 5)]


def known_positions(game: Game, seat: int) -> set[int]:
    """Positions of round 1's deal whose tiles ``seat`` knows now."""
    n = game.num_players
    tampered = game.tampered_slot
    now = {slot: n + 3 if slot == tampered else n + slot for slot in range(3)}
    known = {seat, (seat + 1) % n}
    if game.spare is not None:
        known.add(n + 4)
    known |= {now[slot] for slot, tile in enumerate(game.seen[seat]) if tile is not None}
    if game.victim_for(seat) is not None:
        known.add(n + 3 if tampered is None else n + tampered)
    return known


def shuffle_hidden(deal: tuple[int, ...], known: set[int], rng: random.Random) -> list[int]:
    hidden = [k for k in range(len(deal)) if k not in known]
    tiles = [deal[k] for k in hidden]
    rng.shuffle(tiles)
    other = list(deal)
    for k, tile in zip(hidden, tiles):
        other[k] = tile
    return other


@pytest.mark.parametrize(("rules", "n"), TABLES)
def test_tiles_a_seat_cannot_know_never_change_its_view(rules: str, n: int) -> None:
    rng = random.Random(n)
    labels = [f"P{s}" for s in range(n)]
    changed_tables = 0
    for _ in range(40):
        game = Game(rules, n, seed=rng.randrange(10**6))
        deal, moves = game.deal, []
        while game.phase is not Phase.OVER and len(game.accusations) < n - 1:
            for seat in range(n):
                other = Game(
                    rules, n, deals=[shuffle_hidden(deal, known_positions(game, seat), rng)]
                )
                for move in moves:
                    other.apply_action(move)
                assert seat_view(other, seat, labels) == seat_view(game, seat, labels)
                changed_tables += table_view(other, labels) != table_view(game, labels)
            moves.append(rng.choice(game.legal_actions()))
            game.apply_action(moves[-1])
    assert changed_tables > 0  # the shuffles did hide something to change


@pytest.mark.parametrize(("rules", "n"), TABLES)
def test_the_view_shows_exactly_what_the_seat_knows(rules: str, n: int) -> None:
    rng = random.Random(7)
    game = Game(rules, n, seed=3)
    labels = [f"P{s}" for s in range(n)]
    while not game.terminal:
        for seat in range(n):
            view = seat_view(game, seat, labels)
            assert view["my_tiles"] == [tile_name(t, rules) for t in game.known_tiles(seat)]
            shown = [s["tile"] for s in view["suspects"]]
            assert shown == [None if t is None else tile_name(t, rules) for t in game.seen[seat]]
            victim = game.victim_for(seat)
            assert view["victim"] == (None if victim is None else tile_name(victim, rules))
            assert not {"dealt", "deal"} & set(json.dumps(view).split('"'))
            legal = [m["action"] for m in view["legal"]]
            mine = not game.terminal and game.current_player == seat
            assert legal == (game.legal_actions() if mine else [])
        game.apply_action(rng.choice(game.legal_actions()))


def test_every_legal_move_is_explained_in_words() -> None:
    game = Game("classic", 3, deals=[(3, 4, 6, 0, 7, 8, 5)])
    labels = ["you", "a", "b"]
    look = seat_view(game, 0, labels)["legal"]
    assert [m["name"] for m in look] == [
        "leave suspect 0 unseen",
        "leave suspect 1 unseen",
        "leave suspect 2 unseen",
    ]
    assert look[0]["explain"].startswith("Look at suspects 1 and 2")
    game.apply_action(0)
    swap = seat_view(game, 0, labels)["legal"]
    assert "you saw 7" in swap[1]["explain"] and swap[0]["name"] == "keep the victim"
    game.apply_action(3)
    accuse = seat_view(game, 0, labels)["legal"]
    assert "unknown to you" in accuse[0]["explain"] and "(8)" in accuse[2]["explain"]


@pytest.mark.parametrize(("rules", "n"), TABLES)
def test_the_last_move_round_scores_and_the_revealed_victim(rules: str, n: int) -> None:
    """Every view names the move just made; each finished round carries every seat's
    score and change of score; the victim is shown to a seat only once the game is over."""
    game, rng = Game(rules, n, seed=n), random.Random(n)
    labels = [f"P{s}" for s in range(n)]
    while not game.terminal:
        seat, action = game.current_player, rng.choice(game.legal_actions())
        game.apply_action(action)
        for view in (seat_view(game, (seat + 1) % n, labels), table_view(game, labels)):
            assert (view["last_move"]["seat"], view["last_move"]["action"]) == (seat, action)
    before = [game.rules.score(game.rules.markers_per_player, 0)] * n
    for done in seat_view(game, 0, labels)["rounds"]:
        assert done["scores"] == [
            game.rules.score(c, p) for c, p in zip(done["coloured"], done["penalty"])
        ]
        assert [c["score"] for c in done["changes"]] == [
            a - b for a, b in zip(done["scores"], before)
        ]
        before = done["scores"]
    assert seat_view(game, 0, labels)["victim"] == tile_name(game.victim, rules)
