"""Command line: ``python -m grove_env.analysis nashconv|solve ...``.

``nashconv --rules R --players N --agent SPEC [--whole-game]`` prints the NashConv of
every seat playing ``SPEC`` and each seat's best-response gain: of one round from the
start of a game (``markers`` reward), or of the whole game (``outcome`` reward).
``solve --rules R --players N --seconds S [--out PATH]`` runs CFR+ on one round and saves
the average strategy in the ``cfr`` agent's format. Both print wall time and peak memory.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from collections.abc import Sequence

from grove_env.agents.cfr import data_file

from .best_response import exploitability
from .cfr import save_strategy, solve
from .policies import policy_of
from .round_tree import build_round_tree
from .whole_game import whole_game_exploitability


def peak_mb() -> float:
    """Peak resident memory of this process so far, in MB (Linux reports kB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m grove_env.analysis", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    nc = sub.add_parser("nashconv", help="NashConv of an agent playing every seat")
    sol = sub.add_parser("solve", help="CFR+ on one round; saves the strategy")
    for s in (nc, sol):
        s.add_argument("--rules", default="classic", choices=["classic", "revised"])
        s.add_argument("--players", type=int, default=2)
    nc.add_argument(
        "--agent", default="random", help="agent spec: random, heuristic, cfr, ppo:PATH"
    )
    nc.add_argument("--whole-game", action="store_true", help="the whole game, not one round")
    nc.add_argument("--max-rounds", type=int, default=100, help="round limit (whole game)")
    nc.add_argument("--json", action="store_true", help="print one JSON line")
    sol.add_argument("--seconds", type=float, default=60.0)
    sol.add_argument("--target", type=float, default=1e-4, help="stop at this NashConv")
    sol.add_argument("--out", default=None, help="default: the shipped file of the table")
    return p


def nashconv(args: argparse.Namespace) -> dict:
    start = time.perf_counter()
    policy = policy_of(args.agent)
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


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
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
    start = time.perf_counter()
    tree = build_round_tree(args.rules, args.players)
    solution = solve(tree, seconds=args.seconds, target=args.target)
    note = (
        f"CFR+ {solution.iterations} iterations in {solution.seconds:.0f} s; "
        f"NashConv {solution.exploitability.nash_conv:.2e} markers"
    )
    path = save_strategy(
        args.out or data_file(args.rules, args.players), tree, solution.probs, note
    )
    print(
        f"{args.rules} {args.players}p: {note}; saved {path}; "
        f"{time.perf_counter() - start:.0f} s in all, peak {peak_mb():.0f} MB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
