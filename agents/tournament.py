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
OpenSkill Plackett-Luce ratings.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from grove_env.grove_v0 import raw_env
from grove_env.rules import get_rules

from .base import Agent, make_agent, parse_spec
from .ratings import Z_95, openskill_ratings, wilson_interval, win_points

EntryLike = str | Agent | Callable[[int], Agent]
TRUNCATED_MODES = ("draw", "standings")


class TournamentError(RuntimeError):
    """An agent misbehaved during a game (e.g. played a masked action)."""


# --------------------------------------------------------------------------- results
@dataclass(frozen=True)
class GameRecord:
    """One finished game, everything indexed by entry (not by seat)."""

    index: int
    seats: tuple[int, ...]  # seat of each entry
    ranks: tuple[int, ...]  # rank used for statistics (1 is best, ties share)
    scores: tuple[int, ...]  # final score count (fewer is better)
    rewards: tuple[float, ...]  # sum of the environment's rewards over the game
    truncated: bool
    rounds: int


@dataclass(frozen=True)
class EntryStats:
    """Per-entry figures over all games of a tournament."""

    label: str
    spec: str
    games: int
    win_points: float
    win_share: float
    ci_low: float
    ci_high: float
    mean_score: float
    mean_reward: float
    mean_rank: float
    seat_games: tuple[int, ...]
    mu: float
    sigma: float
    ordinal: float


@dataclass
class TournamentResult:
    """What :func:`run_tournament` returns; ``records`` holds every game."""

    rules: str
    num_players: int
    games: int
    games_requested: int
    seed: int
    max_rounds: int
    truncated_mode: str
    truncated: int
    mean_rounds: float
    entries: list[EntryStats]
    seat_win_share: list[float]
    records: list[GameRecord] = field(default_factory=list, repr=False)

    @property
    def fair_share(self) -> float:
        return 1.0 / self.num_players

    def entry(self, label: str) -> EntryStats:
        """The stats of the entry with this label."""
        for e in self.entries:
            if e.label == label:
                return e
        raise KeyError(f"no entry {label!r}; entries: {[e.label for e in self.entries]}")

    def table(self) -> str:
        """A fixed-width text table, one line per entry."""
        width = max(5, *(len(e.label) for e in self.entries))
        lines = [
            f"In a Grove tournament: {self.rules} rules, {self.num_players} players, "
            f"{self.games} games ({self.games // self.num_players} seat rotations), "
            f"seed {self.seed}",
            f"truncated games (cut off at {self.max_rounds} rounds, counted as "
            f"{'draws' if self.truncated_mode == 'draw' else 'standings'}): {self.truncated}; "
            f"mean rounds per game: {self.mean_rounds:.2f}",
            "",
            f"{'entry':<{width}}  win share  95% CI (Wilson)   mean score  mean reward  "
            f"mean rank     mu  sigma  ordinal",
        ]
        for e in self.entries:
            lines.append(
                f"{e.label:<{width}}  {e.win_share:9.3f}  [{e.ci_low:.3f}, {e.ci_high:.3f}]"
                f"  {e.mean_score:10.2f}  {e.mean_reward:+11.3f}  {e.mean_rank:9.2f}"
                f"  {e.mu:5.2f}  {e.sigma:5.2f}  {e.ordinal:7.2f}"
            )
        lines.append("")
        lines.append(
            f"fair share {self.fair_share:.3f}; win share by seat: "
            + ", ".join(f"seat {s} {w:.3f}" for s, w in enumerate(self.seat_win_share))
        )
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able summary (the per-game records are left out)."""
        return {
            "rules": self.rules,
            "num_players": self.num_players,
            "games": self.games,
            "games_requested": self.games_requested,
            "seed": self.seed,
            "max_rounds": self.max_rounds,
            "truncated_mode": self.truncated_mode,
            "truncated": self.truncated,
            "mean_rounds": self.mean_rounds,
            "fair_share": self.fair_share,
            "win_share_interval": "wilson-95",
            "rating_model": "openskill-plackett-luce",
            "seat_win_share": list(self.seat_win_share),
            "entries": [{**asdict(e), "seat_games": list(e.seat_games)} for e in self.entries],
        }

    def save_json(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.to_dict(), f, indent=2)
            f.write("\n")

    def plot(self, path: str) -> None:
        """Bar chart of win share with 95% intervals and the fair-share line, as a PNG."""
        # Figure + Agg canvas directly: no pyplot, no global backend switch.
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        fig = Figure(figsize=(1.6 + 1.3 * len(self.entries), 4.0), dpi=100)
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        xs = range(len(self.entries))
        shares = [e.win_share for e in self.entries]
        errs = [
            [e.win_share - e.ci_low for e in self.entries],
            [e.ci_high - e.win_share for e in self.entries],
        ]
        ax.bar(xs, shares, yerr=errs, capsize=6, color="#4c72b0")
        ax.axhline(self.fair_share, color="#c44e52", linestyle="--", label="fair share")
        ax.set_xticks(list(xs), [e.label for e in self.entries])
        ax.set_ylabel("win share (95% Wilson interval)")
        ax.set_ylim(0, min(1.0, max(e.ci_high for e in self.entries) * 1.15 + 0.02))
        ax.set_title(f"{self.rules}, {self.num_players} players, {self.games} games")
        ax.legend(loc="upper right")
        fig.tight_layout()
        fig.savefig(path)


def summarise(
    records: Sequence[GameRecord],
    labels: Sequence[str],
    specs: Sequence[str] | None = None,
    *,
    rules: str = "classic",
    seed: int = 0,
    max_rounds: int = 100,
    truncated_mode: str = "draw",
    games_requested: int | None = None,
) -> TournamentResult:
    """Turn per-game records (in any order) into a :class:`TournamentResult`."""
    records = sorted(records, key=lambda r: r.index)
    n = len(labels)
    g = len(records)
    if g == 0:
        raise ValueError("no games to summarise")
    specs = list(specs) if specs is not None else list(labels)
    points = np.zeros(n)
    seat_points = np.zeros(n)
    scores = np.zeros(n)
    rewards = np.zeros(n)
    ranks = np.zeros(n)
    seat_games = np.zeros((n, n), dtype=int)
    for rec in records:
        pts = win_points(rec.ranks)
        for e in range(n):
            points[e] += pts[e]
            seat_points[rec.seats[e]] += pts[e]
            seat_games[e, rec.seats[e]] += 1
        scores += rec.scores
        rewards += rec.rewards
        ranks += rec.ranks
    ratings = openskill_ratings((rec.ranks for rec in records), n)
    entries = []
    for e in range(n):
        low, high = wilson_interval(points[e], g, Z_95)
        entries.append(
            EntryStats(
                label=labels[e],
                spec=specs[e],
                games=g,
                win_points=float(points[e]),
                win_share=float(points[e] / g),
                ci_low=low,
                ci_high=high,
                mean_score=float(scores[e] / g),
                mean_reward=float(rewards[e] / g),
                mean_rank=float(ranks[e] / g),
                seat_games=tuple(int(x) for x in seat_games[e]),
                mu=ratings[e].mu,
                sigma=ratings[e].sigma,
                ordinal=ratings[e].ordinal,
            )
        )
    return TournamentResult(
        rules=rules,
        num_players=n,
        games=g,
        games_requested=g if games_requested is None else games_requested,
        seed=seed,
        max_rounds=max_rounds,
        truncated_mode=truncated_mode,
        truncated=sum(r.truncated for r in records),
        mean_rounds=sum(r.rounds for r in records) / g,
        entries=entries,
        seat_win_share=[float(x / g) for x in seat_points],
        records=list(records),
    )


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


def seat_of(entry: int, game: int, num_players: int) -> int:
    """The seat entry ``entry`` takes in game ``game`` (rotation by one seat per game)."""
    return (entry + game) % num_players


def game_seeds(seed: int, game: int, num_entries: int) -> tuple[int, list[int]]:
    """The environment seed and one agent seed per entry for game ``game``."""
    state = np.random.SeedSequence([seed, game]).generate_state(num_entries + 1, np.uint64)
    return int(state[0]), [int(s) for s in state[1:]]


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


def make_env(setup: _Setup) -> raw_env:
    """The (unwrapped) environment a tournament's games are played in."""
    return raw_env(num_players=setup.num_players, rules=setup.rules, max_rounds=setup.max_rounds)


