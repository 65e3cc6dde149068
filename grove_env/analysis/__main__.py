"""Command line: ``python -m grove_env.analysis nashconv|play|solve ...``.

``nashconv --rules R --players N --agent SPEC [--whole-game]`` prints the NashConv of
every seat playing ``SPEC`` and each seat's best-response gain: of one round from the
start of a game (``markers`` reward), or of the whole game (``outcome`` reward).
``play --rules R --players N --agent SPEC [--against A,B,...]`` prints, per opponent,
the agent's exact expected markers in the first round against ``n - 1`` copies of it
and a best response's there (:mod:`~grove_env.analysis.play`; the default opponents
are the gauntlet's rule-based styles and the heuristic).
``solve --rules R --players N --seconds S [--out PATH]`` runs CFR+ on one round and saves
the average strategy in the ``cfr`` agent's format, by default as
``cfr_<rules>_<n>p.npz`` in the current folder (``cfr-round:PATH`` plays it).
``solve --whole-game --rules R --players 2|3 [--seconds S] [--target T] [--out PATH]``
solves the whole game round by round (:mod:`~grove_env.analysis.game_solver`; each
stage CFR+ to NashConv ``T`` outcome, default 3e-4, at most ``S`` seconds, default
600) and saves it, by default as ``cfr_<rules>_<n>p_game.npz`` (``cfr:PATH`` plays it;
``--small`` stores its probabilities out of 255, not 65535: half the file).
``--max-rounds M`` (default 100, the env's) sets the round limit of either whole game.
``nashconv --whole-game --workers W`` asks a NumPy policy (the heuristic, the styles)
from ``W`` processes (default: the machine's cores; the figure does not change).
The strategies that ship are the files of ``grove_env/data/``. Both commands print wall
time and peak memory.

Everything is checked before the work starts (the table, the agent, which is built,
the output path, which is proved writable): a mistake is one line on stderr, exit 2
for a usage error and 1 for a failure (a model file missing or damaged, an output
that cannot be written).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from grove_env.agents.arena.gauntlet import RULE_BASED
from grove_env.agents.base import table_refusal
from grove_env.agents.cli.command_line import (
    CommandError,
    Parser,
    build_agent,
    check_output,
    refuse_human,
    run_command,
    usage_error,
)
from grove_env.agents.learned.cfr_agent import PROB_SCALE, PROB_SCALE_SMALL
from grove_env.rules import RULE_SETS, get_rules

from .cfr import save_strategy, solve
from .game_solver import save_game_strategy, solve_game
from .measure import WHOLE_GAME_PLAYERS, nash_conv
from .play import play_against
from .round_tree import build_round_tree

PROG = "python -m grove_env.analysis"
PLAY_OPPONENTS = [*RULE_BASED, "heuristic"]
SECONDS_HELP = "time limit: of the round (default 60), of each stage (--whole-game, default 600)"
TARGET_HELP = "stop at this NashConv: of the round (default 1e-4 markers), of each stage "
TARGET_HELP += "(--whole-game, default 3e-4 outcome)"


def peak_mb() -> float:
    """Peak resident memory of this process or its largest ended worker so far, in MB
    (Linux reports kB)."""
    own, workers = (
        resource.getrusage(w).ru_maxrss for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    )
    return max(own, workers) / 1024


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def number(low: float, inclusive: bool) -> Any:
    """An argparse type: a finite float above ``low`` (or at it, if ``inclusive``)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not math.isfinite(value) or value < low or (value == low and not inclusive):
            bound = f">= {low:g}" if inclusive else f"> {low:g}"
            raise argparse.ArgumentTypeError(f"must be a finite number {bound}, got {text!r}")
        return value

    return parse


