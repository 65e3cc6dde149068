"""The games the server holds, by id: expiry by idle time, limits per kind and per address.

=================  ==========================================================
limit              what happens
=================  ==========================================================
``idle`` seconds   a game nobody has asked about for this long is dropped
``per_kind``       at most this many games of each kind (play, watch, replay);
                   to make room the least recently used *finished* game of the
                   kind goes (a game over, or a replay: its owner holds the
                   file), never a live one: when all are live the new game is
                   refused with 429
``per_client``     at most this many games (all kinds) started from one client
                   address; room is made the same way, among that address's games
=================  ==========================================================

So a flood of games from one address pushes out only that address's finished games,
and a person's game that waits for a move is dropped only by its own idle time. The
store is used from the event loop and from the worker threads that run game work, so
every method takes its lock; a session's own lock (``Session.lock``) guards its game.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from .requests import GAME_ID, RequestError, shown

DEFAULT_IDLE = 1800.0
DEFAULT_PER_KIND = 256
DEFAULT_PER_CLIENT = 64


class Session(Protocol):
    """What the store needs of a game: its kind, whether it may go, and its lock."""

    kind: str
    lock: threading.Lock

    @property
    def finished(self) -> bool: ...


@dataclass
class _Entry:
    session: Session
    client: str
    used: float


@dataclass
class Limits:
    """The store's limits (see the module docstring); the ``grove-web`` flags set them."""

    idle: float = DEFAULT_IDLE
    per_kind: int = DEFAULT_PER_KIND
    per_client: int = DEFAULT_PER_CLIENT

    def __post_init__(self) -> None:
        if not self.idle > 0 or self.per_kind < 1 or self.per_client < 1:
            raise ValueError(f"store limits must be positive, got {self}")


@dataclass
class SessionStore:
    """Games by id under :class:`Limits`; ``clock`` is injectable for tests."""

    limits: Limits = field(default_factory=Limits)
    clock: Callable[[], float] = time.monotonic
    _games: OrderedDict[str, _Entry] = field(default_factory=OrderedDict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, session: Session, client: str) -> str:
        """Keep ``session`` for ``client``; its new id. 429 when the limits allow no room."""
        with self._lock:
            now = self.clock()
            self._expire(now)
            same_kind = [k for k, e in self._games.items() if e.session.kind == session.kind]
            self._make_room(same_kind, self.limits.per_kind, f"{session.kind} games")
            mine = [k for k, e in self._games.items() if e.client == client]
            self._make_room(mine, self.limits.per_client, "games from your address")
            key = secrets.token_urlsafe(12)
            self._games[key] = _Entry(session, client, now)
            return key

    def get(self, key: str, kind: str) -> Session:
        """The ``kind`` game with id ``key``; 404 for any other id (a game of another
        kind included: a route never serves another kind's game)."""
        with self._lock:
            self._expire(self.clock())
            entry = self._games.get(key) if GAME_ID.fullmatch(key) else None
            if entry is None or entry.session.kind != kind:
                raise RequestError(f"no {kind} game with id {shown(key)}", status=404)
            entry.used = self.clock()
            self._games.move_to_end(key)
            return entry.session

    def _expire(self, now: float) -> None:
        while self._games:
            key, entry = next(iter(self._games.items()))
            if now - entry.used < self.limits.idle:
                return
            del self._games[key]

    def _make_room(self, keys: list[str], limit: int, what: str) -> None:
        """Drop the least recently used finished games among ``keys`` until one more fits."""
        finished = [k for k in keys if self._games[k].session.finished]  # oldest first
        excess = len(keys) + 1 - limit
        if excess > len(finished):
            raise RequestError(
                f"the server holds {len(keys)} live {what}, its limit; finish one or try "
                "again once one has been idle long enough to expire",
                status=429,
            )
        for key in finished[: max(excess, 0)]:
            del self._games[key]

    def __len__(self) -> int:
        with self._lock:
            return len(self._games)

    def count(self, kind: str) -> int:
        """How many games of ``kind`` are held."""
        with self._lock:
            return sum(e.session.kind == kind for e in self._games.values())
