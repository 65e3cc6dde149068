"""Random requests at every route of a live server: never a 5xx, never a traceback in its log.

Hypothesis draws the method, a route (or a random path), the id of each kind of game
or a random one, a random query and a body: random JSON, a JSON object of the route's
own keys with random values, or random bytes, under a JSON or another content type.
"""

from __future__ import annotations

import http.client
import json
import logging
import urllib.parse
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the 'web' extra (starlette) is not installed")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from web_server import call, serving  # noqa: E402

from grove_env.web.app import create_app  # noqa: E402

PATHS = [
    "/",
    "/api/options",
    "/api/play",
    "/api/play/{id}",
    "/api/play/{id}/act",
    "/api/play/{id}/hints",
    "/api/watch",
    "/api/watch/{id}",
    "/api/watch/{id}/step",
    "/api/watch/{id}/record",
    "/api/replay",
    "/api/replay/{id}/{step}",
    "/static/app.js",
    "/static/{id}",
]
KEYS = ["rules", "players", "seat", "agents", "seed", "action", "format", "version",
        "num_players", "players", "rounds", "final"]  # fmt: skip
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.integers(-2, 12),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["classic", "revised", "heuristic", "cfr", "sb3", "ppo:/etc/passwd", "²"]),
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
bodies = st.one_of(
    st.none(),
    json_values.map(lambda v: json.dumps(v).encode()),
    st.dictionaries(st.sampled_from(KEYS), json_values, max_size=5).map(
        lambda v: json.dumps(v).encode()
    ),
    st.binary(max_size=64),
)
segments = st.one_of(
    st.text(max_size=20),
    st.sampled_from(["0", "1", "99999999999", "²", "١", "-1", "1.0", "table", ".."]),
)


class Errors(logging.Handler):
    """Every log record at ERROR or above, or carrying a traceback."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.ERROR or record.exc_info or "Traceback" in record.getMessage():
            self.records.append(record)


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, dict[str, str], Errors]]:
    errors = Errors()
    loggers = [logging.getLogger(name) for name in ("", "uvicorn", "uvicorn.error", "grove_env")]
    with serving(create_app()) as base:
        for logger in loggers:  # once uvicorn has set up its logging, which replaces handlers
            logger.addHandler(errors)
        request = {"rules": "classic", "players": 2, "agents": ["cfr"], "seed": 1}
        ids = {
            "play": call(base, "POST", "/api/play", request)[1]["id"],
            "watch": call(base, "POST", "/api/watch", request)[1]["id"],
        }
        while not call(base, "POST", f"/api/watch/{ids['watch']}/step")[1]["over"]:
            pass
        record = call(base, "GET", f"/api/watch/{ids['watch']}/record")[1]
        ids["replay"] = call(base, "POST", "/api/replay", record)[1]["id"]
        yield base, ids, errors
    for logger in loggers:
        logger.removeHandler(errors)


def send(base: str, method: str, path: str, body: bytes | None, media: str) -> int:
    host, port = base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=60)
    headers = {"content-type": media} if media else {}
    connection.request(method, path, body=body, headers=headers)
    status = connection.getresponse().status
    connection.close()
    return status


@pytest.mark.slow
@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    method=st.sampled_from(["GET", "POST", "POST", "PUT", "DELETE", "HEAD"]),
    template=st.sampled_from(PATHS) | segments.map(lambda s: "/api/" + s),
    kind=st.sampled_from(["play", "watch", "replay", "random"]),
    random_id=segments,
    step=segments,
    query=st.lists(st.tuples(st.sampled_from(["seat", "x", ""]), segments), max_size=2),
    body=bodies,
    media=st.sampled_from(["application/json"] * 4 + ["text/plain", ""]),
)
def test_random_requests_never_get_a_5xx_nor_log_a_traceback(
    server: tuple[str, dict[str, str], Errors],
    method: str,
    template: str,
    kind: str,
    random_id: str,
    step: str,
    query: list[tuple[str, str]],
    body: bytes | None,
    media: str,
) -> None:
    base, ids, errors = server
    key = ids.get(kind, random_id)
    path = template.replace("{id}", urllib.parse.quote(key, safe="")).replace(
        "{step}", urllib.parse.quote(step, safe="")
    )
    path = urllib.parse.quote(path, safe="/%")
    if query:
        path += "?" + urllib.parse.urlencode(query)
    status = send(base, method, path, body, media)
    assert status < 500, (method, path, body)
    assert errors.records == [], [r.getMessage() for r in errors.records]


def test_the_log_check_sees_a_traceback(server: tuple[str, dict[str, str], Errors]) -> None:
    """The handler does catch what the server logs when a route raises."""
    _, _, errors = server
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        logging.getLogger("uvicorn.error").exception("Exception in ASGI application")
    caught: Any = errors.records[:]
    errors.records.clear()
    assert caught and all(r.exc_info for r in caught)
