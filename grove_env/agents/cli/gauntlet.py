"""``grove-gauntlet``: the command line of :mod:`grove_env.agents.arena.gauntlet`.

::

    python -m grove_env.agents.cli.gauntlet --agent heuristic --rules classic --players 4 \\
        --games 2000 --seed 0 --workers 2 --json gauntlet.json --plot gauntlet.png
    grove-gauntlet --agent heuristic --opponents random --rules all --players all

``--opponents`` replaces the lineup of styles (say the agent against ``N - 1`` random
seats), and ``--rules``/``--players`` take a comma list or ``all``: every table the
rule sets allow, one gauntlet each (``--json`` then writes ``{"tables": [...]}``).

Everything is checked before the first game; a mistake is one line on stderr, exit 2
for a usage error and 1 for a failure (:mod:`grove_env.agents.cli.command_line`).
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Sequence

from grove_env.rules import RULE_SETS, get_rules

from ..arena.gauntlet import run_gauntlet, save_json
from ..arena.tournament import TournamentError, check_setup
from ..base import table_refusal
from .command_line import (
    EXIT_HELP,
    CommandError,
    Parser,
    agent_specs,
    build_agent,
    check_json_and_plot,
    parse_and_run,
    refuse_human,
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
    p.add_argument(
        "--opponents", metavar="A,B,...", help="opponent specs (default: the gauntlet's lineup)"
    )
    p.add_argument(
        "--rules", default="classic", help="classic (default), revised, a comma list or all"
    )
    p.add_argument("--players", default="4", help="table size (default 4), a comma list or all")
    p.add_argument(
        "--games", type=int, default=2000, help="games per opponent style (default 2000)"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of every cell (default 0)")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--json", metavar="PATH", help="write the result as JSON")
    p.add_argument("--plot", metavar="PATH", help="write a win-share bar chart (PNG)")
    return p


def tables_of(rules: str, players: str) -> list[tuple[str, int]]:
    """The ``(rules, players)`` tables named by ``--rules`` and ``--players``
    (:class:`CommandError` for a name or count no rule set allows)."""
    names = sorted(RULE_SETS) if rules.strip() == "all" else [r.strip() for r in rules.split(",")]
    wanted: list[int] | None = None
    if players.strip() != "all":
        counts = [p.strip() for p in players.split(",")]
        if not all(c.isascii() and c.isdigit() and len(c) < 3 for c in counts):
            raise usage_error(f"--players takes a count, a comma list or all, got {players!r}")
        wanted = [int(c) for c in counts]
    tables = []
    for name in names:
        try:
            rule_set = get_rules(name)
            for n in wanted if wanted is not None else rule_set.player_counts:
                tables.append((rule_set.name, rule_set.check_players(n)))
        except ValueError as exc:
            raise usage_error(str(exc)) from None
    return tables


def _check_inputs(
    args: argparse.Namespace,
) -> tuple[str, list[str] | None, list[tuple[str, int]]]:
    """The agent's spec, the opponents and the tables, once every input and output is
    known good (:class:`CommandError`)."""
    (spec,) = agent_specs([args.agent], None)
    opponents = None if args.opponents is None else agent_specs([], args.opponents)
    no_seat = "the gauntlet has no seat for a person; play one with grove-play"
    refuse_human([spec, *(opponents or [])], no_seat)
    tables = tables_of(args.rules, args.players)
    if args.plot and len(tables) > 1:
        raise usage_error(f"--plot draws one table, but {len(tables)} were asked for")
    for (rules, n), opponent in itertools.product(tables, opponents or [spec]):
        try:
            entries = [spec] + [opponent] * (n - 1)
            check_setup(entries, rules, n, args.games, args.seed, args.workers, max_rounds=100)
        except ValueError as exc:
            raise usage_error(str(exc)) from None
        for who in {spec, opponent}:  # cfr, say, plays where its solution ships
            refusal = table_refusal(who, rules, n)
            if refusal is not None:
                raise usage_error(refusal)
    build_agent(spec, seed=args.seed)
    for opponent in opponents or []:
        build_agent(opponent, seed=args.seed)
    check_json_and_plot(args.json, args.plot)
    return spec, opponents, tables


def _run(args: argparse.Namespace) -> int:
    spec, opponents, tables = _check_inputs(args)
    results = []
    for rules, n in tables:
        try:
            result = run_gauntlet(
                spec, rules, n, args.games, args.seed, args.workers, opponents=opponents
            )
        except ValueError as exc:
            raise usage_error(str(exc)) from None
        except TournamentError as exc:
            raise CommandError(f"an agent failed: {exc}") from None
        print(result.table(), "", sep="\n", flush=True)
        results.append(result)
    if args.json:
        if len(results) == 1:
            write_output(results[0].save_json, args.json, "--json")
        else:
            every = {"tables": [r.to_dict() for r in results]}
            write_output(lambda path: save_json(every, path), args.json, "--json")
        print(f"wrote {args.json}")
    if args.plot:
        write_output(results[0].plot, args.plot, "--plot")
        print(f"wrote {args.plot}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return parse_and_run(PROG, build_parser(), _run, argv)


if __name__ == "__main__":
    sys.exit(main())
