"""Play many random games through ``grove_v1.raw_env`` and check the invariants as they go.

For every rule set and player count (7 tables), ``--games`` games of uniformly random
legal play, alternating the reward mode (even games ``outcome``, odd games ``markers``).
In every game:

* the agent to act has a legal move, and it is what the game says is legal;
* rewards sum to zero on every step;
* after every round, markers are conserved: coloured + penalty (+ removed, revised)
  add up to players x markers per player, and classic removes none;
* ``markers`` pays minus the centred change of each seat's score at each round's end;
  ``outcome`` pays (seats worse - seats better) / (n - 1) at the end and nothing before;
* the game is terminated by an end condition, or truncated at ``--max-rounds``.

Usage::

    python scripts/check_random_games.py                 # 100000 games per table
    python scripts/check_random_games.py --games 200 --workers 1

Prints one line per table (games, decisions, rounds, errors, elapsed) and exits with
status 1 if any game broke an invariant.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's grove_env

from grove_env import Game, grove_v1  # noqa: E402
from grove_env.agents.arena.match import Step, play_game  # noqa: E402
from grove_env.agents.cli.command_line import Parser  # noqa: E402
from grove_env.rules import RULE_SETS  # noqa: E402

TABLES = [(name, n) for name, rules in RULE_SETS.items() for n in rules.player_counts]
EPS = 1e-9


@dataclass
class Tally:
    """What a batch of games did; batches add up."""

    games: int = 0
    decisions: int = 0
    rounds: int = 0
    min_rounds: int = sys.maxsize
    max_rounds: int = 0
    truncated: int = 0
    errors: int = 0
    first_errors: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        self.games += other.games
        self.decisions += other.decisions
        self.rounds += other.rounds
        self.min_rounds = min(self.min_rounds, other.min_rounds)
        self.max_rounds = max(self.max_rounds, other.max_rounds)
        self.truncated += other.truncated
        self.errors += other.errors
        self.first_errors = (self.first_errors + other.first_errors)[:5]


class InvariantError(AssertionError):
    """An invariant did not hold."""


def check(condition: bool, what: str) -> None:
    if not condition:
        raise InvariantError(what)


def scores(rules: str, coloured, penalty) -> list[int]:
    return [c + p for c, p in zip(coloured, penalty)] if rules == "classic" else list(penalty)


class UniformPlayer:
    """Uniformly random legal play from its own ``random.Random``."""

    name = "uniform"

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def reset(self) -> None:
        return None

    def act(self, observation: dict[str, np.ndarray]) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[int(self.rng.random() * len(legal))])


class GameChecker:
    """The invariants, checked before each move and after each step of one game."""

    def __init__(self, env: grove_v1.raw_env, rules: str) -> None:
        self.env, self.rules = env, rules
        self.total = env.num_players * env.rule_set.markers_per_player
        self.last_scores: list[int] | None = None  # the scores when the last round ended
        self.rounds = 0

    @property
    def game(self) -> Game:
        assert self.env.game is not None
        return self.env.game

    def before_act(self, seat: int, observation: dict[str, np.ndarray]) -> None:
        if self.last_scores is None:  # the first move: the game has just been dealt
            self.last_scores = self.game.scores()
        legal = np.flatnonzero(observation["action_mask"])
        check(legal.size > 0, f"{self.env.agent_selection} to act with an empty mask")
        check(legal.tolist() == self.game.legal_actions(), "mask differs from the legal actions")

    def after_step(self, step: Step) -> None:
        env, game, n = self.env, self.game, self.env.num_players
        rewards = list(step.rewards)
        check(abs(sum(rewards)) < EPS, f"rewards {rewards} do not sum to zero")
        if not step.round_ended:
            check(not any(rewards), f"rewards {rewards} paid mid-round")
            return
        self.rounds = rounds = len(game.history)
        record = game.history[-1]
        held = sum(record.coloured) + sum(record.penalty) + sum(game.removed)
        check(held == self.total, f"round {rounds}: {held} markers, expected {self.total}")
        check(self.rules == "revised" or not any(game.removed), "classic removed a marker")
        now = scores(self.rules, record.coloured, record.penalty)
        if env.reward_mode == "markers":
            assert self.last_scores is not None
            deltas = [s - s0 for s, s0 in zip(now, self.last_scores)]
            mean = sum(deltas) / n
            want = [-(d - mean) for d in deltas]
        elif game.terminal:
            want = [(sum(o > s for o in now) - sum(o < s for o in now)) / (n - 1) for s in now]
        else:
            want = [0.0] * n
        check(
            all(abs(r - w) < EPS for r, w in zip(rewards, want)),
            f"round {rounds}: rewards {rewards}, expected {want}",
        )
        self.last_scores = now
        check(rounds <= env.max_rounds, f"round {rounds} beyond max_rounds")


def play_one(env: grove_v1.raw_env, rules: str, seed: int) -> tuple[int, int, bool]:
    """One random game, checked throughout; returns (decisions, rounds, truncated)."""
    checker = GameChecker(env, rules)
    player = UniformPlayer(seed)
    result = play_game(
        env,
        [player] * env.num_players,
        seed,
        before_act=checker.before_act,
        after_step=checker.after_step,
    )
    ended_by_rule = checker.game.terminal
    check(ended_by_rule or checker.rounds == env.max_rounds, "game stopped early without an end")
    check(not env.agents, "agents left after the game")
    return sum(result.decisions), checker.rounds, not ended_by_rule


def run_batch(job: tuple[str, int, int, int, int, int]) -> Tally:
    """Games ``start .. start+count-1`` of one table (seeds derive from ``base_seed``)."""
    rules, n, start, count, base_seed, max_rounds = job
    envs = {
        mode: grove_v1.raw_env(num_players=n, rules=rules, reward=mode, max_rounds=max_rounds)
        for mode in ("outcome", "markers")
    }
    tally = Tally()
    for index in range(start, start + count):
        seed = base_seed * 1_000_003 + index
        env = envs["outcome" if index % 2 == 0 else "markers"]
        try:
            decisions, rounds, truncated = play_one(env, rules, seed)
        except Exception as err:  # every failure is counted and reported, not raised
            tally.errors += 1
            if len(tally.first_errors) < 5:
                tally.first_errors.append(
                    f"{rules} {n}p game {index} (seed {seed}, {env.reward_mode}): "
                    f"{type(err).__name__}: {err}"
                )
            continue
        tally.games += 1
        tally.decisions += decisions
        tally.rounds += rounds
        tally.min_rounds = min(tally.min_rounds, rounds)
        tally.max_rounds = max(tally.max_rounds, rounds)
        tally.truncated += truncated
    return tally


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = Parser(
        prog="check_random_games.py",
        description=__doc__.split("\n\n")[0],
        epilog="Exit status: 0 every invariant held, 1 a game broke one, 2 a usage error.",
    )
    parser.add_argument("--games", type=int, default=100_000, help="games per table")
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument("--seed", type=int, default=0, help="base seed of every table")
    parser.add_argument("--max-rounds", type=int, default=100, help="env max_rounds")
    parser.add_argument(
        "--tables",
        nargs="*",
        default=None,
        metavar="RULES:N",
        help="subset of tables, e.g. classic:4 revised:5 (default: all 7)",
    )
    args = parser.parse_args(argv)
    if args.games < 1 or args.workers < 1 or args.max_rounds < 1:
        parser.error("--games, --workers and --max-rounds must be >= 1")
    if args.seed < 0:
        parser.error(f"--seed must be >= 0, got {args.seed}")
    if args.tables:
        try:
            args.tables = [(t.split(":")[0], int(t.split(":")[1])) for t in args.tables]
        except (IndexError, ValueError):
            parser.error("tables are written RULES:N, e.g. revised:5")
        unknown = [t for t in args.tables if t not in TABLES]
        if unknown:
            parser.error(f"unknown tables {unknown}; choose from {TABLES}")
    else:
        args.tables = TABLES
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    print(
        f"random games through grove_v1.raw_env: {args.games} per table, "
        f"{args.workers} worker(s), reward modes alternating, max_rounds={args.max_rounds}",
        flush=True,
    )
    chunk = max(1, min(2_000, -(-args.games // (4 * args.workers))))
    errors = 0
    wall = time.perf_counter()
    ctx = get_context("spawn" if sys.platform == "win32" else "fork")
    with ctx.Pool(args.workers) if args.workers > 1 else _Inline() as pool:
        for rules, n in args.tables:
            start = time.perf_counter()
            jobs = [
                (rules, n, s, min(chunk, args.games - s), args.seed, args.max_rounds)
                for s in range(0, args.games, chunk)
            ]
            tally = Tally()
            for part in pool.imap_unordered(run_batch, jobs):
                tally.add(part)
            elapsed = time.perf_counter() - start
            played = max(tally.games, 1)
            print(
                f"{rules:>7} {n}p: games={tally.games} decisions={tally.decisions} "
                f"({tally.decisions / played:.1f}/game) rounds={tally.rounds} "
                f"(mean {tally.rounds / played:.2f}, min {tally.min_rounds}, "
                f"max {tally.max_rounds}) truncated={tally.truncated} "
                f"errors={tally.errors} elapsed={elapsed:.1f}s",
                flush=True,
            )
            for message in tally.first_errors:
                print(f"    {message}", flush=True)
            errors += tally.errors
    print(f"total: errors={errors} elapsed={time.perf_counter() - wall:.1f}s", flush=True)
    return 1 if errors else 0


class _Inline:
    """A stand-in for a pool with one worker: runs the batches in this process."""

    def __enter__(self) -> _Inline:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def imap_unordered(self, func, jobs):
        return map(func, jobs)


if __name__ == "__main__":
    sys.exit(main())
