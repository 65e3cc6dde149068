"""``grove-tournament``: the command line of :mod:`grove_env.agents.arena.tournament`.

::

    python -m grove_env.agents.cli.tournament --rules classic --players 4 \\
        --agents heuristic,random,random,random --games 2000 --seed 0 --workers 2 \\
        --json out.json --plot out.png

Every input and output path is checked before the first game
(:mod:`grove_env.agents.cli.command_line`): a mistake is one line on stderr, exit 2 for a
usage error and 1 for a failure.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ..arena.tournament import TRUNCATED_MODES, TournamentError, check_setup, run_tournament
from .command_line import (
    EXIT_HELP,
    CommandError,
    Parser,
    agent_specs,
    build_agent,
    check_json_and_plot,
    parse_and_run,
    refuse_human,
    specs_help,
    usage_error,
    write_output,
)

PROG = "grove-tournament"
EPILOG = (
    specs_help("--agent", "--agents a,b,c")
    + "\n"
    + EXIT_HELP.format(
        failure="a model file missing or damaged,\nan output path that cannot be written, "
        "an agent that fails in a game"
    )
)


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog=PROG,
        description="Play In a Grove games between agents with rotating seats; report win "
        "shares (Wilson 95% intervals) and OpenSkill ratings.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--rules", default="classic", help="classic (default) or revised")
    p.add_argument("--players", type=int, default=4, help="table size (default 4)")
    agents = p.add_mutually_exclusive_group(required=True)
    agents.add_argument(
        "--agent",
        action="append",
        metavar="SPEC",
        help="one table position's agent; repeat it, once per position "
        "(e.g. --agent heuristic:noise=0.2,aim=1 --agent random ...)",
    )
    agents.add_argument(
        "--agents",
        metavar="A,B,...",
        help="comma-separated specs without options, one per table position, "
        "e.g. heuristic,random,random,random",
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
    return parse_and_run(PROG, build_parser(), _run, argv)


def _check_inputs(args: argparse.Namespace) -> list[str]:
    """The specs, once every input and output is known good (:class:`CommandError`)."""
    specs = agent_specs(args.agent, args.agents)
    refuse_human(specs, "a tournament has no seat for a person; play one with grove-play")
    try:
        check_setup(
            specs, args.rules, args.players, args.games, args.seed, args.workers, args.max_rounds
        )
    except ValueError as exc:
        raise usage_error(str(exc)) from None
    for spec in dict.fromkeys(specs):
        build_agent(spec, seed=args.seed)
    check_json_and_plot(args.json, args.plot)
    return specs


def _run(args: argparse.Namespace) -> int:
    specs = _check_inputs(args)
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
        raise usage_error(str(exc)) from None
    except TournamentError as exc:
        raise CommandError(f"an agent failed: {exc}") from None
    if result.games != result.games_requested:
        print(
            f"note: {result.games_requested} games rounded up to {result.games}, "
            f"a multiple of {result.num_players} players, so every entry plays every seat "
            "equally often",
            file=sys.stderr,
        )
    print(result.table(), flush=True)
    if args.json:
        write_output(result.save_json, args.json, "--json")
        print(f"wrote {args.json}")
    if args.plot:
        write_output(result.plot, args.plot, "--plot")
        print(f"wrote {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
