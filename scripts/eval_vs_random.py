"""Win share of one agent against others, for every rule set and player count.

Plays ``--games`` games per (rule set, player count) through ``grove_v1.raw_env``.
The tested agent takes ``--count`` adjacent seats (default 1) and the block rotates one
seat per game, so it plays every seat equally often; the other seats are
``--opponents``. Each game's rank-1 seats share one point; the tested agent's win share
is its mean points per game, with a 95% normal-approximation confidence interval, next
to its fair share ``count / n``.

    python scripts/eval_vs_random.py --agent heuristic --games 2000
    python scripts/eval_vs_random.py --agent heuristic --opponents greedy --count 2 \\
        --rules classic --players 4
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from multiprocessing import Pool
from multiprocessing.pool import Pool as PoolType
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from grove_env import grove_v1  # noqa: E402
from grove_env.agents.arena.match import play_game, seat_of  # noqa: E402
from grove_env.agents.arena.tournament_games import limit_threads, thread_share  # noqa: E402
from grove_env.agents.base import Agent, make_agent  # noqa: E402
from grove_env.agents.cli.command_line import (  # noqa: E402
    EXIT_HELP,
    Parser,
    build_agent,
    refuse_human,
    run_command,
    usage_error,
)
from grove_env.rules import get_rules  # noqa: E402


class Timed:
    """An agent whose decisions are timed (wall clock, for the median in the report)."""

    def __init__(self, agent: Agent, times: list[float]) -> None:
        self.agent, self.times, self.name = agent, times, agent.name

    def reset(self) -> None:
        self.agent.reset()

    def act(self, observation: dict[str, np.ndarray]) -> int:
        t0 = time.perf_counter()
        action = self.agent.act(observation)
        self.times.append(time.perf_counter() - t0)
        return action


def play(rules: str, n: int, agent: str, opponents: str, count: int, games: range, seed: int):
    """Points per game of the tested agent for the games numbered ``games``."""
    env = grove_v1.raw_env(num_players=n, rules=rules)
    times: list[float] = []
    tested = [
        Timed(make_agent(agent, seed=seed * 7919 + games.start + i), times) for i in range(count)
    ]
    others = [make_agent(opponents, seed=seed * 104729 + games.start + i) for i in range(n)]
    points = []
    for g in games:
        seats = [seat_of(j, g, n) for j in range(count)]
        players: list[Agent] = list(others)
        for j, s in enumerate(seats):
            players[s] = tested[j]
        for p in players:
            p.reset()
        standings = play_game(env, players, seed * 1_000_003 + g).standings
        winners = [s for s in range(n) if standings[s] == 1]
        points.append(sum(s in winners for s in seats) / len(winners))
    return points, times


def _play(job: tuple) -> tuple:
    return play(*job)


def evaluate(args: argparse.Namespace, rules: str, n: int, pool: PoolType | None) -> dict:
    chunks = max(1, args.workers * 4)
    size = math.ceil(args.games / chunks)
    jobs = [
        (
            rules,
            n,
            args.agent,
            args.opponents,
            args.count,
            range(a, min(a + size, args.games)),
            args.seed,
        )
        for a in range(0, args.games, size)
    ]
    results = pool.map(_play, jobs) if pool else [_play(j) for j in jobs]
    points = [x for r in results for x in r[0]]
    times = sorted(t for r in results for t in r[1])
    g = len(points)
    mean = sum(points) / g
    var = sum((x - mean) ** 2 for x in points) / max(1, g - 1)
    half = 1.96 * math.sqrt(var / g)
    fair = args.count / n
    return {
        "rules": rules,
        "players": n,
        "games": g,
        "share": mean,
        "lo": mean - half,
        "hi": mean + half,
        "fair": fair,
        "ratio": mean / fair,
        "median_ms": 1000 * times[len(times) // 2] if times else float("nan"),
    }


PROG = "eval_vs_random.py"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = Parser(
        prog=PROG,
        description=__doc__.split("\n")[0],
        epilog="A spec may carry options: --agent heuristic:noise=0.2,aim=1. "
        + EXIT_HELP.format(failure="a model file missing or damaged"),
    )
    parser.add_argument("--agent", default="heuristic", help="spec of the tested agent")
    parser.add_argument("--opponents", default="random", help="spec of the other seats")
    parser.add_argument("--count", type=int, default=1, help="seats the tested agent takes")
    parser.add_argument("--games", type=int, default=2000, help="games per table")
    parser.add_argument("--rules", nargs="+", default=["classic", "revised"])
    parser.add_argument("--players", nargs="+", type=int, default=None, help="default: all")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args(argv)


def tables_of(args: argparse.Namespace) -> list[tuple[str, int]]:
    """The (rules, players) tables to play, once every option is known good."""
    for name, value in (("--games", args.games), ("--workers", args.workers)):
        if value < 1:
            raise usage_error(f"{name} must be >= 1, got {value}")
    if args.seed < 0:
        raise usage_error(f"--seed must be >= 0, got {args.seed}")
    try:
        rule_sets = [get_rules(r) for r in args.rules]
    except ValueError as exc:
        raise usage_error(str(exc)) from None
    tables = [
        (rules.name, n)
        for rules in rule_sets
        for n in rules.player_counts
        if args.players is None or n in args.players
    ]
    allowed = sorted({n for rules in rule_sets for n in rules.player_counts})
    unknown = [n for n in args.players or () if n not in allowed]
    if unknown:
        raise usage_error(f"--players {unknown}: these rules allow {allowed}")
    for _, n in tables:
        if not 1 <= args.count < n:
            raise usage_error(f"--count must be in 1..{n - 1} for {n} players")
    specs = (args.agent, args.opponents)
    refuse_human(specs, "this script has no seat for a person; play with grove-play")
    for spec in specs:
        build_agent(spec, seed=args.seed)
    return tables


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    return run_command(PROG, lambda: report(args, tables_of(args)))


def report(args: argparse.Namespace, tables: list[tuple[str, int]]) -> int:
    print(
        f"{args.agent} x{args.count} vs {args.opponents}, {args.games} games per table, "
        f"seed {args.seed}"
    )
    print(
        f"{'rules':8} {'n':>2} {'games':>6} {'share':>7} {'95% CI':>17} {'fair':>5} "
        f"{'x fair':>6} {'med ms':>7}"
    )
    pool = None
    if args.workers > 1:  # each worker keeps to its share of the cores (torch's threads)
        share = (thread_share(args.workers),)
        pool = Pool(args.workers, initializer=limit_threads, initargs=share)
    try:
        for r, n in tables:
            t0 = time.perf_counter()
            res = evaluate(args, r, n, pool)
            print(
                f"{r:8} {n:>2} {res['games']:>6} {res['share']:7.3f} "
                f"[{res['lo']:.3f}, {res['hi']:.3f}] {res['fair']:5.2f} {res['ratio']:6.2f} "
                f"{res['median_ms']:7.3f}   ({time.perf_counter() - t0:.0f} s)",
                flush=True,
            )
    finally:
        if pool:
            pool.close()
            pool.join()
    return 0


if __name__ == "__main__":
    sys.exit(main())
