"""Round-robin-seated tournaments between agents, with win shares and OpenSkill ratings.

Command line (also installed as ``grove-tournament``)::

    python -m grove_env.agents.tournament --rules classic --players 4 \\
        --agents heuristic,random,random,random --games 2000 --seed 0 --workers 2 \\
        --json out.json --plot out.png

Each entry of ``--agents`` is one *entry*: one table position per game. A spec that
appears more than once gives entries labelled ``random#1``, ``random#2``, ...

Seating: games come in blocks of ``num_players`` rotations; in game ``g`` entry ``e``
sits at seat ``(e + g) % num_players``, so every entry plays every seat equally
often. A game count that is not a multiple of ``num_players`` is rounded **up** to
one (the result records both numbers and the command line says so).

Determinism: game ``g`` is seeded from ``(seed, g)`` alone (the deal through the
environment's seed, each entry's agent through its own derived seed), and the
ratings are updated in game order, so the result is the same for any ``workers``.
Agents named by a spec string, or built by a factory, are built afresh for every
game with that game's seed. An already-built agent object is reused: ``reset()``
before each game and, if it has one, ``seed(int)``; it must be picklable when
``workers > 1``, and only gives worker-independent results if it is deterministic
or seedable that way.

Games are played through :class:`grove_env.grove_v0.raw_env`: every agent sees only
its own observation. A game cut off by ``max_rounds`` is *truncated*: by default it
counts as a draw for every entry (all rank first, the win point is split, the
environment pays no reward); ``truncated="standings"`` ranks it by the standings the
environment reports at the cut-off instead. Either way the count is reported.

Statistics (see :mod:`grove_env.agents.ratings`): win share with a Wilson 95% interval, mean
final score (the rule set's count, fewer is better), mean reward, mean rank, and
OpenSkill Plackett-Luce ratings. Each game is played by
:func:`grove_env.agents.match.play_game`; records, statistics and the report are in
:mod:`grove_env.agents.tournament_report`, the plot in :mod:`grove_env.agents.tournament_plot`.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grove_env.grove_v0 import raw_env
from grove_env.record import record_game
from grove_env.rules import get_rules

from .base import Agent, make_agent, parse_spec
from .match import IllegalActionError, game_seeds, play_game, seat_of
from .tournament_report import EntryStats, GameRecord, TournamentResult, summarise

# re-exported: the tournament's public names, wherever they are defined
__all__ = ["EntryStats", "GameRecord", "TournamentError", "TournamentResult", "entry_labels"]
__all__ += ["game_seeds", "main", "run_tournament", "seat_of", "summarise"]

EntryLike = str | Agent | Callable[[int], Agent]
TRUNCATED_MODES = ("draw", "standings")


class TournamentError(RuntimeError):
    """An agent misbehaved during a game (e.g. played a masked action)."""


# --------------------------------------------------------------------------- playing
def entry_labels(names: Sequence[str]) -> list[str]:
    """Labels for entries: a name used more than once gets ``#1``, ``#2``, ...

    >>> entry_labels(["heuristic", "random", "random", "random"])
    ['heuristic', 'random#1', 'random#2', 'random#3']
    """
    seen: dict[str, int] = {}
    labels = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        labels.append(f"{name}#{seen[name]}" if names.count(name) > 1 else name)
    return labels


def _is_agent(obj: Any) -> bool:
    return callable(getattr(obj, "act", None))


def _agent_for_game(entry: EntryLike, agent_seed: int) -> Agent:
    if isinstance(entry, str):
        agent = make_agent(entry, seed=agent_seed)
    elif _is_agent(entry):
        agent = entry  # type: ignore[assignment]
        reseed = getattr(agent, "seed", None)
        if callable(reseed):
            reseed(agent_seed)
    else:
        agent = entry(agent_seed)  # type: ignore[operator]
    agent.reset()
    return agent


@dataclass(frozen=True)
class _Setup:
    entries: tuple[Any, ...]
    rules: str
    num_players: int
    seed: int
    max_rounds: int
    truncated_mode: str
    record_dir: str | None = None  # write each game's record here as game_NNNNN.json
    labels: tuple[str, ...] = ()


def make_env(setup: _Setup) -> raw_env:
    """The (unwrapped) environment a tournament's games are played in."""
    return raw_env(num_players=setup.num_players, rules=setup.rules, max_rounds=setup.max_rounds)


def play_tournament_game(setup: _Setup, index: int, env: raw_env | None = None) -> GameRecord:
    """Play game ``index`` of a tournament (in ``env`` if given, it is reset) and record it."""
    n = setup.num_players
    env_seed, agent_seeds = game_seeds(setup.seed, index, n)
    seats = [seat_of(e, index, n) for e in range(n)]
    by_seat: list[Agent] = [None] * n  # type: ignore[list-item]
    for e, entry in enumerate(setup.entries):
        by_seat[seats[e]] = _agent_for_game(entry, agent_seeds[e])
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


_WORKER_SETUP: _Setup | None = None


def _init_worker(setup: _Setup) -> None:
    global _WORKER_SETUP
    _WORKER_SETUP = setup


def _play_slice(bounds: tuple[int, int]) -> list[GameRecord]:
    assert _WORKER_SETUP is not None, "worker not initialised"
    env = make_env(_WORKER_SETUP)
    return [play_tournament_game(_WORKER_SETUP, g, env) for g in range(*bounds)]


def _slices(games: int, workers: int) -> list[tuple[int, int]]:
    size = max(1, min(250, math.ceil(games / (workers * 8))))
    return [(s, min(games, s + size)) for s in range(0, games, size)]


