"""The web server's JSON API against a live server on 127.0.0.1: games, refusals, floods.

The gate (Host, token, content type, headers) is in ``test_web_gate.py``, what each
route serves to whom in ``test_web_leaks.py``, random requests in ``test_web_fuzz.py``.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from typing import Any

import pytest

from grove_env.agents.learned.policy_files import zoo_shipped
from grove_env.rules import get_rules

pytest.importorskip("starlette", reason="the 'web' extra (starlette) is not installed")
pytest.importorskip("uvicorn", reason="the 'web' extra (uvicorn) is not installed")

from web_server import call, serving  # noqa: E402

from grove_env.web.app import MAX_BODY, create_app  # noqa: E402
from grove_env.web.store import Limits  # noqa: E402

CAPACITY = 16


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, Any]]:
    app = create_app(limits=Limits(per_kind=CAPACITY, per_client=CAPACITY))
    with serving(app) as base:
        yield base, app.state.store


def new_play(base: str, **request: Any) -> tuple[str, dict]:
    body = {"rules": "classic", "players": 3, "seat": 1, "agents": ["heuristic"], "seed": 1}
    status, data = call(base, "POST", "/api/play", {**body, **request})
    assert status == 200, data
    return data["id"], data["view"]


def test_a_person_plays_a_game_to_the_end(server: tuple[str, Any]) -> None:
    base, store = server
    key, view = new_play(
        base, rules="revised", players=4, seat=2, agents=["random", "greedy", "piler"]
    )
    assert [s["label"] for s in view["seats"]] == ["random", "greedy", "you", "piler"]
    while not view["over"]:
        assert view["to_act"] == 2 and view["legal"]
        status, view = call(
            base, "POST", f"/api/play/{key}/act", {"action": view["legal"][-1]["action"]}
        )
        assert status == 200, view
        if not view["over"]:  # its finished rounds' deals hold tiles the person never saw
            assert call(base, "GET", f"/api/play/{key}/record")[0] == 400
    game = store.get(key, "play").game
    assert view["standings"] == game.standings() and game.terminal
    assert call(base, "GET", f"/api/play/{key}") == (200, view)
    status, record = call(base, "GET", f"/api/play/{key}/record")
    assert status == 200 and record["final"]["standings"] == game.standings()
    assert call(base, "POST", "/api/replay", record)[0] == 200


def test_tabs_play_separate_games(server: tuple[str, Any]) -> None:
    base, _ = server
    first, view = new_play(base, seed=5)
    second, _ = new_play(base, seed=5)
    assert first != second
    call(base, "POST", f"/api/play/{first}/act", {"action": view["legal"][0]["action"]})
    assert call(base, "GET", f"/api/play/{second}")[1] == view


def test_a_watched_game_records_and_replays(server: tuple[str, Any]) -> None:
    base, _ = server
    request = {"rules": "classic", "players": 4, "agents": ["heuristic", "random"] * 2, "seed": 2}
    status, data = call(base, "POST", "/api/watch", request)
    assert status == 200 and data["view"]["kind"] == "table"
    key, moves = data["id"], 0
    while True:
        status, view = call(base, "POST", f"/api/watch/{key}/step?seat=3")
        assert status == 200 and view["kind"] == "seat" and view["seat"] == 3
        moves += 1
        if view["over"]:
            break
    status, record = call(base, "GET", f"/api/watch/{key}/record")
    assert status == 200 and record["players"] == request["agents"]
    assert record["seed"] == 2  # the game is over: its seed predicts nothing more
    status, loaded = call(base, "POST", "/api/replay", record)
    assert status == 200 and loaded["steps"] == moves
    steps = [a for r in record["rounds"] for a in r["actions"]]
    for k in (1, moves // 2, moves):
        status, view = call(base, "GET", f"/api/replay/{loaded['id']}/{k}?seat=table")
        assert status == 200 and view["last_move"]["action"] == steps[k - 1]["action"]
    assert view["over"] and view["standings"] == record["final"]["standings"]


PLAY = {"rules": "classic", "players": 3, "agents": ["random"]}
REFUSED = [
    ("GET", "/api/play/no-such-game", None, None, 404),
    ("POST", "/api/play/no-such-game/act", {"action": 7}, None, 404),
    ("GET", "/api/replay/no-such-game/0", None, None, 404),
    ("GET", "/api/watch/AAAAAAAAAAAAAAAA/record", None, None, 404),
    ("POST", "/api/play", None, b"{not json", 400),
    ("POST", "/api/play", None, b"[1, 2]", 400),
    ("POST", "/api/play", None, b"\xff\xfe", 400),
    ("POST", "/api/play", None, b"[" * 100_000, 400),
    ("POST", "/api/play", None, b"1" * 5000, 400),  # past int()'s digit limit
    ("POST", "/api/play", {"players": 9, "agents": ["random"]}, None, 400),
    ("POST", "/api/play", {"players": True, "agents": ["random"]}, None, 400),
    ("POST", "/api/play", {"players": 3.0, "agents": ["random"]}, None, 400),
    ("POST", "/api/play", {**PLAY, "seat": 1.0}, None, 400),
    ("POST", "/api/play", {**PLAY, "seat": 1e400}, None, 400),
    ("POST", "/api/play", {**PLAY, "seed": 2.5}, None, 400),
    ("POST", "/api/play", {**PLAY, "sead": 1}, None, 400),  # unknown key
    ("POST", "/api/play", {"agents": ["ppo:/etc/passwd"]}, None, 400),
    ("POST", "/api/play", {"agents": ["human"]}, None, 400),
    ("POST", "/api/play", {"agents": ["sb3"]}, None, 400),
    ("POST", "/api/play", {**PLAY, "agents": ["cfr"]}, None, 400),  # cfr: 2 players only
    ("POST", "/api/watch", {**PLAY, "players": 4, "agents": ["cfr-round"]}, None, 400),
    ("POST", "/api/play", {"agents": "random", "seed": -1}, None, 400),
    ("POST", "/api/play", {"agents": ["random"], "seed": "1"}, None, 400),
    ("POST", "/api/play", {"agents": [["random"]]}, None, 400),
    ("POST", "/api/replay", {"format": "grove-record"}, None, 400),
    ("POST", "/api/replay", {"format": "grove-record", "padding": "x"}, None, 400),
    ("GET", "/api/options?x=1", None, None, 400),
    ("GET", "/api/play", None, None, 405),
    ("DELETE", "/api/options", None, None, 405),
    ("GET", "/no/such/page", None, None, 404),
    ("GET", "/static/../../../etc/passwd", None, None, 404),
]


@pytest.mark.parametrize(("method", "path", "body", "raw", "status"), REFUSED)
def test_bad_requests_get_a_4xx_in_one_line(
    server: tuple[str, Any], method: str, path: str, body: object, raw: bytes | None, status: int
) -> None:
    got, data = call(server[0], method, path, body, raw)
    assert got == status, data
    assert isinstance(data, dict) and set(data) == {"error"} and "\n" not in data["error"]
    assert "Traceback" not in data["error"]


def test_a_body_too_large_is_refused_before_it_is_read(server: tuple[str, Any]) -> None:
    host, port = server[0].removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    connection.putrequest("POST", "/api/replay")
    connection.putheader("content-type", "application/json")
    connection.putheader("content-length", str(MAX_BODY + 1))
    connection.endheaders(b"{}")
    response = connection.getresponse()
    assert response.status == 413 and "over" in json.loads(response.read())["error"]
    connection.close()


def test_moves_that_are_not_the_persons_are_refused(server: tuple[str, Any]) -> None:
    base, _ = server
    key, view = new_play(base)
    legal = {m["action"] for m in view["legal"]}
    illegal = next(a for a in range(10) if a not in legal)
    bodies = [{"action": illegal}, {"action": 1.0}, {"action": "7"}, {"action": True}, {}]
    bodies += [{"action": 2**70}, {"action": legal.pop(), "seat": 0}]
    for body in bodies:
        status, data = call(base, "POST", f"/api/play/{key}/act", body)
        assert status == 400 and ("action" in data["error"] or "key" in data["error"]), data
    assert call(base, "GET", f"/api/play/{key}")[1] == view  # nothing moved


def test_counts_in_paths_and_queries_are_ascii_digits(server: tuple[str, Any]) -> None:
    base, _ = server
    status, data = call(base, "POST", "/api/watch", {**PLAY, "seed": 3})
    key = data["id"]
    bad = ["7", "%C2%B2", "%D9%A1", "1.0", "-1", "1&seat=2", "0x1", "1" * 20]  # ², Arabic 1
    for query in bad:
        status, data = call(base, "GET", f"/api/watch/{key}?seat={query}")
        assert status == 400 and "seat" in data["error"], (query, data)
    while not call(base, "POST", f"/api/watch/{key}/step")[1]["over"]:
        pass
    record = call(base, "GET", f"/api/watch/{key}/record")[1]
    status, data = call(base, "POST", "/api/replay", record)
    replay = data["id"]
    for step in ["%C2%B2", "%D9%A1", "1.0", "-1", str(data["steps"] + 1), "9" * 30]:
        status, data = call(base, "GET", f"/api/replay/{replay}/{step}")
        assert status == 400 and "step must be" in data["error"], (step, data)


def test_live_games_are_kept_and_a_flood_is_refused_not_evicting() -> None:
    """The store is full of live games: new ones get 429, the old ones are all still
    served; a finished game makes room for the next."""
    app = create_app(limits=Limits(per_kind=CAPACITY, per_client=CAPACITY))
    with serving(app) as base:
        statuses, keys = [], []
        for k in range(1000):
            method, path, body, raw, _ = REFUSED[k % len(REFUSED)]
            if k % 7 == 0:  # a flood of new games too
                method, path, body, raw = "POST", "/api/play", {**PLAY, "seed": k}, None
            if raw is not None and len(raw) > 10_000:
                raw = raw[:10_000]
            status, data = call(base, method, path, body, raw)
            statuses.append(status)
            if status == 200 and path == "/api/play":
                keys.append(data["id"])
        assert all(s < 500 for s in statuses) and len(keys) == CAPACITY
        assert statuses.count(429) == len(range(0, 1000, 7)) - CAPACITY
        assert all(call(base, "GET", f"/api/play/{key}")[0] == 200 for key in keys)
        view = call(base, "GET", f"/api/play/{keys[0]}")[1]
        while not view["over"]:
            view = call(
                base, "POST", f"/api/play/{keys[0]}/act", {"action": view["legal"][0]["action"]}
            )[1]
        key, view = new_play(base)  # the finished game made room
        assert view["legal"] and call(base, "GET", f"/api/play/{keys[0]}")[0] == 404
        assert len(app.state.store) == CAPACITY


def test_options_offer_each_agent_only_where_it_plays(server: tuple[str, Any]) -> None:
    status, options = call(server[0], "GET", "/api/options")
    assert status == 200 and options["rules"] == {"classic": [2, 3, 4], "revised": [2, 3, 4, 5]}
    assert "heuristic" in options["agents"]
    zoo = {f"zoo:{table}" for table in zoo_shipped()}  # each plays at its own table only
    assert not [
        a for a in options["agents"] if (":" in a and a not in zoo) or a in ("human", "ppo", "sb3")
    ]
    for rules, counts in options["rules"].items():
        words = options["words"][rules]
        assert set(words) == {"goal", "round", "markers", "end", "result", "tiles"}
        for n in counts:
            assert words["tiles"][str(n)].startswith(
                f"The {len(get_rules(rules).tiles(n))} tiles: "
            )
            offered = options["tables"][rules][str(n)]
            # cfr where its solution ships: 2 players, and the whole game at revised 3p
            cfr = n == 2 or (rules, n) == ("revised", 3)
            assert ("cfr" in offered) == cfr and ("cfr-round" in offered) == (n == 2)
            refused = {a for a, plays in (("cfr", cfr), ("cfr-round", n == 2)) if not plays}
            own = {f"zoo:{rules}-{n}p"} & zoo
            assert set(offered) == set(options["agents"]) - zoo - refused | own
    assert json.loads(json.dumps(options)) == options