def whole(low: int) -> Any:
    """An argparse type: an int of at least ``low``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, got {value}")
        return value

    return parse


def specs(text: str) -> list[str]:
    """An argparse type: a comma list of agent specs, none empty or repeated."""
    out = [part.strip() for part in text.split(",")]
    if not all(out) or len(set(out)) != len(out):
        raise argparse.ArgumentTypeError(f"a comma list of distinct agent specs, got {text!r}")
    return out


def parser() -> argparse.ArgumentParser:
    p = Parser(prog=PROG, description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)
    nc = sub.add_parser("nashconv", help="NashConv of an agent playing every seat")
    pl = sub.add_parser("play", help="exact first-round markers against copies of opponents")
    sol = sub.add_parser("solve", help="CFR+ on one round or the whole game; saves it")
    for s in (nc, pl, sol):
        s.add_argument("--rules", default="classic", choices=sorted(RULE_SETS))
        s.add_argument("--players", type=whole(2), default=2)
    for s in (nc, pl):
        s.add_argument(
            "--agent",
            default="random",
            help="agent spec: random, heuristic, cfr, zoo:TABLE, ppo:RUN",
        )
    pl.add_argument(
        "--against",
        type=specs,
        default=PLAY_OPPONENTS,
        metavar="A,B,...",
        help=f"opponent specs (default: {','.join(PLAY_OPPONENTS)})",
    )
    pl.add_argument("--json", action="store_true", help="print one JSON line")
    for s in (nc, sol):
        s.add_argument("--whole-game", action="store_true", help="the whole game, not one round")
        s.add_argument(
            "--max-rounds", type=whole(1), default=None, help="round limit (whole game; 100)"
        )
    nc.add_argument("--json", action="store_true", help="print one JSON line")
    nc.add_argument(
        "--workers",
        type=whole(1),
        default=None,
        help="--whole-game: processes asking a NumPy policy (the heuristic, the styles); "
        "the figure is the same (default: the machine's cores)",
    )
    sol.add_argument(
        "--seconds", type=number(0.0, inclusive=False), default=None, help=SECONDS_HELP
    )
    sol.add_argument("--target", type=number(0.0, inclusive=True), default=None, help=TARGET_HELP)
    sol.add_argument(
        "--small",
        action="store_true",
        help="--whole-game: store probabilities in uint8 (x255), half the file",
    )
    sol.add_argument("--out", default=None, help="default: cfr_<rules>_<n>p[_game].npz here")
    return p


def check_table(args: argparse.Namespace) -> None:
    try:
        get_rules(args.rules).check_players(args.players)
    except ValueError as exc:
        raise usage_error(str(exc)) from None
    if args.command == "play":
        return
    if args.max_rounds is not None and not args.whole_game:
        raise usage_error("--max-rounds is for --whole-game (one round has no round limit)")
    args.max_rounds = args.max_rounds or 100
    if getattr(args, "workers", None) is not None and not args.whole_game:
        raise usage_error("--workers is for --whole-game (one round asks the policy once)")
    if args.command == "solve" and args.small and not args.whole_game:
        raise usage_error("--small is for --whole-game (a round file stores float32)")
    if args.whole_game and args.players > WHOLE_GAME_PLAYERS:
        raise usage_error(
            f"--whole-game is exact at 2 to {WHOLE_GAME_PLAYERS} players, got --players "
            f"{args.players} (python -m grove_env.training.bestresponse gives a lower bound)"
        )


def seated(spec: str, rules: str, players: int) -> Any:
    """The agent ``spec`` names, refused in one line where it cannot play the table (a
    ``cfr`` without a solution for it, a damaged strategy file, a zoo policy of another)."""
    agent = build_agent(spec, seed=0)
    refusal = table_refusal(spec, rules, players)
    if refusal is not None:
        raise CommandError(refusal)
    return agent


def nashconv(args: argparse.Namespace) -> dict:
    start = time.perf_counter()
    refuse_human([args.agent], "the analysis asks every information state at once")
    agent = seated(args.agent, args.rules, args.players)
    workers = args.workers or cores()
    result = nash_conv(
        agent, args.rules, args.players, args.whole_game, args.max_rounds, workers=workers
    )
    unit = "outcome" if args.whole_game else "markers"
    return {
        "rules": args.rules,
        "players": args.players,
        "agent": args.agent,
        "whole_game": bool(args.whole_game),
        "unit": unit,
        "nash_conv": result.nash_conv,
        "gains": list(result.gains),
        "values": list(result.values),
        **({"workers": workers} if args.whole_game else {}),
        "seconds": round(time.perf_counter() - start, 2),
        "peak_mb": round(peak_mb()),
    }


def play(args: argparse.Namespace) -> dict:
    start = time.perf_counter()
    refuse_human([args.agent, *args.against], "the analysis asks every information state at once")
    agent = seated(args.agent, args.rules, args.players)
    for spec in args.against:
        seated(spec, args.rules, args.players)  # a bad spec is one line before the tree is built
    cells = play_against(agent, args.rules, args.players, args.against)
    return {
        "rules": args.rules,
        "players": args.players,
        "agent": args.agent,
        "unit": "markers",
        "cells": [{"opponent": c.opponent, "value": c.value, "best": c.best} for c in cells],
        "seconds": round(time.perf_counter() - start, 2),
        "peak_mb": round(peak_mb()),
    }


def print_play(out: dict) -> None:
    others = out["players"] - 1
    copies = f"{others} {'copy' if others == 1 else 'copies'}"
    print(
        f"{out['rules']} {out['players']}p, {out['agent']}: expected markers in the first "
        f"round against {copies} of each opponent (the mean over its seats)"
    )
    print(f"{'opponent':<24} {'value':>9} {'best response':>14}")
    for c in out["cells"]:
        value, best = (round(c[k], 9) + 0.0 for k in ("value", "best"))  # no "-0.0000"
        print(f"{c['opponent']:<24} {value:>+9.4f} {best:>+14.4f}")
    print(f"{out['seconds']} s, peak {out['peak_mb']} MB")


def run(args: argparse.Namespace) -> int:
    check_table(args)
    if args.command == "play":
        out = play(args)
        if args.json:
            print(json.dumps(out))
        else:
            print_play(out)
        return 0
    if args.command == "nashconv":
        out = nashconv(args)
        if args.json:
            print(json.dumps(out))
        else:
            gains = ", ".join(f"seat {s}: {g:.6f}" for s, g in enumerate(out["gains"]))
            what = "whole game" if out["whole_game"] else "one round"
            print(
                f"{args.rules} {args.players}p {what}, {args.agent}: NashConv "
                f"{out['nash_conv']:.6f} {out['unit']} (best-response gains {gains}); "
                f"{out['seconds']} s, peak {out['peak_mb']} MB"
            )
        return 0
    suffix = "_game" if args.whole_game else ""
    target: str = args.out or f"cfr_{args.rules}_{args.players}p{suffix}.npz"
    if not target.endswith(".npz"):  # numpy would add the suffix to any other name
        raise usage_error(f"--out names a .npz file, got {target!r}")
    check_output(target, "--out")
    start = time.perf_counter()
    path, note = (solve_whole if args.whole_game else solve_round)(args, target)
    print(
        f"{args.rules} {args.players}p: {note}; saved {path}; "
        f"{time.perf_counter() - start:.0f} s in all, peak {peak_mb():.0f} MB"
    )
    return 0


def solve_round(args: argparse.Namespace, target: str) -> tuple[Path, str]:
    tree = build_round_tree(args.rules, args.players)
    solution = solve(tree, seconds=args.seconds or 60.0, target=args.target or 1e-4)
    note = (
        f"CFR+ {solution.iterations} iterations in {solution.seconds:.0f} s; "
        f"NashConv {solution.exploitability.nash_conv:.2e} markers"
    )
    return saved(lambda: save_strategy(target, tree, solution.probs, note), target), note


def solve_whole(args: argparse.Namespace, target: str) -> tuple[Path, str]:
    stage_target = 3e-4 if args.target is None else args.target
    solution = solve_game(
        args.rules,
        args.players,
        target=stage_target,
        seconds=args.seconds or 600.0,
        max_rounds=args.max_rounds,
        progress=lambda line: print(line, file=sys.stderr, flush=True),
        scale=PROB_SCALE_SMALL if args.small else PROB_SCALE,
    )
    assert solution.exploitability is not None
    note = (
        f"whole game to round {args.max_rounds}: {solution.states.count} states, "
        f"{len(solution.strategies)} distinct stage strategies ({solution.kept} states kept "
        f"the one {args.players} rounds later, {solution.snapped} snapped), "
        f"CFR+ {solution.iterations} iterations to a "
        f"stage NashConv of {stage_target:g} (worst {solution.worst_stage:.2e}) in "
        f"{solution.seconds:.0f} s; NashConv {solution.exploitability.nash_conv:.2e} outcome"
        + (" (probabilities stored x255)" if args.small else "")
    )
    return saved(lambda: save_game_strategy(target, solution, note), target), note


def saved(write: Callable[[], Path], target: str) -> Path:
    try:
        return write()
    except OSError as exc:
        raise CommandError(f"--out {target!r} could not be written: {exc}") from None


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:  # argparse printed its one line (or the help)
        return int(exc.code or 0)
    return run_command(PROG, lambda: run(args))


if __name__ == "__main__":
    sys.exit(main())
