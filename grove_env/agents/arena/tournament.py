"""Round-robin-seated tournaments between agents, with win shares and OpenSkill ratings.

Command line (:mod:`grove_env.agents.cli.tournament`, installed as ``grove-tournament``)::

    python -m grove_env.agents.cli.tournament --rules classic --players 4 \\
        --agents heuristic,random,random,random --games 2000 --seed 0 --workers 2 \\
        --json out.json --plot out.png

Each ``--agent SPEC`` (repeated, one per table position) or each spec of the shorter
``--agents a,b,c`` (specs without options: a spec such as ``heuristic:noise=0.2,aim=1``
has commas of its own) is one *entry*: one table position per game. A spec that
appears more than once gives entries labelled ``random#1``, ``random#2``, ... Every input
and output path is checked before the first game (:mod:`grove_env.agents.cli.command_line`):
a mistake is one line on stderr, exit 2 for a usage error and 1 for a failure.

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

Games are played through :class:`grove_env.grove_v1.raw_env`: every agent sees only
its own observation. A game cut off by ``max_rounds`` is *truncated*: by default it
counts as a draw for every entry (all rank first, the win point is split, the
environment pays no reward); ``truncated="standings"`` ranks it by the standings the
environment reports at the cut-off instead. Either way the count is reported.

Statistics (see :mod:`grove_env.agents.arena.ratings`): win share with a Wilson 95% interval, mean
final score (the rule set's count, fewer is better), mean reward, mean rank, and
OpenSkill Plackett-Luce ratings. Each game is played by
:func:`grove_env.agents.arena.match.play_game`, seated and recorded by
:mod:`grove_env.agents.arena.tournament_games`; records, statistics and the report are in
:mod:`grove_env.agents.arena.tournament_report`, the plot in
:mod:`grove_env.agents.arena.tournament_plot`.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from multiprocessing.pool import Pool
from pathlib import Path
from typing import Any

from grove_env.rules import RuleSet, get_rules

from ..base import make_agent, parse_spec
from .match import game_seeds, seat_of
from .tournament_games import (
    EntryLike,
    Setup,
    TournamentError,
    is_agent,
    limit_threads,
    play_slice,
    play_tournament_games,
    slices,
    thread_share,
)
from .tournament_report import EntryStats, TournamentGame, TournamentResult, summarise

# re-exported: the tournament's public names, wherever they are defined
__all__ = ["EntryStats", "TournamentGame", "TournamentError", "TournamentResult", "entry_labels"]
__all__ += ["game_seeds", "run_tournament", "seat_of", "summarise"]

TRUNCATED_MODES = ("draw", "standings")


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


def _describe(entry: EntryLike, seed: int) -> tuple[str, str]:
    """(name for the label, spec for the report) of an entry; builds it once to check."""
    if isinstance(entry, str):
        name, _ = parse_spec(entry)
        try:
            make_agent(entry, seed=seed)
        except ImportError as exc:
            raise ValueError(f"agent {name!r} is not available here: {exc}") from None
        return entry.strip(), entry.strip()
    if is_agent(entry):
        agent = entry  # type: ignore[assignment]
    elif callable(entry):
        agent = entry(seed)
    else:
        raise ValueError(f"an entry is a spec string, an agent or a factory, got {entry!r}")
    name = str(getattr(agent, "name", type(agent).__name__))
    return name, f"<{name}>"


def check_setup(
    agent_specs: Sequence[Any],
    rules: str,
    num_players: int,
    games: int,
    seed: int,
    workers: int,
    max_rounds: int,
) -> RuleSet:
    """The rule set, once the table and the numbers fit it (a ``ValueError`` if not)."""
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
    return rule_set


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
    pool: Pool | None = None,
) -> TournamentResult:
    """Play ``games`` games (rounded up to a multiple of ``num_players``) and summarise them.

    ``agent_specs`` has one entry per table position: a spec string (``"random"``),
    an agent object, or a factory ``f(seed) -> Agent``. Raises ``ValueError`` for a bad
    configuration and :class:`TournamentError` if an agent plays a masked action.
    With ``record_dir``, every game's record (:mod:`grove_env.record`) is written there.
    ``pool`` (from :func:`worker_pool`) plays the games in workers already started,
    for a caller that plays several tournaments; without it ``workers > 1`` starts
    its own. The games are the same either way.
    """
    rule_set = check_setup(agent_specs, rules, num_players, games, seed, workers, max_rounds)
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
    setup = Setup(
        entries, rule_set.name, num_players, seed, max_rounds, truncated, record_dir, tuple(labels)
    )

    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=total, desc="games", unit="game", file=sys.stderr, disable=not _tty())
    try:
        records = _play_games(setup, total, min(workers, total), pool, bar)
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


def _play_games(
    setup: Setup, total: int, workers: int, pool: Pool | None, bar: Any
) -> list[TournamentGame]:
    """Games ``0 .. total - 1`` of ``setup``: here, or in ``pool`` (or a pool of ``workers``
    started for them); ``bar`` (a tqdm bar or None) counts them as they finish."""
    records: list[TournamentGame] = []
    if workers == 1 and pool is None:
        for lo, hi in slices(total, 1):
            records.extend(play_tournament_games(setup, range(lo, hi)))
            if bar is not None:
                bar.update(hi - lo)
        return records
    with ExitStack() as stack:
        if pool is None:
            pool = stack.enter_context(worker_pool(workers))
        tasks = [(setup, bounds) for bounds in slices(total, workers)]
        for chunk in pool.imap_unordered(play_slice, tasks):
            records.extend(chunk)
            if bar is not None:
                bar.update(len(chunk))
    return records


@contextmanager
def worker_pool(workers: int) -> Iterator[Pool]:
    """``workers`` spawned processes that :func:`run_tournament` can share (``pool=``).

    Starting a worker costs seconds (it imports the package, and torch for a policy),
    so several tournaments in a row, such as the cells of a gauntlet, play in one pool.
    Each worker keeps to its share of the cores (:func:`limit_threads`).
    """
    import multiprocessing as mp

    context = mp.get_context("spawn")
    initargs = (thread_share(workers),)
    with context.Pool(workers, initializer=limit_threads, initargs=initargs) as pool:
        yield pool


def _tty() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False
