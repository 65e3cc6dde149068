"""The league: every shipped agent against the others, rated by one Bradley–Terry fit.

Command line (:mod:`grove_env.agents.cli.league`, installed as ``grove-league``)::

    grove-league --rules classic --players 4 --games 2000 --results league.json

The **pool** (:func:`league_pool`) is the shipped agents that sit at the table
(``random``, ``greedy``, the playing styles, ``heuristic``, ``heuristic-trust``, ``cfr``
where its solution ships, ``zoo:<rules>-<n>p``) and any specs added (``--agent``, a
plugin's agent among them). Games come in **blocks**: block ``b`` seats one line-up of
``N`` distinct pool agents (:func:`block_lineup`: every ``N``-subset of the pool once per
pass, in a seeded order) and plays ``N`` games, the seats rotated so each plays every
seat once. Its games are seeded from ``(seed, b)`` alone.

Every game enters :func:`~grove_env.agents.arena.bradley_terry.bootstrap_fit` as its
pairwise comparisons by final rank; ``random`` is the anchor (rating 0). A truncated
game is a draw for every seat, as in a tournament.

**Resuming**: the games are kept in a results file (:class:`LeagueFile`, JSON), written
after every chunk of blocks. Run the command again with a larger ``--games`` and it
plays only the blocks that are missing, then refits on every game: more games, narrower
intervals. A file of another table, seed or pool is refused, in one line.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from grove_env.grove_v1 import raw_env

from ..base import make_agent, table_refusal
from ..scripted.styles import STYLE_NAMES
from .bradley_terry import ELO, Fit, bootstrap_fit
from .tournament import worker_pool
from .tournament_games import Setup, play_slice

ANCHOR = "random"
FORMAT = "grove-league/1"
SHIPPED: tuple[str, ...] = ("random", "greedy", *STYLE_NAMES, "heuristic", "heuristic-trust")
"""The shipped agents every table seats; ``cfr`` and the zoo join where they play."""


def league_pool(
    rules: str, num_players: int, extra: Sequence[str] = ()
) -> tuple[list[str], list[str]]:
    """The pool's specs at this table, and one note for each agent left out (a table
    check that refuses it, a file or plugin that does not load)."""
    pool: list[str] = []
    notes: list[str] = []
    for spec in [*SHIPPED, "cfr", f"zoo:{rules}-{num_players}p", *extra]:
        spec = spec.strip()
        if spec in pool:
            continue
        try:
            refusal = table_refusal(spec, rules, num_players)
            if refusal is None:
                first_move(spec, rules, num_players)
        except Exception as exc:  # a plugin or a model file fails in its own ways
            refusal = f"{spec}: {type(exc).__name__}: {exc}".splitlines()[0]
        if refusal is None:
            pool.append(spec)
        else:
            notes.append(f"left out: {refusal}")
    if ANCHOR not in pool:
        raise ValueError(f"the league's anchor {ANCHOR!r} is not in the pool")
    return pool, notes


def first_move(spec: str, rules: str, num_players: int) -> None:
    """Build the agent ``spec`` names and ask it for the first move of a game: an agent
    that fails there (a broken plugin) fails before the league starts."""
    env = raw_env(num_players=num_players, rules=rules)
    env.reset(seed=0)
    agent = make_agent(spec, seed=0)
    agent.reset()
    agent.act(env.last()[0])


def block_lineup(pool_size: int, num_players: int, block: int, seed: int) -> tuple[int, ...]:
    """The pool indices block ``block`` seats: each pass over the blocks takes every
    ``num_players``-subset of the pool once, in an order shuffled by ``(seed, pass)``.

    >>> sorted({block_lineup(4, 2, b, seed=0) for b in range(6)}) == sorted(
    ...     itertools.combinations(range(4), 2))
    True
    """
    combos = list(itertools.combinations(range(pool_size), num_players))
    rounds, at = divmod(block, len(combos))
    order = np.random.default_rng([seed, rounds]).permutation(len(combos))
    return combos[int(order[at])]


def block_seed(seed: int, block: int) -> int:
    """The seed of block ``block``'s games (its deals and its agents)."""
    return int(np.random.SeedSequence([seed, block]).generate_state(1, np.uint32)[0])


