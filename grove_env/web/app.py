"""The web server's routes (Starlette): the page, its assets and a small JSON API.

Each route serves one kind of game (:mod:`grove_env.web.sessions`) and answers 404 to
an id of another kind, so the id of a person's game opens only that person's view.

======  ===============================  ==============================================
method  path                             answer
======  ===============================  ==============================================
GET     ``/``                            the page (``static/index.html``)
GET     ``/api/options``                 rule sets, the agents each table may seat,
                                         the rules in words
POST    ``/api/play``                    a person's table: ``{rules, players, seat,
                                         agents, seed}`` -> ``{id, view}``
GET     ``/api/play/{id}``               the person's seat view
POST    ``/api/play/{id}/act``           ``{action}``: the person's move; the agents
                                         then move until the person is to act again
GET     ``/api/play/{id}/hints``         the person's hints (:mod:`.hints`)
POST    ``/api/watch``                   a table of agents: ``{rules, players, agents,
                                         seed}`` -> ``{id, view}``
POST    ``/api/watch/{id}/step``         ``{}``: one agent move (``?seat=k`` as below)
GET     ``/api/watch/{id}?seat=k``       the table (no ``seat``) or seat ``k``'s view
GET     ``/api/watch/{id}/record``       the watched game's record (no seed while live)
POST    ``/api/replay``                  a game record -> ``{id, steps, view}``
GET     ``/api/replay/{id}/{step}``      the replay after ``step`` moves (``?seat=k``)
======  ===============================  ==============================================

Every refused request gets a 4xx with ``{"error": "one line"}``, never a traceback.
Requests are read strictly (:mod:`.requests`), the gate checks Host, token and content
type (:mod:`.guard`), and the game work runs in worker threads, at most ``workers`` at
once, so a slow move or a large replay never holds up the event loop.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from functools import partial
from importlib import resources
from typing import Any, TypeVar

import anyio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from grove_env.rules import RULE_SETS

from .guard import LOOPBACK, Guard
from .hints import seat_hints
from .requests import RequestError, digits, json_object, query_keys
from .sessions import RECORD_KEYS, AgentMenu, PlayTable, Replay, WatchTable
from .store import Limits, SessionStore
from .words import rules_words

MAX_BODY = 2_000_000
"""Largest request body in bytes (a 100-round record is about 60 kB)."""
STATIC = resources.files("grove_env.web") / "static"
PLAY_KEYS = ("rules", "players", "seat", "agents", "seed")
WATCH_KEYS = ("rules", "players", "agents", "seed")
T = TypeVar("T")


def _error(message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _body(request: Request) -> bytes:
    """The request's body, refused (413) past :data:`MAX_BODY` before it is all read."""
    declared = request.headers.get("content-length", "0")
    if declared.isascii() and declared.isdigit() and int(declared) > MAX_BODY:
        raise RequestError(f"request body over {MAX_BODY} bytes", status=413)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise RequestError(f"request body over {MAX_BODY} bytes", status=413)
        chunks.append(chunk)
    return b"".join(chunks)


def _seat(request: Request, num_players: int) -> int | None:
    """The ``seat`` query: a seat number, or the whole table (absent or ``table``)."""
    query_keys(request.query_params.multi_items(), ("seat",))
    text = request.query_params.get("seat")
    if text is None or text == "table":
        return None
    return digits(text, "seat", num_players - 1)


