"""``grove-league``: the command line of :mod:`grove_env.agents.arena.league`.

::

    grove-league --rules classic --players 4 --games 2000 --results league-classic-4p.json
    grove-league --rules classic --players 4 --agent myagent --games 4000 --results l.json

Every shipped agent that sits at the table joins the pool, and each ``--agent SPEC``
(repeated) adds one. ``--results`` keeps every game: run the command again with more
``--games`` and it plays only the missing blocks, then rates all of them. ``--json``
writes the ratings (what ``scripts/record_result.py`` keeps for the results pages).
Everything is checked before the first game; a mistake is one line on stderr, exit 2
for a usage error and 1 for a failure (:mod:`grove_env.agents.cli.command_line`).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from grove_env.messages import describe

from ..arena.gauntlet import save_json
from ..arena.league import LeagueFile, league_pool, run_league
from ..arena.tournament import TournamentError
from ..base import table_refusal
from .command_line import (
    EXIT_HELP,
    CommandError,
    Parser,
    agent_specs,
    build_agent,
    check_output,
    parse_and_run,
    refuse_human,
    usage_error,
    write_output,
)
from .gauntlet import tables_of

PROG = "grove-league"


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog=PROG,
        description="Play the shipped agents (and any --agent) against each other in\n"
        "seat-rotated games and fit Bradley-Terry ratings to the pairwise results by\n"
        "final rank (random = 0, bootstrap 95% intervals).",
        epilog=EXIT_HELP.format(
            failure="a model file missing or damaged, a results file\nof another league, "
            "an output path that cannot be written, an agent that fails in a game"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--rules", default="classic", help="classic (default) or revised")
    p.add_argument("--players", default="4", help="table size (default 4)")
    p.add_argument("--agent", action="append", metavar="SPEC", help="add an agent to the pool")
    p.add_argument(
        "--games", type=int, default=2000, help="games in all, kept ones included (default 2000)"
    )
    p.add_argument("--seed", type=int, default=0, help="league seed (default 0)")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--bootstrap", type=int, default=200, help="bootstrap samples (default 200)")
    p.add_argument("--results", metavar="PATH", help="keep the games here and resume from them")
    p.add_argument("--json", metavar="PATH", help="write the ratings as JSON")
    return p


def check_choix() -> None:
    """A failure now, not after the games, if the fit's library is missing."""
    try:
        import choix  # noqa: F401 - only to see that it loads
    except ImportError as exc:
        why = f"the league needs choix (pip install 'grove-env[agents]'): {describe(exc)}"
        raise CommandError(why) from None


def _check_inputs(args: argparse.Namespace) -> tuple[str, int, list[str]]:
    """The table and the added specs, once every input and output is known good."""
    check_choix()
    tables = tables_of(args.rules, args.players)
    if len(tables) != 1:
        raise usage_error(f"a league plays one table, but {len(tables)} were asked for")
    (rules, n), extra = tables[0], agent_specs(args.agent or [], None) if args.agent else []
    refuse_human(extra, "the league has no seat for a person; play one with grove-play")
    for spec in extra:
        refusal = table_refusal(spec, rules, n)
        if refusal is not None:
            raise usage_error(refusal)
        build_agent(spec, seed=args.seed)
    least = (("games", 1), ("workers", 1), ("bootstrap", 10), ("seed", 0))
    for name, low in least:
        value = getattr(args, name)
        if value < low:
            raise usage_error(f"--{name} must be at least {low}, got {value}")
    for option, path in (("--results", args.results), ("--json", args.json)):
        if path is not None:
            check_output(path, option)
    if args.results is not None and Path(args.results).exists():
        try:
            kept = LeagueFile.load(args.results)
            pool, _ = league_pool(rules, n, extra)
            kept.check_matches(LeagueFile(rules, n, args.seed, pool), args.results)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
    return rules, n, extra


def _run(args: argparse.Namespace) -> int:
    rules, n, extra = _check_inputs(args)
    start = time.monotonic()
    try:
        result = run_league(
            rules, n, args.games, args.seed, extra, args.results, args.workers, args.bootstrap
        )
    except ValueError as exc:
        raise CommandError(describe(exc)) from None
    except TournamentError as exc:
        raise CommandError(f"an agent failed: {exc}") from None
    print(result.table())
    print(f"took {time.monotonic() - start:.0f} s", flush=True)
    if args.json:
        summary = result.to_dict()
        summary["seconds"] = round(time.monotonic() - start, 1)
        write_output(lambda path: save_json(summary, path), args.json, "--json")
        print(f"wrote {args.json}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return parse_and_run(PROG, build_parser(), _run, argv)


if __name__ == "__main__":
    sys.exit(main())
