"""The games of a tournament: one game's seating, agents and record, here or in a worker.

:func:`play_tournament_game` plays game ``g`` of a tournament from its :class:`Setup`
alone (seats by :func:`~grove_env.agents.match.seat_of`, seeds by
:func:`~grove_env.agents.match.game_seeds`), so a game is the same whichever process
plays it; :func:`init_worker` and :func:`play_slice` are what worker processes run.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grove_env.grove_v1 import raw_env
from grove_env.record import record_game

from .base import Agent, make_agent
from .match import IllegalActionError, game_seeds, play_game, seat_of
from .tournament_report import GameRecord

EntryLike = str | Agent | Callable[[int], Agent]


class TournamentError(RuntimeError):
    """An agent misbehaved during a game (e.g. played a masked action)."""


def is_agent(obj: Any) -> bool:
    """Whether an entry is an agent object (it has ``act``), not a spec or a factory."""
    return callable(getattr(obj, "act", None))


def agent_for_game(entry: EntryLike, agent_seed: int) -> Agent:
    """The agent an entry puts at the table for one game, seeded and reset."""
    if isinstance(entry, str):
        agent = make_agent(entry, seed=agent_seed)
    elif is_agent(entry):
        agent = entry  # type: ignore[assignment]
        reseed = getattr(agent, "seed", None)
        if callable(reseed):
            reseed(agent_seed)
    else:
        agent = entry(agent_seed)  # type: ignore[operator]
    agent.reset()
    return agent


@dataclass(frozen=True)
class Setup:
    """What every game of one tournament shares (sent once to each worker)."""

    entries: tuple[Any, ...]
    rules: str
    num_players: int
    seed: int
    max_rounds: int
    truncated_mode: str
    record_dir: str | None = None  # write each game's record here as game_NNNNN.json
    labels: tuple[str, ...] = ()


def make_env(setup: Setup) -> raw_env:
    """The (unwrapped) environment a tournament's games are played in."""
    return raw_env(num_players=setup.num_players, rules=setup.rules, max_rounds=setup.max_rounds)


def play_tournament_game(setup: Setup, index: int, env: raw_env | None = None) -> GameRecord:
    """Play game ``index`` of a tournament (in ``env`` if given, it is reset) and record it."""
    n = setup.num_players
    env_seed, agent_seeds = game_seeds(setup.seed, index, n)
    seats = [seat_of(e, index, n) for e in range(n)]
    by_seat: list[Agent] = [None] * n  # type: ignore[list-item]
    for e, entry in enumerate(setup.entries):
        by_seat[seats[e]] = agent_for_game(entry, agent_seeds[e])
    if env is None:
        env = make_env(setup)
    try:
        result = play_game(env, by_seat, env_seed)
    except IllegalActionError as exc:
        raise TournamentError(f"game {index}: {exc}") from None
    if setup.record_dir is not None and env.game is not None:
        players = [setup.labels[seats.index(s)] for s in range(n)]
        with open(Path(setup.record_dir, f"game_{index:05d}.json"), "w") as out:
            json.dump(record_game(env.game, players), out)
    standings = result.standings
    if result.truncated and setup.truncated_mode == "draw":
        standings = (1,) * n
    return GameRecord(
        index=index,
        seats=tuple(seats),
        ranks=tuple(standings[s] for s in seats),
        scores=tuple(result.scores[s] for s in seats),
        rewards=tuple(result.rewards[s] for s in seats),
        truncated=result.truncated,
        # game.round, as before this loop was shared: a truncated game counts the round it
        # had begun (one more than it played); kept so that the tables stay the same
        rounds=env.game.round if env.game is not None else 0,
    )


WORKER_SETUP: Setup | None = None


def init_worker(setup: Setup) -> None:
    """A worker process's initialiser: keep the tournament's setup."""
    global WORKER_SETUP
    WORKER_SETUP = setup


def play_slice(bounds: tuple[int, int]) -> list[GameRecord]:
    """Games ``bounds[0] .. bounds[1]-1``, in a worker process."""
    assert WORKER_SETUP is not None, "worker not initialised"
    env = make_env(WORKER_SETUP)
    return [play_tournament_game(WORKER_SETUP, g, env) for g in range(*bounds)]


def slices(games: int, workers: int) -> list[tuple[int, int]]:
    """Game ranges small enough to spread over ``workers`` and show progress."""
    size = max(1, min(250, math.ceil(games / (workers * 8))))
    return [(s, min(games, s + size)) for s in range(0, games, size)]