def _client(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def create_app(
    extra_specs: Sequence[str] = (),
    limits: Limits | None = None,
    hosts: Collection[str] = LOOPBACK,
    token: str | None = None,
    workers: int = 4,
) -> Starlette:
    """The application: ``extra_specs`` are agent specs the operator allows beyond the
    built-in ones, ``hosts`` the Host names served, ``token`` the API's access token."""
    store = SessionStore(limits or Limits())
    menu = AgentMenu(extra_specs)
    limiter = anyio.CapacityLimiter(workers)
    options_body = {
        "rules": {name: list(r.player_counts) for name, r in RULE_SETS.items()},
        "agents": menu.specs,
        "tables": {r: {str(n): specs for n, specs in t.items()} for r, t in menu.tables.items()},
        "default_agent": "heuristic",
        "words": {name: rules_words(name) for name in RULE_SETS},
    }

    async def work(fn: Callable[..., T], *args: Any) -> T:
        return await anyio.to_thread.run_sync(partial(fn, *args), limiter=limiter)

    def no_query(request: Request) -> None:
        query_keys(request.query_params.multi_items(), ())

    async def page(request: Request) -> Response:
        return FileResponse(str(STATIC / "index.html"))

    async def options(request: Request) -> Response:
        no_query(request)
        return JSONResponse(options_body)

    def start_play(raw: bytes, client: str) -> dict[str, Any]:
        table = PlayTable.create(json_object(raw, PLAY_KEYS), menu)
        key = store.add(table, client)
        with table.lock:
            try:
                table.run_agents()
            except RequestError as err:
                raise RequestError(f"{err} (game id {key})", err.status) from None
            return {"id": key, "view": table.view(table.person)}

    async def new_play(request: Request) -> Response:
        no_query(request)
        return JSONResponse(await work(start_play, await _body(request), _client(request)))

    def play_view(key: str) -> dict[str, Any]:
        table: PlayTable = store.get(key, "play")  # type: ignore[assignment]
        with table.lock:
            return table.view(table.person)

    async def get_play(request: Request) -> Response:
        no_query(request)
        return JSONResponse(await work(play_view, request.path_params["id"]))

    def play_move(key: str, raw: bytes) -> dict[str, Any]:
        table: PlayTable = store.get(key, "play")  # type: ignore[assignment]
        body = json_object(raw, ("action",))
        with table.lock:
            table.act(body.get("action"))
            table.run_agents()
            return table.view(table.person)

    async def act(request: Request) -> Response:
        no_query(request)
        raw = await _body(request)
        return JSONResponse(await work(play_move, request.path_params["id"], raw))

    def play_hints(key: str) -> dict[str, Any]:
        table: PlayTable = store.get(key, "play")  # type: ignore[assignment]
        with table.lock:
            return seat_hints(table.game, table.person, table.encoder)

    async def hints(request: Request) -> Response:
        no_query(request)
        return JSONResponse(await work(play_hints, request.path_params["id"]))

    def start_watch(raw: bytes, client: str) -> dict[str, Any]:
        table = WatchTable.create(json_object(raw, WATCH_KEYS), menu)
        return {"id": store.add(table, client), "view": table.view(None)}

    async def new_watch(request: Request) -> Response:
        no_query(request)
        return JSONResponse(await work(start_watch, await _body(request), _client(request)))

    def watch_view(key: str, request: Request, move: bool) -> dict[str, Any]:
        table: WatchTable = store.get(key, "watch")  # type: ignore[assignment]
        seat = _seat(request, table.num_players)
        with table.lock:
            if move and table.agent_to_act():
                failure = table.agent_step()
                if failure is not None:
                    raise RequestError(f"{failure}; random plays that seat from now on", 409)
            return table.view(seat)

    async def get_watch(request: Request) -> Response:
        return JSONResponse(await work(watch_view, request.path_params["id"], request, False))

    async def step(request: Request) -> Response:
        json_object(await _body(request), ())
        return JSONResponse(await work(watch_view, request.path_params["id"], request, True))

    def watch_record(key: str) -> dict[str, Any]:
        table: WatchTable = store.get(key, "watch")  # type: ignore[assignment]
        with table.lock:
            return table.record()

    async def get_record(request: Request) -> Response:
        no_query(request)
        return JSONResponse(await work(watch_record, request.path_params["id"]))

    def start_replay(raw: bytes, client: str) -> dict[str, Any]:
        session = Replay(json_object(raw, RECORD_KEYS))
        key = store.add(session, client)
        return {"id": key, "steps": len(session.steps), "view": session.view(0, None)}

    async def new_replay(request: Request) -> Response:
        no_query(request)
        return JSONResponse(await work(start_replay, await _body(request), _client(request)))

    def replay_view(key: str, text: str, request: Request) -> dict[str, Any]:
        session: Replay = store.get(key, "replay")  # type: ignore[assignment]
        at = digits(text, "step", len(session.steps))
        return session.view(at, _seat(request, session.num_players))

    async def get_replay(request: Request) -> Response:
        params = request.path_params
        return JSONResponse(await work(replay_view, params["id"], params["step"], request))

    async def refused(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestError)
        return _error(str(exc), exc.status)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return _error(str(exc.detail), exc.status_code)

    routes = [
        Route("/", page),
        Route("/api/options", options),
        Route("/api/play", new_play, methods=["POST"]),
        Route("/api/play/{id}", get_play),
        Route("/api/play/{id}/act", act, methods=["POST"]),
        Route("/api/play/{id}/hints", hints),
        Route("/api/watch", new_watch, methods=["POST"]),
        Route("/api/watch/{id}", get_watch),
        Route("/api/watch/{id}/step", step, methods=["POST"]),
        Route("/api/watch/{id}/record", get_record),
        Route("/api/replay", new_replay, methods=["POST"]),
        Route("/api/replay/{id}/{step}", get_replay),
        Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
    ]
    handlers = {RequestError: refused, HTTPException: http_error}
    gate = [Middleware(Guard, hosts=hosts, token=token)]
    app = Starlette(routes=routes, exception_handlers=handlers, middleware=gate)  # type: ignore[arg-type]
    app.state.store = store  # the games, for tests and tools that look inside
    return app
