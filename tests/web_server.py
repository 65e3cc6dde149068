"""A grove-web server on a free port of 127.0.0.1 in a background thread, for the tests."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn
from starlette.applications import Starlette


@contextmanager
def serving(app: Starlette) -> Iterator[str]:
    """Serve ``app`` while the block runs; yields its base address."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def call(
    base: str,
    method: str,
    path: str,
    body: object = None,
    raw: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, Any]:
    """``(status, parsed JSON or raw bytes)`` of one request; 4xx/5xx are returned, not raised.

    A POST sends ``body`` as JSON (``{}`` when there is none) with the JSON content type,
    unless ``raw`` bytes or other ``headers`` are given.
    """
    if raw is None and method == "POST":
        raw = json.dumps({} if body is None else body).encode()
    sent = {"content-type": "application/json", **(headers or {})}
    request = urllib.request.Request(base + path, data=raw, method=method, headers=sent)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, payload = response.status, response.read()
    except urllib.error.HTTPError as err:
        status, payload = err.code, err.read()
    try:
        return status, json.loads(payload)
    except ValueError:
        return status, payload
