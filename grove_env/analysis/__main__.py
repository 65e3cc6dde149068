"""Command line: ``python -m grove_env.analysis nashconv|solve ...``.

``nashconv --rules R --players N --agent SPEC [--whole-game]`` prints the NashConv of
every seat playing ``SPEC`` and each seat's best-response gain: of one round from the
start of a game (``markers`` reward), or of the whole game (``outcome`` reward).
``solve --rules R --players N --seconds S [--out PATH]`` runs CFR+ on one round and saves
the average strategy in the ``cfr`` agent's format, by default as
``cfr_<rules>_<n>p.npz`` in the current folder (``cfr:PATH`` plays it; the strategies
that ship are the files of ``grove_env/data/``). Both print wall time and peak memory.

Everything is checked before the work starts (the table, the agent, which is built,
the output path, which is proved writable): a mistake is one line on stderr, exit 2
for a usage error and 1 for a failure (a model file missing or damaged, an output
that cannot be written).
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import sys
import time
from collections.abc import Sequence
from typing import Any

from grove_env.agents.cli.command_line import (
    CommandError,
    Parser,
    build_agent,
    check_output,
    refuse_human,
    run_command,
    usage_error,
)
from grove_env.rules import RULE_SETS, get_rules

from .best_response import exploitability
from .cfr import save_strategy, solve
from .policies import policy_of
from .round_tree import build_round_tree
from .whole_game import whole_game_exploitability

PROG = "python -m grove_env.analysis"


def peak_mb() -> float:
    """Peak resident memory of this process so far, in MB (Linux reports kB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


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


def parser() -> argparse.ArgumentParser:
    p = Parser(prog=PROG, description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)
    nc = sub.add_parser("nashconv", help="NashConv of an agent playing every seat")
    sol = sub.add_parser("solve", help="CFR+ on one round; saves the strategy")
    for s in (nc, sol):
        s.add_argument("--rules", default="classic", choices=sorted(RULE_SETS))
        s.add_argument("--players", type=whole(2), default=2)
    nc.add_argument(
        "--agent", default="random", help="agent spec: random, heuristic, cfr, ppo:PATH"
    )
    nc.add_argument("--whole-game", action="store_true", help="the whole game, not one round")
    nc.add_argument("--max-rounds", type=whole(1), default=100, help="round limit (whole game)")
    nc.add_argument("--json", action="store_true", help="print one JSON line")
    sol.add_argument("--seconds", type=number(0.0, inclusive=False), default=60.0)
    sol.add_argument(
        "--target", type=number(0.0, inclusive=True), default=1e-4, help="stop at this NashConv"
    )
    sol.add_argument("--out", default=None, help="default: cfr_<rules>_<n>p.npz here")
    return p


def check_table(args: argparse.Namespace) -> None:
    try:
        get_rules(args.rules).check_players(args.players)
    except ValueError as exc:
        raise usage_error(str(exc)) from None


def nashconv(args: argparse.Namespace) -> dict:
    start = time.perf_counter()
    refuse_human([args.agent], "the analysis asks every information state at once")
    policy = policy_of(build_agent(args.agent, seed=0))
    if args.whole_game:
        result = whole_game_exploitability(args.rules, args.players, policy, args.max_rounds)
        unit = "outcome"
    else:
        result = exploitability(build_round_tree(args.rules, args.players), policy)  # type: ignore[assignment]
        unit = "markers"
    return {
        "rules": args.rules,
        "players": args.players,
        "agent": args.agent,
        "whole_game": bool(args.whole_game),
        "unit": unit,
        "nash_conv": result.nash_conv,
        "gains": list(result.gains),
        "values": list(result.values),
        "seconds": round(time.perf_counter() - start, 2),
        "peak_mb": round(peak_mb()),
    }


def run(args: argparse.Namespace) -> int:
    check_table(args)
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
    target: str = args.out or f"cfr_{args.rules}_{args.players}p.npz"
    if not target.endswith(".npz"):  # numpy would add the suffix to any other name
        raise usage_error(f"--out names a .npz file, got {target!r}")
    check_output(target, "--out")
    start = time.perf_counter()
    tree = build_round_tree(args.rules, args.players)
    solution = solve(tree, seconds=args.seconds, target=args.target)
    note = (
        f"CFR+ {solution.iterations} iterations in {solution.seconds:.0f} s; "
        f"NashConv {solution.exploitability.nash_conv:.2e} markers"
    )
    try:
        path = save_strategy(target, tree, solution.probs, note)
    except OSError as exc:
        raise CommandError(f"--out {target!r} could not be written: {exc}") from None
    print(
        f"{args.rules} {args.players}p: {note}; saved {path}; "
        f"{time.perf_counter() - start:.0f} s in all, peak {peak_mb():.0f} MB"
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:  # argparse printed its one line (or the help)
        return int(exc.code or 0)
    return run_command(PROG, lambda: run(args))


if __name__ == "__main__":
    sys.exit(main())
