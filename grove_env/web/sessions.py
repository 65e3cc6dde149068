"""The games the server holds: a person's table, a watched table, a replay.

Three kinds, and each route serves one (:mod:`grove_env.web.app`): a person's game
(``play``) is served only as its person's seat view, so its id opens nothing more; a
watched game (``watch``, agents only) is shown whole to whoever watches it; a replay
holds a record its sender already has. A live game's record has no seed (it would
predict every later deal) and only finished rounds.

Agent specs come from the page, so only the ones of :class:`AgentMenu` are accepted:
the registered agents that build without an argument, plus the specs the operator
allowed on the command line (``grove-web --agent ppo:RUN``, a run directory), each offered
only at the tables it can play (:func:`grove_env.agents.base.table_refusal`). A spec
naming a file is never taken from a request: loading a policy file runs code from it.
An agent that still fails while it plays is replaced by ``random`` for the rest of the
game, and the request that hit it is answered 409 saying so: the game goes on.
"""

from __future__ import annotations

import logging
import secrets
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from grove_env.actions import NUM_ACTIONS
from grove_env.agents.base import Agent, PluginError, agent_names, make_agent, table_refusal
from grove_env.agents.learned.policy_files import zoo_shipped
from grove_env.core import Game
from grove_env.messages import describe, one_line
from grove_env.observation import ObservationEncoder
from grove_env.record import load_record, record_game, replay
from grove_env.rules import RULE_SETS, get_rules

from .requests import RequestError, choice, integer, shown
from .views import View, action_mask, move_words, seat_view, table_view

MAX_ROUNDS = 100
"""Round limit of a table, as in the environment's default ``max_rounds``."""
MAX_SEED = 2**63 - 1
MAX_LABEL = 200
"""Longest player label a replay keeps (a tournament's spec with a path fits)."""
FALLBACK = "random"
"""The agent that takes over a seat whose agent failed."""
NOT_ON_THE_WEB = ("human",)
"""Registered agents the page never offers: ``human`` reads the server's terminal."""
log = logging.getLogger("grove_env.web")
T = TypeVar("T", bound="Table")


class AgentMenu:
    """The agent specs the page may ask for, per table (``rules``, players)."""

    def __init__(self, extra: Sequence[str] = ()) -> None:
        specs = []
        zoo = [f"zoo:{table}" for table in zoo_shipped()]  # the policies the wheel ships
        for spec in [n for n in agent_names() if n not in NOT_ON_THE_WEB] + zoo + list(extra):
            try:
                make_agent(spec, seed=0)
            except PluginError as err:  # another package's agent: one line, the rest play
                if spec in extra:
                    raise ValueError(f"--agent {spec}: {describe(err)}") from None
                log.warning("%s; not offered", describe(err))
                continue
            except (ValueError, OSError) as err:  # needs an argument, or a file that fails
                if spec in extra:
                    raise ValueError(f"--agent {spec}: {describe(err)}") from None
                continue
            specs.append(spec)
        self.specs = specs
        self.tables = {
            rules: {n: self.playing(rules, n) for n in r.player_counts}
            for rules, r in RULE_SETS.items()
        }

    def playing(self, rules: str, n: int) -> list[str]:
        """The specs that can play a table of ``rules`` with ``n`` players."""
        return [s for s in self.specs if table_refusal(s, rules, n) is None]

    def check(self, spec: object, rules: str, n: int) -> str:
        """``spec`` if the page may seat it at this table; else a 400 saying why."""
        choice(spec, self.specs, "each agent")
        assert isinstance(spec, str)
        why = table_refusal(spec, rules, n)
        if why is not None:
            raise RequestError(why)
        return spec