def play_game(setup: _Setup, index: int, env: raw_env | None = None) -> GameRecord:
    """Play game ``index`` of a tournament (in ``env`` if given, it is reset) and record it."""
    n = setup.num_players
    env_seed, agent_seeds = game_seeds(setup.seed, index, n)
    seats = [seat_of(e, index, n) for e in range(n)]
    by_seat: list[Agent] = [None] * n  # type: ignore[list-item]
    for e, entry in enumerate(setup.entries):
        by_seat[seats[e]] = _agent_for_game(entry, agent_seeds[e])
    if env is None:
        env = make_env(setup)
    env.reset(seed=env_seed)
    seat_index = env.agent_name_mapping
    totals = [0.0] * n
    while True:
        name = env.agent_selection
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            break
        seat = seat_index[name]
        action = by_seat[seat].act(obs)
        mask = obs["action_mask"]
        try:
            legal = action == int(action) and 0 <= action < len(mask) and mask[action] == 1
        except (TypeError, ValueError):
            legal = False
        if not legal:
            raise TournamentError(
                f"game {index}: agent {by_seat[seat].name!r} at seat {seat} played "
                f"{action!r}, which is not a legal action"
            )
        env.step(int(action))
        for a, r in env.rewards.items():
            totals[seat_index[a]] += r
    infos = env.infos
    was_truncated = bool(env.truncations[name])
    standings = [int(infos[a]["standings"]) for a in env.possible_agents]
    scores = list(infos[env.possible_agents[0]]["scores"])
    if was_truncated and setup.truncated_mode == "draw":
        standings = [1] * n
    rounds = env.game.round if env.game is not None else 0
    return GameRecord(
        index=index,
        seats=tuple(seats),
        ranks=tuple(standings[s] for s in seats),
        scores=tuple(int(scores[s]) for s in seats),
        rewards=tuple(totals[s] for s in seats),
        truncated=was_truncated,
        rounds=rounds,
    )


_WORKER_SETUP: _Setup | None = None


def _init_worker(setup: _Setup) -> None:
    global _WORKER_SETUP
    _WORKER_SETUP = setup


def _play_slice(bounds: tuple[int, int]) -> list[GameRecord]:
    assert _WORKER_SETUP is not None, "worker not initialised"
    env = make_env(_WORKER_SETUP)
    return [play_game(_WORKER_SETUP, g, env) for g in range(*bounds)]


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
) -> TournamentResult:
    """Play ``games`` games (rounded up to a multiple of ``num_players``) and summarise them.

    ``agent_specs`` has one entry per table position: a spec string (``"random"``),
    an agent object, or a factory ``f(seed) -> Agent``. Raises ``ValueError`` for a bad
    configuration and :class:`TournamentError` if an agent plays a masked action.
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
    setup = _Setup(entries, rule_set.name, num_players, seed, max_rounds, truncated)

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
                records.append(play_game(setup, g, env))
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
