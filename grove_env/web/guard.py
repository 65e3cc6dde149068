"""The server's gate (ASGI middleware): Host allow-list, access token, JSON POSTs, headers.

=========================  ============================================================
check                      why
=========================  ============================================================
``Host`` in the allow-list a page of another site that rebinds its name to this address
                           (DNS rebinding) sends its own name as Host: refused, 421
token, when one is set     every ``/api/`` call carries ``Authorization: Bearer TOKEN``
                           (401 otherwise); the page and its files need none
POST is application/json   a ``text/plain`` or form POST needs no CORS preflight, so any
                           web page could make a visitor's browser send it: 415
=========================  ============================================================

Every answer gets a Content-Security-Policy that allows only the page's own script and
style (no inline code, no framing), ``X-Frame-Options: DENY``,
``X-Content-Type-Options: nosniff``, ``Referrer-Policy: no-referrer``, and the API's
answers ``Cache-Control: no-store``.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Awaitable, Callable, Collection, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOOPBACK = ("127.0.0.1", "localhost", "::1")
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]


def host_name(header: str) -> str:
    """The name in a Host header, without its port: ``[::1]:8000`` -> ``::1``."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].partition("]")[0]
    return header.rpartition(":")[0] if header.count(":") == 1 else header


class Guard:
    """Wraps the application with the checks of the module docstring."""

    def __init__(self, app: ASGIApp, hosts: Collection[str], token: str | None) -> None:
        self.app = app
        self.hosts = {h.lower() for h in hosts}
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        api = scope["path"].startswith("/api/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                extra = HEADERS + ([(b"cache-control", b"no-store")] if api else [])
                message["headers"] = list(message.get("headers", [])) + extra
            await send(message)

        refusal = self.refusal(scope, api)
        if refusal is not None:
            status, text = refusal
            body = json.dumps({"error": text}).encode()
            await send_with_headers(
                {
                    "type": "http.response.start",
                    "status": status,
                    "headers": [(b"content-type", b"application/json")],
                }
            )
            await send_with_headers({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send_with_headers)

    def refusal(self, scope: Scope, api: bool) -> tuple[int, str] | None:
        """``(status, one line)`` for a request refused at the gate, else ``None``."""
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = host_name(headers.get("host", ""))
        if host not in self.hosts:
            return 421, f"host {host[:60]!r} is not served here (grove-web --allow-host NAME)"
        if api and self.token is not None:
            sent = headers.get("authorization", "")
            if not secrets.compare_digest(sent.encode(), f"Bearer {self.token}".encode()):
                return 401, "this server needs its access token (Authorization: Bearer TOKEN)"
        if scope["method"] == "POST":
            media = headers.get("content-type", "").partition(";")[0].strip().lower()
            if media != "application/json":
                return 415, f"a POST must be application/json, got {media[:60]!r}"
        return None