@dataclass
class Table:
    """One game held by the server: agents at the seats in ``agents``, a person elsewhere."""

    rules: str
    num_players: int
    labels: list[str]
    agents: dict[int, Agent]
    seed: int
    kind = "table"
    game: Game = field(init=False)
    encoder: ObservationEncoder = field(init=False)
    lock: threading.Lock = field(init=False, default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.game = Game(self.rules, self.num_players, seed=self.seed)
        self.encoder = ObservationEncoder(self.game.rules, self.num_players)

    @classmethod
    def create(cls: type[T], request: dict[str, Any], menu: AgentMenu) -> T:
        """A table from a request ``{rules, players, agents, seed}`` (and ``seat`` to play)."""
        rules = choice(request.get("rules", "classic"), sorted(RULE_SETS), "rules")
        n = choice(request.get("players", 4), get_rules(rules).player_counts, f"players ({rules})")
        seat = integer(request.get("seat", 0), "seat", 0, n - 1) if cls.kind == "play" else None
        seats = [s for s in range(n) if s != seat]
        specs = request.get("agents")
        if not isinstance(specs, list) or len(specs) not in (1, len(seats)):
            raise RequestError(
                f"agents must be a list of 1 or {len(seats)} agent specs, got {shown(specs)}"
            )
        specs = [menu.check(s, rules, n) for s in specs]
        specs = specs * len(seats) if len(specs) == 1 else specs
        raw = request.get("seed")
        seed = secrets.randbelow(MAX_SEED) if raw is None else integer(raw, "seed", 0, MAX_SEED)
        agents = {s: make_agent(spec, seed=seed + s) for s, spec in zip(seats, specs)}
        labels = [specs[seats.index(s)] if s in agents else "you" for s in range(n)]
        return cls(rules, n, labels, agents, seed)

    @property
    def truncated(self) -> bool:
        return not self.game.terminal and len(self.game.history) >= MAX_ROUNDS

    @property
    def finished(self) -> bool:
        return self.game.terminal or self.truncated

    def agent_to_act(self) -> bool:
        return not self.finished and self.game.current_player in self.agents

    def agent_step(self) -> str | None:
        """One move of the agent to act; what went wrong if it failed (its stand-in moved)."""
        seat = self.game.current_player
        mask = np.array(action_mask(self.game, seat), dtype=np.int8)
        observation = {"observation": self.encoder.encode(self.game, seat), "action_mask": mask}
        try:
            action = int(self.agents[seat].act(observation))
            if not (0 <= action < NUM_ACTIONS and mask[action]):
                raise ValueError(f"it chose the illegal action {action}")
        except Exception as err:  # an agent is any code: its failure must not stop the game
            failure = one_line(
                f"the agent at P{seat} ({self.labels[seat]}) failed: {describe(err)}"
            )
            log.warning("grove-web: %s; %s plays that seat from now on", failure, FALLBACK)
            self.agents[seat] = make_agent(FALLBACK, seed=self.seed + seat)
            self.labels[seat] = f"{FALLBACK} (for {self.labels[seat]})"
            action = int(self.agents[seat].act(observation))
            self.game.apply_action(action)
            return failure
        self.game.apply_action(action)
        return None

    def run_agents(self) -> None:
        """Agents move until the person is to act or the game is over; 409 if one failed."""
        failures = []
        while self.agent_to_act():
            failure = self.agent_step()
            if failure is not None:
                failures.append(failure)
        if failures:
            raise RequestError(
                f"{failures[0]}; {FALLBACK} plays that seat from now on and the game goes on",
                status=409,
            )

    def view(self, seat: int | None) -> View:
        """Seat ``seat``'s view, or the whole table when ``None``."""
        if seat is None:
            return table_view(self.game, self.labels, self.truncated)
        return seat_view(self.game, seat, self.labels, self.encoder, self.truncated)


class PlayTable(Table):
    """A person's game: one person, agents at the other seats."""

    kind = "play"

    @property
    def person(self) -> int:
        return next(s for s in range(self.num_players) if s not in self.agents)

    def act(self, action: object) -> None:
        """The person plays ``action``; 400 if it is not theirs to play now."""
        seat = self.person
        if self.finished:
            raise RequestError("the game is over")
        if self.game.current_player != seat:
            raise RequestError(f"it is not your turn: P{self.game.current_player} is to act")
        action = integer(action, "action", 0, NUM_ACTIONS - 1)
        if not self.game.is_legal(action):
            legal = ", ".join(f"{a} ({move_words(a)})" for a in self.game.legal_actions())
            raise RequestError(f"action {action} is illegal now; legal actions: {legal}")
        self.game.apply_action(action)

    def record(self) -> dict[str, Any]:
        """The whole game's record, once it is over: before that its finished rounds'
        deals would show the person tiles their seat never saw."""
        if not self.finished:
            raise RequestError("the record of a game you play is ready once the game is over")
        return {**record_game(self.game, self.labels), "seed": self.seed}


class WatchTable(Table):
    """A game of agents only, shown whole to whoever watches it."""

    kind = "watch"

    def record(self) -> dict[str, Any]:
        """The finished rounds as a game record; the seed only once the game is over."""
        data = record_game(self.game, self.labels)
        if self.finished:
            data["seed"] = self.seed
        return data


RECORD_KEYS = ("format", "version", "rules", "num_players", "players", "rounds", "final", "seed")
"""Top-level keys a posted record may have (``seed``: a watched game's record)."""


class Replay:
    """A recorded game, checked against the rules when it is loaded; it keeps only the
    deals, the moves and the labels (not the posted data)."""

    kind = "replay"
    finished = True

    def __init__(self, data: dict[str, Any]) -> None:
        try:
            record = load_record(data)
            final = replay(record)
        except ValueError as err:
            raise RequestError(describe(err)) from None
        n = record.num_players
        labels = list(record.players or [f"P{s}" for s in range(n)])
        if len(labels) != n:
            raise RequestError(f"not a game record: 'players' names {len(labels)} of {n} seats")
        long = [k for k, label in enumerate(labels) if len(label) > MAX_LABEL]
        if long:
            raise RequestError(f"player label {long[0]} is over {MAX_LABEL} characters")
        self.rules, self.num_players, self.labels = record.rules, n, [str(x) for x in labels]
        self.deals = [tuple(d) for d in record.deals]
        self.steps = [(int(s), int(a)) for s, a in record.steps]
        self.terminal = final.terminal
        self.lock = threading.Lock()

    def game_at(self, step: int) -> Game:
        """The game after the first ``step`` moves (checked against the rules at load)."""
        game = Game(self.rules, self.num_players, deals=self.deals)
        for _, action in self.steps[:step]:
            game.apply_action(action)
        return game

    def view(self, step: int, seat: int | None) -> View:
        """The table after ``step`` moves, from ``seat`` (``None``: the whole table)."""
        game, labels = self.game_at(step), self.labels
        view = table_view(game, labels) if seat is None else seat_view(game, seat, labels)
        view["step"], view["steps"] = step, len(self.steps)
        return view