def _describe(entry: EntryLike, seed: int) -> tuple[str, str]:
    """(name for the label, spec for the report) of an entry; builds it once to check."""
    if isinstance(entry, str):
        name, _ = parse_spec(entry)
        try:
            make_agent(entry, seed=seed)
        except ImportError as exc:
            raise ValueError(f"agent {name!r} is not available here: {exc}") from None
        return entry.strip(), entry.strip()
    if _is_agent(entry):
        agent = entry  # type: ignore[assignment]
    elif callable(entry):
        agent = entry(seed)
    else:
        raise ValueError(f"an entry is a spec string, an agent or a factory, got {entry!r}")
    name = str(getattr(agent, "name", type(agent).__name__))
    return name, f"<{name}>"


def run_tournament(
    agent_specs: Sequence[EntryLike],
    rules: str = "classic",
    num_players: int = 4,
    games: int = 2000,
    seed: int = 0,
    workers: int = 1,
    max_rounds: int = 100,
    progress: bool = False,
    truncated: str = "draw",
    record_dir: str | None = None,
) -> TournamentResult:
    """Play ``games`` games (rounded up to a multiple of ``num_players``) and summarise them.

    ``agent_specs`` has one entry per table position: a spec string (``"random"``),
    an agent object, or a factory ``f(seed) -> Agent``. Raises ``ValueError`` for a bad
    configuration and :class:`TournamentError` if an agent plays a masked action.
    With ``record_dir``, every game's record (:mod:`grove_env.record`) is written there.
    """
    rule_set = get_rules(rules)
    rule_set.check_players(num_players)
    if len(agent_specs) != num_players:
        raise ValueError(
            f"{num_players} players need {num_players} agents, got {len(agent_specs)}: "
            f"{list(agent_specs)}"
        )
    checks = (("games", games, 1), ("workers", workers, 1), ("seed", seed, 0))
    for name, value, low in checks + (("max_rounds", max_rounds, 1),):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
    if truncated not in TRUNCATED_MODES:
        raise ValueError(f"truncated must be one of {TRUNCATED_MODES}, got {truncated!r}")
    described = [_describe(entry, seed) for entry in agent_specs]
    labels = entry_labels([d[0] for d in described])
    total = math.ceil(games / num_players) * num_players
    entries = tuple(e.strip() if isinstance(e, str) else e for e in agent_specs)
    if record_dir is not None:
        try:
            Path(record_dir).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ValueError(f"cannot write game records to {record_dir!r}: {exc}") from None
    setup = _Setup(
        entries, rule_set.name, num_players, seed, max_rounds, truncated, record_dir, tuple(labels)
    )

    records: list[GameRecord] = []
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=total, desc="games", unit="game", file=sys.stderr, disable=not _tty())
    workers = min(workers, total)
    try:
        if workers == 1:
            env = make_env(setup)
            for g in range(total):
                records.append(play_tournament_game(setup, g, env))
                if bar is not None:
                    bar.update(1)
        else:
            import multiprocessing as mp

            ctx = mp.get_context("spawn")
            with ctx.Pool(workers, initializer=_init_worker, initargs=(setup,)) as pool:
                for chunk in pool.imap_unordered(_play_slice, _slices(total, workers)):
                    records.extend(chunk)
                    if bar is not None:
                        bar.update(len(chunk))
    finally:
        if bar is not None:
            bar.close()
    return summarise(
        records,
        labels,
        [d[1] for d in described],
        rules=rule_set.name,
        seed=seed,
        max_rounds=max_rounds,
        truncated_mode=truncated,
        games_requested=games,
    )


def _tty() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


# --------------------------------------------------------------------------- CLI
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="grove-tournament",
        description="Play In a Grove games between agents with rotating seats; report win "
        "shares (Wilson 95%% intervals) and OpenSkill ratings.",
    )
    p.add_argument("--rules", default="classic", help="classic (default) or revised")
    p.add_argument("--players", type=int, default=4, help="table size (default 4)")
    p.add_argument(
        "--agents",
        required=True,
        help="comma-separated specs, one per table position, e.g. heuristic,random,random,random",
    )
    p.add_argument(
        "--games",
        type=int,
        default=2000,
        help="games to play, rounded up to a multiple of --players (default 2000)",
    )
    p.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--max-rounds", type=int, default=100, help="round limit per game")
    p.add_argument(
        "--truncated",
        choices=TRUNCATED_MODES,
        default="draw",
        help="how a game cut off by --max-rounds ranks (default: a draw)",
    )
    p.add_argument("--json", metavar="PATH", help="write the summary as JSON")
    p.add_argument("--plot", metavar="PATH", help="write a win-share bar chart (PNG)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--record", metavar="DIR", help="write every game's JSON record to DIR")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse has printed its message
        return int(exc.code or 0)
    specs = [s.strip() for s in args.agents.split(",")]
    try:
        result = run_tournament(
            specs,
            rules=args.rules,
            num_players=args.players,
            games=args.games,
            seed=args.seed,
            workers=args.workers,
            max_rounds=args.max_rounds,
            progress=not args.no_progress,
            truncated=args.truncated,
            record_dir=args.record,
        )
    except ValueError as exc:
        print(f"grove-tournament: error: {exc}", file=sys.stderr)
        return 2
    except TournamentError as exc:
        print(f"grove-tournament: an agent failed: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("grove-tournament: interrupted", file=sys.stderr)
        return 130
    if result.games != result.games_requested:
        print(
            f"note: {result.games_requested} games rounded up to {result.games}, "
            f"a multiple of {result.num_players} players, so every entry plays every seat "
            "equally often",
            file=sys.stderr,
        )
    print(result.table())
    if args.json:
        result.save_json(args.json)
        print(f"wrote {args.json}")
    if args.plot:
        result.plot(args.plot)
        print(f"wrote {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
