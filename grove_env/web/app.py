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
GET     ``/api/play/{id}/record``        the person's game record, once it is over
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
from dataclasses import dataclass
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
from .views import View
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


@dataclass
class Server:
    """What every route shares: the games, the agent menu and the worker threads."""

    store: SessionStore
    menu: AgentMenu
    limiter: anyio.CapacityLimiter
    options: dict[str, Any]

    async def work(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a worker thread, at most ``workers`` at once."""
        return await anyio.to_thread.run_sync(partial(fn, *args), limiter=self.limiter)


def _server(request: Request) -> Server:
    server: Server = request.app.state.server
    return server


def _no_query(request: Request) -> None:
    query_keys(request.query_params.multi_items(), ())


# ------------------------------------------------------------------ the work, in threads
def start_play(server: Server, raw: bytes, client: str) -> View:
    table = PlayTable.create(json_object(raw, PLAY_KEYS), server.menu)
    key = server.store.add(table, client)
    with table.lock:
        try:
            table.run_agents()
        except RequestError as err:
            raise RequestError(f"{err} (game id {key})", err.status) from None
        return {"id": key, "view": table.view(table.person)}


def play_view(server: Server, key: str) -> View:
    table: PlayTable = server.store.get(key, "play")  # type: ignore[assignment]
    with table.lock:
        return table.view(table.person)


def play_move(server: Server, key: str, raw: bytes) -> View:
    table: PlayTable = server.store.get(key, "play")  # type: ignore[assignment]
    body = json_object(raw, ("action",))
    with table.lock:
        table.act(body.get("action"))
        table.run_agents()
        return table.view(table.person)


def play_hints(server: Server, key: str) -> View:
    table: PlayTable = server.store.get(key, "play")  # type: ignore[assignment]
    with table.lock:
        return seat_hints(table.game, table.person, table.encoder)


def game_record(server: Server, key: str, kind: str) -> View:
    table: PlayTable | WatchTable = server.store.get(key, kind)  # type: ignore[assignment]
    with table.lock:
        return table.record()


def start_watch(server: Server, raw: bytes, client: str) -> View:
    table = WatchTable.create(json_object(raw, WATCH_KEYS), server.menu)
    return {"id": server.store.add(table, client), "view": table.view(None)}


def watch_view(server: Server, key: str, request: Request, move: bool) -> View:
    table: WatchTable = server.store.get(key, "watch")  # type: ignore[assignment]
    seat = _seat(request, table.num_players)
    with table.lock:
        if move and table.agent_to_act():
            failure = table.agent_step()
            if failure is not None:
                raise RequestError(f"{failure}; random plays that seat from now on", 409)
        return table.view(seat)


def start_replay(server: Server, raw: bytes, client: str) -> View:
    session = Replay(json_object(raw, RECORD_KEYS))
    key = server.store.add(session, client)
    return {"id": key, "steps": len(session.steps), "view": session.view(0, None)}


def replay_view(server: Server, key: str, text: str, request: Request) -> View:
    session: Replay = server.store.get(key, "replay")  # type: ignore[assignment]
    at = digits(text, "step", len(session.steps))
    return session.view(at, _seat(request, session.num_players))


# ------------------------------------------------------------------ the routes
async def page(request: Request) -> Response:
    return FileResponse(str(STATIC / "index.html"))


async def options(request: Request) -> Response:
    _no_query(request)
    return JSONResponse(_server(request).options)


async def _answer(request: Request, work: Any, *args: Any) -> Response:
    """The JSON of ``work(server, *args)``, run off the event loop by the server."""
    server = _server(request)
    return JSONResponse(await server.work(work, server, *args))


async def new_play(request: Request) -> Response:
    _no_query(request)
    return await _answer(request, start_play, await _body(request), _client(request))


async def get_play(request: Request) -> Response:
    _no_query(request)
    return await _answer(request, play_view, request.path_params["id"])


async def act(request: Request) -> Response:
    _no_query(request)
    return await _answer(request, play_move, request.path_params["id"], await _body(request))


async def hints(request: Request) -> Response:
    _no_query(request)
    return await _answer(request, play_hints, request.path_params["id"])


async def get_play_record(request: Request) -> Response:
    _no_query(request)
    return await _answer(request, game_record, request.path_params["id"], "play")


async def new_watch(request: Request) -> Response:
    _no_query(request)
    return await _answer(request, start_watch, await _body(request), _client(request))


async def get_watch(request: Request) -> Response:
    return await _answer(request, watch_view, request.path_params["id"], request, False)


async def step(request: Request) -> Response:
    json_object(await _body(request), ())
    return await _answer(request, watch_view, request.path_params["id"], request, True)


async def get_watch_record(request: Request) -> Response:
    _no_query(request)
    return await _answer(request, game_record, request.path_params["id"], "watch")


async def new_replay(request: Request) -> Response:
    _no_query(request)
    return await _answer(request, start_replay, await _body(request), _client(request))


async def get_replay(request: Request) -> Response:
    params = request.path_params
    return await _answer(request, replay_view, params["id"], params["step"], request)


async def refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestError)
    return _error(str(exc), exc.status)


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return _error(str(exc.detail), exc.status_code)


ROUTES = [
    Route("/", page),
    Route("/api/options", options),
    Route("/api/play", new_play, methods=["POST"]),
    Route("/api/play/{id}", get_play),
    Route("/api/play/{id}/act", act, methods=["POST"]),
    Route("/api/play/{id}/hints", hints),
    Route("/api/play/{id}/record", get_play_record),
    Route("/api/watch", new_watch, methods=["POST"]),
    Route("/api/watch/{id}", get_watch),
    Route("/api/watch/{id}/step", step, methods=["POST"]),
    Route("/api/watch/{id}/record", get_watch_record),
    Route("/api/replay", new_replay, methods=["POST"]),
    Route("/api/replay/{id}/{step}", get_replay),
    Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
]


def create_app(
    extra_specs: Sequence[str] = (),
    limits: Limits | None = None,
    hosts: Collection[str] = LOOPBACK,
    token: str | None = None,
    workers: int = 4,
) -> Starlette:
    """The application: ``extra_specs`` are agent specs the operator allows beyond the
    built-in ones, ``hosts`` the Host names served, ``token`` the API's access token."""
    menu = AgentMenu(extra_specs)
    options_body = {
        "rules": {name: list(r.player_counts) for name, r in RULE_SETS.items()},
        "agents": menu.specs,
        "tables": {r: {str(n): specs for n, specs in t.items()} for r, t in menu.tables.items()},
        "default_agent": "heuristic",
        "words": {name: rules_words(name) for name in RULE_SETS},
    }
    server = Server(
        SessionStore(limits or Limits()), menu, anyio.CapacityLimiter(workers), options_body
    )
    handlers = {RequestError: refused, HTTPException: http_error}
    gate = [Middleware(Guard, hosts=hosts, token=token)]
    app = Starlette(routes=ROUTES, exception_handlers=handlers, middleware=gate)  # type: ignore[arg-type]
    app.state.server = server
    app.state.store = server.store  # the games, for tests and tools that look inside
    return app
