"""The web server's routes (Starlette): the page, its assets and a small JSON API.

======  ==============================  ===============================================
method  path                            answer
======  ==============================  ===============================================
GET     ``/``                           the page (``static/index.html``)
GET     ``/api/options``                rule sets, player counts, the allowed agent specs
POST    ``/api/play``                   new table for a person: ``{rules, players, seat,
                                        agents, seed}`` -> ``{id, view}``
GET     ``/api/play/{id}``              the person's seat view
POST    ``/api/play/{id}/act``          ``{action}``: the person's move; the agents then
                                        move until the person is to act again
POST    ``/api/watch``                  new table of agents: ``{rules, players, agents,
                                        seed}`` -> ``{id, view}``
POST    ``/api/watch/{id}/step``        one agent move
GET     ``/api/watch/{id}?seat=k``      the table (no ``seat``) or seat ``k``'s view
GET     ``/api/record/{id}``            a table's game record (JSON, see grove_env.record)
POST    ``/api/replay``                 a game record -> ``{id, steps, view}``
GET     ``/api/replay/{id}/{step}``     the replay after ``step`` moves (``?seat=k``)
======  ==============================  ===============================================

Every refused request gets a 4xx with ``{"error": "one line"}``, never a traceback.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from grove_env.rules import RULE_SETS

from .sessions import Replay, RequestError, SessionStore, Table, safe_specs

MAX_BODY = 2_000_000
"""Largest request body in bytes (a 100-round record is about 60 kB)."""
STATIC = resources.files("grove_env.web") / "static"


def _error(message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _body(request: Request) -> dict[str, Any]:
    """The request's JSON object; ``RequestError`` for anything else."""
    if int(request.headers.get("content-length") or 0) > MAX_BODY:
        raise RequestError(f"request body over {MAX_BODY} bytes", status=413)
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY:
            raise RequestError(f"request body over {MAX_BODY} bytes", status=413)
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise RequestError("the request body is not valid JSON") from None
    if not isinstance(data, dict):
        raise RequestError("the request body must be a JSON object")
    return data


def _seat(request: Request, num_players: int) -> int | None:
    text = request.query_params.get("seat")
    if text is None or text == "table":
        return None
    if not text.isdigit() or int(text) >= num_players:
        raise RequestError(f"seat must be 0..{num_players - 1} or 'table', got {text[:20]!r}")
    return int(text)


def create_app(extra_specs: Sequence[str] = (), capacity: int = 256) -> Starlette:
    """The application; ``extra_specs`` are agent specs the operator allows beyond the safe ones."""
    store = SessionStore(capacity)
    allowed = safe_specs(extra_specs)

    async def page(request: Request) -> Response:
        return FileResponse(str(STATIC / "index.html"))

    async def options(request: Request) -> Response:
        counts = {name: list(r.player_counts) for name, r in RULE_SETS.items()}
        return JSONResponse({"rules": counts, "agents": allowed, "default_agent": "heuristic"})

    async def new_play(request: Request) -> Response:
        table = Table.create(await _body(request), allowed, human=True)
        table.run_agents()
        key = store.add(table)
        return JSONResponse({"id": key, "view": table.view(_person(table))})

    def _person(table: Table) -> int:
        return next(s for s in range(table.num_players) if s not in table.agents)

    async def get_play(request: Request) -> Response:
        table = store.get(request.path_params["id"], Table)
        return JSONResponse(table.view(_person(table)))

    async def act(request: Request) -> Response:
        table = store.get(request.path_params["id"], Table)
        body = await _body(request)
        seat = _person(table)
        table.act(seat, body.get("action"))
        table.run_agents()
        return JSONResponse(table.view(seat))

    async def new_watch(request: Request) -> Response:
        body = await _body(request)
        table = Table.create(body, allowed, human=False)
        key = store.add(table)
        return JSONResponse({"id": key, "view": table.view(None)})

    async def get_watch(request: Request) -> Response:
        table = store.get(request.path_params["id"], Table)
        return JSONResponse(table.view(_seat(request, table.num_players)))

    async def step(request: Request) -> Response:
        table = store.get(request.path_params["id"], Table)
        if table.agent_to_act():
            table.agent_step()
        return JSONResponse(table.view(_seat(request, table.num_players)))

    async def get_record(request: Request) -> Response:
        table = store.get(request.path_params["id"], Table)
        return JSONResponse(table.record())

    async def new_replay(request: Request) -> Response:
        session = Replay(await _body(request))
        key = store.add(session)
        return JSONResponse({"id": key, "steps": len(session.steps), "view": session.view(0, None)})

    async def get_replay(request: Request) -> Response:
        session = store.get(request.path_params["id"], Replay)
        text = request.path_params["step"]
        if not text.isdigit() or int(text) > len(session.steps):
            raise RequestError(f"step must be 0..{len(session.steps)}, got {text[:20]!r}")
        seat = _seat(request, session.record.num_players)
        return JSONResponse(session.view(int(text), seat))

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
        Route("/api/watch", new_watch, methods=["POST"]),
        Route("/api/watch/{id}", get_watch),
        Route("/api/watch/{id}/step", step, methods=["POST"]),
        Route("/api/record/{id}", get_record),
        Route("/api/replay", new_replay, methods=["POST"]),
        Route("/api/replay/{id}/{step}", get_replay),
        Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
    ]
    handlers = {RequestError: refused, HTTPException: http_error}
    app = Starlette(routes=routes, exception_handlers=handlers)  # type: ignore[arg-type]
    app.state.store = store  # the games, for tests and tools that look inside
    return app