@dataclass
class LeagueFile:
    """What a league keeps between runs: its table, seed, pool and every game played.

    Each game is ``{"block": b, "entries": [pool index, ...], "ranks": [rank, ...]}``,
    the ranks in the order of ``entries`` (1 is best, ties share).
    """

    rules: str
    num_players: int
    seed: int
    pool: list[str]
    max_rounds: int = 100
    games: list[dict[str, Any]] = field(default_factory=list)

    @property
    def blocks(self) -> int:
        return len({g["block"] for g in self.games})

    @classmethod
    def load(cls, path: str) -> LeagueFile:
        """The league kept at ``path`` (a ``ValueError`` in one line if it is not one)."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            if data.get("format") != FORMAT:
                raise ValueError(f"not a {FORMAT} file")
            return cls(
                data["rules"], data["num_players"], data["seed"], list(data["pool"]),
                data["max_rounds"], list(data["games"]),
            )  # fmt: skip
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"league file {path!r} cannot be read: {exc}") from None

    def save(self, path: str) -> None:
        """Write the file whole, then move it over the old one (an interruption loses
        at most the chunk being played)."""
        data = {"format": FORMAT, "rules": self.rules, "num_players": self.num_players,
                "seed": self.seed, "pool": self.pool, "max_rounds": self.max_rounds,
                "games": self.games}  # fmt: skip
        partial = f"{path}.partial"
        with open(partial, "w", encoding="utf-8") as out:
            json.dump(data, out, separators=(",", ":"))
        os.replace(partial, path)

    def check_matches(self, other: LeagueFile, path: str) -> None:
        """A ``ValueError`` naming the difference if ``other`` is not this league."""
        for what in ("rules", "num_players", "seed", "pool", "max_rounds"):
            mine, theirs = getattr(self, what), getattr(other, what)
            if mine != theirs:
                raise ValueError(
                    f"league file {path!r} holds a league with {what} {mine!r}, not {theirs!r}; "
                    "name another --results file to start a new league"
                )


def play_blocks(
    league: LeagueFile,
    blocks: range,
    workers: int = 1,
    saved: Callable[[LeagueFile], None] | None = None,
) -> None:
    """Play ``blocks`` of ``league`` and add their games; ``saved(league)`` after each chunk."""
    n, chunk = league.num_players, max(1, 8 * workers)
    with ExitStack() as stack:
        pool = stack.enter_context(worker_pool(workers)) if workers > 1 else None
        for start in range(blocks.start, blocks.stop, chunk):
            tasks, lineups = [], []
            for b in range(start, min(blocks.stop, start + chunk)):
                lineup = block_lineup(len(league.pool), n, b, league.seed)
                entries = tuple(league.pool[i] for i in lineup)
                setup = Setup(entries, league.rules, n, block_seed(league.seed, b),
                              league.max_rounds, "draw", labels=entries)  # fmt: skip
                tasks.append((setup, (0, n)))
                lineups.append((b, lineup))
            played = pool.imap(play_slice, tasks) if pool is not None else map(play_slice, tasks)
            for (b, lineup), records in zip(lineups, played):
                for record in records:
                    league.games.append(
                        {"block": b, "entries": list(lineup), "ranks": list(record.ranks)}
                    )
            if saved is not None:
                saved(league)


@dataclass
class LeagueResult:
    """A league's ratings: one row per pool agent, best first."""

    league: LeagueFile
    fit: Fit
    notes: list[str] = field(default_factory=list)

    def rows(self) -> list[dict[str, Any]]:
        order = np.argsort(-self.fit.ratings, kind="stable")
        return [
            {"agent": self.league.pool[i], "rating": float(self.fit.ratings[i]),
             "ci_low": float(self.fit.low[i]), "ci_high": float(self.fit.high[i]),
             "games": int(self.fit.games[i])}
            for i in order
        ]  # fmt: skip

    def table(self) -> str:
        """A fixed-width text table, best first."""
        lg = self.league
        width = max(12, *(len(s) for s in lg.pool))
        lines = [
            f"League: {lg.rules} rules, {lg.num_players} players, {len(lg.games)} games "
            f"({lg.blocks} line-ups, seats rotated), seed {lg.seed}",
            f"Bradley–Terry (choix) on pairwise results by final rank, Elo scale, "
            f"{ANCHOR} = 0; 95% intervals from {self.fit.samples} bootstrap samples of games",
            "",
            f"{'agent':<{width}}  rating  95% CI            games",
        ]
        for r in self.rows():
            interval = f"[{r['ci_low']:.0f}, {r['ci_high']:.0f}]"
            lines.append(
                f"{r['agent']:<{width}}  {r['rating']:6.0f}  {interval:<16}  {r['games']:5}"
            )
        return "\n".join(lines + [f"note: {n}" for n in self.notes])

    def to_dict(self) -> dict[str, Any]:
        lg = self.league
        return {
            "rules": lg.rules, "num_players": lg.num_players, "seed": lg.seed,
            "games": len(lg.games), "blocks": lg.blocks, "anchor": ANCHOR,
            "scale": f"Elo ({ELO:.2f} points per unit of Bradley-Terry strength)",
            "interval": f"bootstrap-95 over games, {self.fit.samples} samples",
            "fit": "choix.ilsr_pairwise_dense", "agents": self.rows(), "notes": self.notes,
        }  # fmt: skip


def rate(league: LeagueFile, samples: int = 200, notes: Sequence[str] = ()) -> LeagueResult:
    """The Bradley–Terry ratings of every game the league holds."""
    games = [list(zip(g["entries"], g["ranks"])) for g in league.games]
    fit = bootstrap_fit(games, len(league.pool), league.pool.index(ANCHOR), samples, league.seed)
    return LeagueResult(league, fit, list(notes))


def run_league(
    rules: str,
    num_players: int,
    games: int,
    seed: int = 0,
    extra: Sequence[str] = (),
    results: str | None = None,
    workers: int = 1,
    samples: int = 200,
) -> LeagueResult:
    """Play the league up to ``games`` games (rounded up to whole blocks of
    ``num_players``), resuming from ``results`` where it holds this league, and rate it."""
    pool, notes = league_pool(rules, num_players, extra)
    league = LeagueFile(rules, num_players, seed, pool)
    if results is not None and Path(results).exists():
        kept = LeagueFile.load(results)
        kept.check_matches(league, results)
        league = kept
    wanted = -(-games // num_players)

    def save(lg: LeagueFile) -> None:
        if results is not None:
            lg.save(results)

    play_blocks(league, range(league.blocks, wanted), workers, save)
    return rate(league, samples, notes)
