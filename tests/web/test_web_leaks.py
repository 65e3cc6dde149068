"""What every route serves, for every kind of id: nothing beyond the asker's information state.

Two checks, on a live server:

- every route is called with the id of each kind of game (and an id that names none):
  a route serves its own kind only and answers 404 to the others, so the id of a
  person's game opens the person's view, moves and hints, and nothing else;
- the shuffle test of ``test_web_views.py``, applied to every answer the id of a
  person's game gets: the tiles that seat cannot know (this round's and, of finished
  rounds, all but the revealed suspects and what the seat saw) are shuffled in the
  server's game, the same moves replayed, and each answer must not change. A watched
  game's record is checked the same way with every tile of the live round hidden.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the 'web' extra (starlette) is not installed")

from test_web_views import known_positions, shuffle_hidden  # noqa: E402
from web_server import call, serving  # noqa: E402

from grove_env.actions import KEEP, Phase, accuse, leave, swap  # noqa: E402
from grove_env.core import Game, RoundRecord  # noqa: E402
from grove_env.record import round_actions  # noqa: E402
from grove_env.web.app import create_app  # noqa: E402

ROUTES = [  # (method, path with {id}, kind served, body)
    ("GET", "/api/play/{id}", "play", None),
    ("GET", "/api/play/{id}/hints", "play", None),
    ("POST", "/api/play/{id}/act", "play", {"action": 0}),
    ("GET", "/api/watch/{id}", "watch", None),
    ("GET", "/api/watch/{id}?seat=0", "watch", None),
    ("GET", "/api/watch/{id}?seat=1", "watch", None),
    ("POST", "/api/watch/{id}/step", "watch", None),
    ("POST", "/api/watch/{id}/step?seat=1", "watch", None),
    ("GET", "/api/watch/{id}/record", "watch", None),
    ("GET", "/api/replay/{id}/0", "replay", None),
    ("GET", "/api/replay/{id}/1?seat=0", "replay", None),
    ("GET", "/api/record/{id}", None, None),  # the old, kind-blind record route is gone
]
TABLES = [
    ("classic", 4, ["heuristic", "piler", "random"]),
    ("revised", 5, ["greedy"]),
    ("classic", 2, ["cfr"]),
    ("revised", 2, ["random"]),
]


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, Any]]:
    app = create_app()
    with serving(app) as base:
        yield base, app.state.store


def ids(base: str) -> dict[str, str]:
    """An id of each kind of game, and one that names none."""
    request = {"rules": "classic", "players": 3, "agents": ["random"], "seed": 3}
    play = call(base, "POST", "/api/play", {**request, "seat": 1})[1]["id"]
    watch = call(base, "POST", "/api/watch", request)[1]["id"]
    while not call(base, "POST", f"/api/watch/{watch}/step")[1]["over"]:
        pass
    record = call(base, "GET", f"/api/watch/{watch}/record")[1]
    replay = call(base, "POST", "/api/replay", record)[1]["id"]
    return {"play": play, "watch": watch, "replay": replay, "none": "A" * 16}


def test_every_route_serves_its_own_kind_only(server: tuple[str, Any]) -> None:
    base, _ = server
    for kind, key in ids(base).items():
        for method, path, served, body in ROUTES:
            status, data = call(base, method, path.format(id=key), body)
            if served == kind:
                assert status == 200 or (status == 400 and path.endswith("/act")), (path, data)
            else:
                assert status == 404 and set(data) == {"error"}, (kind, path, data)
                if served is not None:  # the same answer as for an id that names nothing
                    assert data["error"] == f"no {served} game with id {key!r}"


def moves_so_far(game: Game) -> list[int]:
    """Every move of ``game`` from its start, in order."""
    moves = [a for r in game.history for _, a in round_actions(game, r)]
    if game.terminal:
        return moves
    if game.unseen_slot is not None:
        moves.append(leave(game.unseen_slot))
    if game.phase is Phase.ACCUSE and game.rules.victim_swap:
        moves.append(KEEP if game.tampered_slot is None else swap(game.tampered_slot))
    return moves + [accuse(slot) for _, slot in game.accusations]


def known_then(record: RoundRecord, n: int, seat: int) -> set[int]:
    """Positions of a finished round's deal that ``seat`` knows: its two tiles, the spare,
    the revealed suspects, and the victim if it swapped it."""
    t = record.tampered_slot
    known = {seat, (seat + 1) % n, n + 4} | {n + s for s in range(3) if s != t}
    if t is not None:
        known.add(n + 3)  # the old victim, now a suspect, was revealed
        if seat == record.first_player:
            known.add(n + t)  # the swapper saw it as a suspect
    return known


def shuffled(game: Game, seat: int, rng: random.Random) -> Game:
    """``game`` with every tile ``seat`` cannot know shuffled, the same moves played."""
    n = game.num_players
    deals = [shuffle_hidden(r.deal, known_then(r, n, seat), rng) for r in game.history]
    if not game.terminal:
        deals.append(shuffle_hidden(game.deal, known_positions(game, seat), rng))
    other = Game(game.rules, n, deals=deals)
    for move in moves_so_far(game):
        other.apply_action(move)
    return other


def answers(base: str, key: str) -> list[Any]:
    paths = [f"/api/play/{key}", f"/api/play/{key}/hints"]
    return [call(base, "GET", p) for p in paths]


@pytest.mark.parametrize(("rules", "n", "agents"), TABLES)
def test_a_persons_id_gets_nothing_the_seat_cannot_know(
    server: tuple[str, Any], rules: str, n: int, agents: list[str]
) -> None:
    base, store = server
    seat, rng = n - 1, random.Random(n)
    request = {"rules": rules, "players": n, "seat": seat, "agents": agents, "seed": 11}
    status, data = call(base, "POST", "/api/play", request)
    key, view, checked = data["id"], data["view"], 0
    table = store.get(key, "play")
    while not view["over"]:
        real = answers(base, key)
        assert real[0] == (200, view) and real[1][0] == 200
        for _ in range(2):
            original = table.game
            table.game = shuffled(original, seat, rng)
            try:
                assert answers(base, key) == real
                checked += table.game.deal != original.deal
            finally:
                table.game = original
        move = rng.choice(view["legal"])["action"]
        status, view = call(base, "POST", f"/api/play/{key}/act", {"action": move})
        assert status == 200 and call(base, "GET", f"/api/play/{key}") == (200, view)
    assert checked > 0  # the shuffles did change hidden tiles
    body = json.dumps(view)
    assert '"seed"' not in body and '"deal"' not in body and '"dealt"' not in body


def test_a_live_watched_record_has_no_seed_and_no_tile_of_the_live_round(
    server: tuple[str, Any],
) -> None:
    base, store = server
    request = {"rules": "revised", "players": 4, "agents": ["heuristic"], "seed": 5}
    key = call(base, "POST", "/api/watch", request)[1]["id"]
    table, rng, compared = store.get(key, "watch"), random.Random(0), 0
    while True:
        status, record = call(base, "GET", f"/api/watch/{key}/record")
        if table.finished:
            assert record["seed"] == 5
            break
        assert "seed" not in record and len(record["rounds"]) == len(table.game.history)
        original = table.game
        deal = shuffle_hidden(original.deal, set(), rng)
        table.game = Game(original.rules, 4, deals=[r.deal for r in original.history] + [deal])
        for move in moves_so_far(original):
            table.game.apply_action(move)
        try:
            assert call(base, "GET", f"/api/watch/{key}/record") == (200, record)
            compared += 1
        finally:
            table.game = original
        call(base, "POST", f"/api/watch/{key}/step")
    assert compared > 10
