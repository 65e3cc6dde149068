"""Strict reading of what a request sends: a JSON object of known keys, integers, digits.

Every check raises :class:`RequestError`, which the server answers with its status and
``{"error": "one line"}``. Nothing is coerced: ``2.0`` is not a player count, ``"7"`` is
not an action, ``"²"`` (which ``str.isdigit`` accepts) is not a step, an unknown key is
refused rather than ignored (a typo must not pass as a default).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from typing import Any

from grove_env.messages import one_line

DIGITS = re.compile(r"[0-9]{1,9}")
"""A count in a path or a query: ASCII digits only, at most nine of them."""
GAME_ID = re.compile(r"[A-Za-z0-9_-]{16}")
"""A game id: 12 random bytes in URL-safe base64 (``secrets.token_urlsafe(12)``)."""


class RequestError(ValueError):
    """A request the server refuses; ``status`` is its HTTP code (4xx)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def shown(value: object, limit: int = 40) -> str:
    """``repr(value)`` cut to ``limit`` characters, for error messages about sent data."""
    return one_line(repr(value), limit)


def json_object(raw: bytes, known: Collection[str] | None) -> dict[str, Any]:
    """The JSON object ``raw`` holds; with ``known``, any other key is refused."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise RequestError("the request body is not valid JSON") from None
    if not isinstance(data, dict):
        raise RequestError("the request body must be a JSON object")
    if known is not None:
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise RequestError(
                f"unknown key {shown(unknown[0])} in the request; known keys: {sorted(known)}"
            )
    return data


def integer(value: object, what: str, low: int, high: int) -> int:
    """``value`` if it is a JSON integer in ``low..high`` (not a bool, not a float)."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise RequestError(f"{what} must be an integer in {low}..{high}, got {shown(value)}")
    return value


def choice(value: object, allowed: Sequence[Any], what: str) -> Any:
    """``value`` if it is one of ``allowed`` (compared by type too: ``2.0`` is not ``2``)."""
    if not any(type(value) is type(a) and value == a for a in allowed):
        raise RequestError(f"{what} must be one of {list(allowed)}, got {shown(value)}")
    return value


def digits(text: str, what: str, high: int) -> int:
    """A path or query count: ASCII digits only, at most ``high``."""
    if not DIGITS.fullmatch(text) or int(text) > high:
        raise RequestError(f"{what} must be 0..{high} in ASCII digits, got {shown(text)}")
    return int(text)


def query_keys(items: Sequence[tuple[str, str]], known: Collection[str]) -> None:
    """Refuse query keys outside ``known`` and keys given twice."""
    keys = [k for k, _ in items]
    for key in keys:
        if key not in known:
            raise RequestError(f"unknown query key {shown(key)}; known keys: {sorted(known)}")
        if keys.count(key) > 1:
            raise RequestError(f"query key {shown(key)} given more than once")
