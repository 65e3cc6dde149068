"""What a seat's past rounds show about its style: how often it accuses the culprit.

Plays ``--games`` games with every seat played by the same agent, through
``grove_v1``, and reports for each agent spec: the share of accusations that named the
culprit, the markers a seat loses a round to innocent stacks (in ``classic`` the only
way a coloured marker leaves a seat's hand for good; in ``revised`` every placed
marker leaves, so it is 1), the penalty markers a seat takes a round, and the mean
number of rounds a game lasts. These are what an opponent model could learn from the
earlier rounds of a game (every seat sees the round results), so they say how fast a
seat's style could be told apart.

    python scripts/seat_record.py --specs random heuristic contrarian --games 500
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from grove_env import grove_v1  # noqa: E402
from grove_env.agents.arena.match import play_game  # noqa: E402
from grove_env.agents.base import make_agent  # noqa: E402
from grove_env.agents.cli.command_line import (  # noqa: E402
    Parser,
    build_agent,
    refuse_human,
    run_command,
    usage_error,
)
from grove_env.rules import get_rules  # noqa: E402

PROG = "seat_record.py"


def record(spec: str, rules: str, num_players: int, games: int, seed: int) -> dict[str, float]:
    """Per-seat round statistics of ``games`` games of ``num_players`` × ``spec``, read
    from each game's round records (:attr:`grove_env.core.Game.history`)."""
    hits = accusations = lost = taken = rounds = 0
    for g in range(games):
        env = grove_v1.raw_env(num_players=num_players, rules=rules)
        agents = [make_agent(spec, seed=(seed + g) * num_players + i) for i in range(num_players)]
        play_game(env, agents, seed + g)
        assert env.game is not None
        # every seat starts with all its markers coloured; coloured ones only leave a
        # hand, penalty ones only come
        coloured = (env.game.rules.markers_per_player,) * num_players
        penalty = (0,) * num_players
        for r in env.game.history:
            hits += len(r.stacks[r.culprit])
            accusations += sum(len(stack) for stack in r.stacks)
            lost += sum(before - now for before, now in zip(coloured, r.coloured))
            taken += sum(now - before for before, now in zip(penalty, r.penalty))
            coloured, penalty = r.coloured, r.penalty
            rounds += 1
    seat_rounds = max(rounds * num_players, 1)
    return {
        "culprit share": hits / max(accusations, 1),
        "lost a round": lost / seat_rounds,
        "penalty a round": taken / seat_rounds,
        "rounds a game": rounds / games,
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = Parser(prog=PROG, description=__doc__.split("\n")[0])
    parser.add_argument("--specs", nargs="+", default=["random", "heuristic"])
    parser.add_argument("--rules", default="classic")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=500, help="games per agent")
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args(argv)


def check(args: argparse.Namespace) -> None:
    """Refuse a bad option with one line, before any game is played."""
    if args.games < 1:
        raise usage_error(f"--games must be >= 1, got {args.games}")
    if args.seed < 0:
        raise usage_error(f"--seed must be >= 0, got {args.seed}")
    try:
        get_rules(args.rules).check_players(args.players)
    except ValueError as exc:
        raise usage_error(str(exc)) from None
    refuse_human(args.specs, "this script has no seat for a person")
    for spec in args.specs:
        build_agent(spec, seed=args.seed)


def report(args: argparse.Namespace) -> int:
    check(args)
    print(f"{args.rules}, {args.players} players, {args.games} games per agent, every seat alike")
    print(f"{'agent':16} culprit share  lost a round  penalty a round  rounds a game")
    for spec in args.specs:
        r = record(spec, args.rules, args.players, args.games, args.seed)
        print(
            f"{spec:16} {r['culprit share']:13.3f} {r['lost a round']:13.3f} "
            f"{r['penalty a round']:16.3f} {r['rounds a game']:14.2f}",
            flush=True,
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    return run_command(PROG, lambda: report(args))


if __name__ == "__main__":
    sys.exit(main())
