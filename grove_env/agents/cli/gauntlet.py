"""``grove-gauntlet``: the command line of :mod:`grove_env.agents.arena.gauntlet`.

::

    python -m grove_env.agents.cli.gauntlet --agent heuristic --rules classic --players 4 \\
        --games 2000 --seed 0 --workers 2 --json gauntlet.json --plot gauntlet.png

Everything is checked before the first game; a mistake is one line on stderr, exit 2
for a usage error and 1 for a failure (:mod:`grove_env.agents.cli.command_line`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ..arena.gauntlet import run_gauntlet
from ..arena.tournament import TournamentError, check_setup
from .command_line import (
    EXIT_HELP,
    CommandError,
    Parser,
    agent_specs,
    build_agent,
    check_json_and_plot,
    refuse_human,
    run_command,
    usage_error,
    write_output,
)

PROG = "grove-gauntlet"


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog=PROG,
        description="Play one agent against N-1 copies of each playing style with rotating\n"
        "seats; report its win share per style (Wilson 95% intervals), the mean and the\n"
        "worst case over the rule-based styles.",
        epilog=EXIT_HELP.format(
            failure="a model file missing or damaged,\nan output path that cannot be "
            "written, an agent that fails in a game"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--agent", required=True, help="the agent's spec, e.g. heuristic")
    p.add_argument("--rules", default="classic", help="classic (default) or revised")
    p.add_argument("--players", type=int, default=4, help="table size (default 4)")
    p.add_argument(
        "--games", type=int, default=2000, help="games per opponent style (default 2000)"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of every cell (default 0)")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--json", metavar="PATH", help="write the result as JSON")
    p.add_argument("--plot", metavar="PATH", help="write a win-share bar chart (PNG)")
    return p


def _check_inputs(args: argparse.Namespace) -> str:
    """The agent's spec, once every input and output is known good (:class:`CommandError`)."""
    (spec,) = agent_specs([args.agent], None)
    refuse_human([spec], "the gauntlet has no seat for a person; play one with grove-play")
    try:
        check_setup(
            [spec] * args.players,
            args.rules,
            args.players,
            args.games,
            args.seed,
            args.workers,
            max_rounds=100,
        )
    except ValueError as exc:
        raise usage_error(str(exc)) from None
    build_agent(spec, seed=args.seed)
    check_json_and_plot(args.json, args.plot)
    return spec


def _run(args: argparse.Namespace) -> int:
    spec = _check_inputs(args)
    try:
        result = run_gauntlet(
            spec,
            rules=args.rules,
            num_players=args.players,
            games=args.games,
            seed=args.seed,
            workers=args.workers,
        )
    except ValueError as exc:
        raise usage_error(str(exc)) from None
    except TournamentError as exc:
        raise CommandError(f"an agent failed: {exc}") from None
    print(result.table(), flush=True)
    if args.json:
        write_output(result.save_json, args.json, "--json")
        print(f"wrote {args.json}")
    if args.plot:
        write_output(result.plot, args.plot, "--plot")
        print(f"wrote {args.plot}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # argparse has printed its message
        return int(exc.code or 0)
    return run_command(PROG, lambda: _run(args))


if __name__ == "__main__":
    sys.exit(main())
