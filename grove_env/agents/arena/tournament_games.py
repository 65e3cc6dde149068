"""The games of a tournament: one game's seating, agents and record, here or in a worker.

:func:`play_tournament_games` plays games of a tournament from its :class:`Setup`
alone (seats by :func:`~grove_env.agents.arena.match.seat_of`, seeds by
:func:`~grove_env.agents.arena.match.game_seeds`), so a game is the same whichever process
plays it; :func:`play_slice` is what a worker process runs, after
:func:`limit_threads`.
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grove_env.grove_v1 import raw_env
from grove_env.record import record_game

from ..base import Agent, make_agent
from .match import GameResult, IllegalActionError, game_seeds, play_games, seat_of
from .tournament_report import TournamentGame

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


def shared_agent(entry: EntryLike, seed: int) -> Agent | None:
    """The one agent object that may sit at every game of a batch for this entry, or
    ``None`` if each game needs its own (a seeded or stateful agent, a factory)."""
    if isinstance(entry, str):
        agent = make_agent(entry, seed=seed)
    elif is_agent(entry):
        agent = entry  # type: ignore[assignment]
    else:
        return None
    return agent if getattr(agent, "deterministic", False) else None


def shared_agents(entries: Sequence[EntryLike], seed: int) -> list[Agent | None]:
    """:func:`shared_agent` of every entry; entries with the same spec share one object,
    so its decisions at all their seats go into the same batches."""
    made: dict[str, Agent | None] = {}
    shared = []
    for entry in entries:
        if isinstance(entry, str):
            key = entry.strip()
            if key not in made:
                made[key] = shared_agent(key, seed)
            shared.append(made[key])
        else:
            shared.append(shared_agent(entry, seed))
    return shared


def play_tournament_games(setup: Setup, indices: Sequence[int]) -> list[TournamentGame]:
    """Play games ``indices`` of a tournament together and record them.

    An entry whose agent is deterministic (decides from the observation alone, the same
    way each time) is one object at every game, and at every seat of entries with the
    same spec, so it decides them in batches; every other entry gets a fresh, seeded
    agent per game. The games are the same as when played one by one. An agent object
    that is not deterministic is reseeded for each game, so its games are played one
    after another.
    """
    n = setup.num_players
    shared = shared_agents(setup.entries, setup.seed)
    one_by_one = any(a is None and is_agent(e) for a, e in zip(shared, setup.entries))
    batches = [[g] for g in indices] if one_by_one else [list(indices)]
    records = []
    for batch in batches:
        envs, tables, seeds, seatings = [], [], [], []
        for index in batch:
            env_seed, agent_seeds = game_seeds(setup.seed, index, n)
            seats = [seat_of(e, index, n) for e in range(n)]
            by_seat: list[Agent] = [None] * n  # type: ignore[list-item]
            for e, entry in enumerate(setup.entries):
                agent = shared[e]
                if agent is None:
                    agent = agent_for_game(entry, agent_seeds[e])
                by_seat[seats[e]] = agent
            envs.append(make_env(setup))
            tables.append(by_seat)
            seeds.append(env_seed)
            seatings.append(seats)
        try:
            results = play_games(envs, tables, seeds)
        except IllegalActionError as exc:
            raise TournamentError(f"games {batch[0]}-{batch[-1]}: {exc}") from None
        for index, env, seats, result in zip(batch, envs, seatings, results):
            records.append(game_record(setup, index, env, seats, result))
    return records


def game_record(
    setup: Setup, index: int, env: raw_env, seats: list[int], result: GameResult
) -> TournamentGame:
    """The tournament's record of game ``index`` (and its JSON record, if asked for)."""
    n = setup.num_players
    if setup.record_dir is not None and env.game is not None:
        players = [setup.labels[seats.index(s)] for s in range(n)]
        with open(Path(setup.record_dir, f"game_{index:05d}.json"), "w") as out:
            json.dump(record_game(env.game, players), out)
    standings = result.standings
    if result.truncated and setup.truncated_mode == "draw":
        standings = (1,) * n
    return TournamentGame(
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


def thread_share(workers: int) -> int:
    """Each of ``workers`` processes' share of this machine's cores (at least one)."""
    return max(1, (os.cpu_count() or 1) // workers)


def limit_threads(threads: int) -> None:
    """A worker's initialiser: at most ``threads`` OpenMP threads in this process.

    Torch starts one thread per core in every process, so two workers on two cores
    would run four and spin against each other (a policy's gauntlet took four times
    as long). Torch reads ``OMP_NUM_THREADS`` when it is imported; where the worker has
    imported it already, its count is set directly. A count the user exported is kept.
    """
    if "OMP_NUM_THREADS" in os.environ:
        return
    os.environ["OMP_NUM_THREADS"] = str(threads)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(threads)


def play_slice(task: tuple[Setup, tuple[int, int]]) -> list[TournamentGame]:
    """Games ``bounds[0] .. bounds[1]-1`` of the tournament ``setup``, in a worker process
    (``task`` is ``(setup, bounds)``, so one pool of workers serves several tournaments)."""
    setup, bounds = task
    return play_tournament_games(setup, range(*bounds))


def slices(games: int, workers: int) -> list[tuple[int, int]]:
    """Game ranges small enough to spread over ``workers`` and show progress."""
    size = max(1, min(250, math.ceil(games / (workers * 4))))
    return [(s, min(games, s + size)) for s in range(0, games, size)]
