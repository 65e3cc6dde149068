"""The games the server holds: a person's table, a watched table, a replay.

The server keeps every game; the page only names one by its id and sends the moves of
its seat. :class:`Table` is one game with agents at some seats, :class:`Replay` a
checked record, and :class:`SessionStore` keeps a bounded number of them (the oldest
unused one goes first), so a flood of new games cannot exhaust the memory.

Agent specs come from the page, so only safe ones are accepted: the registered agents
that take no argument, plus the specs the operator allowed on the command line
(``grove-web --agent ppo:runs/x/best.zip``). A spec naming a file is never taken from
a request: loading a policy file runs code from it.
"""

from __future__ import annotations

import secrets
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from grove_env.actions import NUM_ACTIONS, action_name
from grove_env.agents.base import Agent, agent_names, make_agent
from grove_env.core import Game
from grove_env.observation import ObservationEncoder
from grove_env.record import GameRecord, load_record, record_game, replay
from grove_env.rules import RULE_SETS, get_rules

from .views import View, action_mask, seat_view, table_view

MAX_ROUNDS = 100
"""Round limit of a table, as in the environment's default ``max_rounds``."""
MAX_SEED = 2**63


class RequestError(ValueError):
    """A request the server refuses; ``status`` is its HTTP code (400 or 404)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def safe_specs(extra: Sequence[str] = ()) -> list[str]:
    """The agent specs the page may ask for: registered agents without argument, plus ``extra``."""
    return [name for name in agent_names() if name not in ("human", "ppo")] + list(extra)


def _choice(value: object, allowed: Sequence[Any], what: str) -> Any:
    if isinstance(value, bool) or value not in allowed:
        raise RequestError(f"{what} must be one of {list(allowed)}, got {value!r}")
    return value


def _seed(value: object) -> int:
    if value is None:
        return secrets.randbelow(MAX_SEED)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < MAX_SEED:
        raise RequestError(f"seed must be an int in 0..2**63-1 or null, got {value!r}")
    return value


@dataclass
class Table:
    """One game held by the server: agents at the seats in ``agents``, people elsewhere."""

    rules: str
    num_players: int
    labels: list[str]
    agents: dict[int, Agent]
    seed: int
    game: Game = field(init=False)
    encoder: ObservationEncoder = field(init=False)

    def __post_init__(self) -> None:
        self.game = Game(self.rules, self.num_players, seed=self.seed)
        self.encoder = ObservationEncoder(self.game.rules, self.num_players)

    @classmethod
    def create(cls, request: dict[str, Any], allowed: Sequence[str], human: bool) -> Table:
        """A table from a request ``{rules, players, seat, agents, seed}``; seat: people only."""
        rules = _choice(request.get("rules", "classic"), sorted(RULE_SETS), "rules")
        counts = get_rules(rules).player_counts
        n = _choice(request.get("players", 4), counts, f"players ({rules})")
        specs = request.get("agents")
        need = n - 1 if human else n
        if not isinstance(specs, list) or len(specs) not in (1, need):
            raise RequestError(f"agents must be a list of 1 or {need} agent specs, got {specs!r}")
        specs = [_choice(s, allowed, "each agent") for s in specs]
        specs = specs * need if len(specs) == 1 else specs
        seed = _seed(request.get("seed"))
        if human:
            seat = _choice(request.get("seat", 0), list(range(n)), "seat")
            seats = [s for s in range(n) if s != seat]
        else:
            seats = list(range(n))
        agents = {s: make_agent(spec, seed=seed + s) for s, spec in zip(seats, specs)}
        labels = [specs[seats.index(s)] if s in agents else "you" for s in range(n)]
        return cls(rules, n, labels, agents, seed)

    @property
    def truncated(self) -> bool:
        return not self.game.terminal and len(self.game.history) >= MAX_ROUNDS

    @property
    def over(self) -> bool:
        return self.game.terminal or self.truncated

    def agent_to_act(self) -> bool:
        return not self.over and self.game.current_player in self.agents

    def agent_step(self) -> None:
        """One move of the agent to act."""
        seat = self.game.current_player
        observation = {
            "observation": self.encoder.encode(self.game, seat),
            "action_mask": np.array(action_mask(self.game, seat), dtype=np.int8),
        }
        action = int(self.agents[seat].act(observation))
        self.game.apply_action(action)

    def run_agents(self) -> None:
        """Agents move until a person is to act or the game is over."""
        while self.agent_to_act():
            self.agent_step()

    def act(self, seat: int, action: object) -> None:
        """The person at ``seat`` plays ``action``; ``RequestError`` if it is not theirs to play."""
        if self.over:
            raise RequestError("the game is over")
        if seat in self.agents or self.game.current_player != seat:
            raise RequestError(f"it is not seat {seat}'s turn")
        if isinstance(action, bool) or not isinstance(action, int):
            raise RequestError(f"action must be an int, got {action!r}")
        if not 0 <= action < NUM_ACTIONS or not self.game.is_legal(action):
            legal = ", ".join(f"{a} ({action_name(a)})" for a in self.game.legal_actions())
            raise RequestError(f"action {action} is illegal now; legal actions: {legal}")
        self.game.apply_action(action)

    def view(self, seat: int | None) -> View:
        """Seat ``seat``'s view, or the whole table when ``None``."""
        if seat is None:
            return table_view(self.game, self.labels, self.truncated)
        return seat_view(self.game, seat, self.labels, self.encoder, self.truncated)

    def record(self) -> dict[str, Any]:
        data = record_game(self.game, self.labels)
        data["seed"] = self.seed
        return data


class Replay:
    """A recorded game, checked against the rules when it is loaded."""

    def __init__(self, data: object) -> None:
        try:
            self.record: GameRecord = load_record(data)
            self.final = replay(self.record)
        except ValueError as err:
            raise RequestError(str(err)) from None
        n = self.record.num_players
        self.labels = list(self.record.players or [f"P{s}" for s in range(n)])
        if len(self.labels) != n:
            raise RequestError(
                f"not a game record: 'players' names {len(self.labels)} of {n} seats"
            )
        self.steps = self.record.steps

    def view(self, step: int, seat: int | None) -> View:
        """The table after ``step`` moves, from ``seat`` (``None``: the whole table)."""
        game = replay(self.record, step)
        view = (
            seat_view(game, seat, self.labels)
            if seat is not None
            else table_view(game, self.labels)
        )
        last = self.steps[step - 1] if step > 0 else None
        view["step"] = step
        view["steps"] = len(self.steps)
        view["last_move"] = (
            None
            if last is None
            else {"seat": last[0], "action": last[1], "name": action_name(last[1])}
        )
        return view


Session = Table | Replay


class SessionStore:
    """The server's games by id; at most ``capacity``, the least recently used goes first."""

    def __init__(self, capacity: int = 256) -> None:
        self.capacity = capacity
        self._games: OrderedDict[str, Session] = OrderedDict()

    def add(self, session: Session) -> str:
        key = secrets.token_urlsafe(12)
        self._games[key] = session
        while len(self._games) > self.capacity:
            self._games.popitem(last=False)
        return key

    def get(self, key: str, kind: type) -> Any:
        session = self._games.get(key)
        if not isinstance(session, kind):
            raise RequestError(f"no {kind.__name__.lower()} with id {key[:40]!r}", status=404)
        self._games.move_to_end(key)
        return session

    def __len__(self) -> int:
        return len(self._games)
