"""Play In a Grove against agents in the terminal (also installed as ``grove-play``).

::

    python -m grove_env.agents.cli.play --players 4 --opponents heuristic \\
        [--rules classic] [--seat 0]

On your turn you see the public table (every seat as ``P0``, ``P1``, ...), what your
seat knows (seats written relative to you: ``seat +1`` is the next seat clockwise),
and your legal moves by number and name. Every move at the table is announced, and
after each round the reveal and where the markers went; at the end, the standings.
``--opponent SPEC`` names the agent of one other seat; repeat it, once per other seat
in clockwise order from yours, or give it once for every other seat. ``--opponents``
is short for specs without options (one spec, or a comma-separated list); a spec such
as ``heuristic:noise=0.2,aim=1`` has commas of its own and needs ``--opponent``.
Without either you play the ``heuristic`` agent.

Every option and agent is checked before the game (model files are read then); a
mistake is one line on stderr, exit 2 for a usage error and 1 for a failure (see
:mod:`grove_env.agents.cli.command_line`). A line you type that is not a move (any text,
a sign too many, a digit of another script, a huge number, an empty line) is
explained and the prompt comes again; the game is never lost to it.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from typing import TextIO

import numpy as np

from grove_env.actions import action_name
from grove_env.grove_v1 import raw_env
from grove_env.rules import get_rules
from grove_env.text import describe_round, describe_table

from ..arena.match import GameResult, IllegalActionError, Observation, Step, play_game
from ..base import Agent
from .command_line import (
    EXIT_HELP,
    INTERRUPTED,
    CommandError,
    Parser,
    agent_specs,
    build_agent,
    refuse_human,
    run_command,
    specs_help,
    usage_error,
)
from .human import HumanAgent, HumanQuit

PROG = "grove-play"
DEFAULT_OPPONENT = "heuristic"
RESULT_ROW = {
    "classic": "fewest markers held (both faces) is best",
    "revised": "most penalty markers is worst; the rest rank by fewest penalty markers",
}


def opponent_specs(
    text: str | None, num_players: int, repeated: Sequence[str] | None = None
) -> list[str]:
    """One spec per other seat from ``--opponent`` flags or ``--opponents`` (one is repeated).

    Raises :class:`~grove_env.agents.cli.command_line.CommandError` (a usage error).
    """
    listed = text if text is not None or repeated else DEFAULT_OPPONENT
    specs = agent_specs(repeated, listed, flag="--opponent")
    if len(specs) == 1:
        specs *= num_players - 1
    if len(specs) != num_players - 1:
        raise usage_error(
            f"{num_players} players need 1 or {num_players - 1} opponent specs, "
            f"got {len(specs)}: {specs}"
        )
    refuse_human(specs, "opponents cannot be 'human' here: one person per terminal")
    return specs


class Table:
    """One game between the person at ``seat`` and agents in the other seats."""

    def __init__(
        self,
        human: HumanAgent,
        seat: int,
        opponents: Sequence[str],
        num_players: int,
        rules: str,
        seed: int,
        max_rounds: int = 100,
    ) -> None:
        self.human, self.seat, self.seed = human, seat, seed
        self.env = raw_env(num_players=num_players, rules=rules, max_rounds=max_rounds)
        self.rules = self.env.rule_set.name
        self.n = num_players
        self.agents: dict[int, Agent] = {}
        self.labels: dict[int, str] = {seat: "you"}
        self.current_round = 0  # the round whose header was shown last
        self.last_seat: int | None = None  # who moved last
        others = [(seat + k) % num_players for k in range(1, num_players)]
        seeds = np.random.SeedSequence([seed, 1]).generate_state(num_players, np.uint64)
        for other, spec in zip(others, opponents):
            self.agents[other] = build_agent(spec, seed=int(seeds[other]))
            self.labels[other] = spec

    def say(self, text: str = "") -> None:
        self.human.say(text)

    def who(self, seat: int) -> str:
        return f"P{seat} ({self.labels[seat]})"

    def intro(self) -> None:
        self.say(
            f"In a Grove, {self.rules} rules, {self.n} players, seed {self.seed}. "
            f"You are P{self.seat}."
        )
        self.say("At the table: " + ", ".join(self.who(s) for s in range(self.n)))
        rel = ", ".join(f"seat +{k} = P{(self.seat + k) % self.n}" for k in range(1, self.n))
        self.say(f"In your own view seats are relative to you: {rel}.")
        self.say(f"Result: {RESULT_ROW.get(self.rules, 'see the rules')}.")

    def play(self) -> None:
        env = self.env
        self.intro()
        self.current_round, self.last_seat = 0, None
        seats: list[Agent] = [self.agents.get(s, self.human) for s in range(self.n)]
        result = play_game(env, seats, self.seed, before_act=self.show, after_step=self.announce)
        self.final(result)

    def show(self, seat: int, observation: Observation) -> None:
        """Before a move: a new round's header, and the public table before your turn."""
        game = self.env.game
        assert game is not None
        if game.round != self.current_round:
            self.current_round = game.round
            self.say(f"\n=== Round {game.round}: {self.who(game.first_player)} goes first ===")
        # the first player's later decisions change nothing public: show the table once
        if seat == self.seat and self.last_seat != seat:
            self.say("\n--- Your turn. The table (public) ---")
            self.say(describe_table(game, reveal=False))

    def announce(self, step: Step) -> None:
        """After a move: who did what, and the reveal when it ended a round."""
        game = self.env.game
        assert game is not None
        self.last_seat = step.seat
        self.say(f"{self.who(step.seat)}: {action_name(step.action)}")
        if step.round_ended:
            self.say(describe_round(game.history[-1], self.rules))

    def final(self, result: GameResult) -> None:
        game = self.env.game
        assert game is not None
        standings, scores = result.standings, result.scores
        rounds = len(game.history)
        if result.truncated:
            self.say(f"\nThe game was cut off after {rounds} rounds; standings so far.")
        else:
            ended = ", ".join(f"P{s}" for s in result.ended_by)
            self.say(f"\nGame over after {rounds} rounds (the end was triggered by {ended}).")
        self.say(f"Final standings (1 is best; {RESULT_ROW.get(self.rules, '')}):")
        for seat in sorted(range(self.n), key=lambda s: (standings[s], s)):
            self.say(
                f"  {standings[seat]}. {self.who(seat):<16} score {scores[seat]} "
                f"(coloured {game.coloured[seat]}, penalty {game.penalty[seat]})"
            )
        mine = standings[self.seat]
        tied = sum(1 for r in standings if r == mine) > 1
        self.say(f"You finished {mine} of {self.n}{' (shared)' if tied else ''}.")


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog=PROG,
        description="Play In a Grove against agents.",
        epilog=specs_help("--opponent", "--opponents a,b,c", "other seat (or once for all)")
        + "\n"
        + EXIT_HELP.format(failure="a model file missing or damaged, an agent failing"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--players", type=int, default=4, help="table size (default 4)")
    opponents = p.add_mutually_exclusive_group()
    opponents.add_argument(
        "--opponent",
        action="append",
        metavar="SPEC",
        help="the agent of one other seat, clockwise from yours; repeat it once per other "
        "seat, or give it once for all (e.g. --opponent heuristic:noise=0.2,aim=1)",
    )
    opponents.add_argument(
        "--opponents",
        default=None,
        metavar="A,B,...",
        help="specs without options: one for every other seat, or one per other seat "
        "clockwise from yours (default: heuristic)",
    )
    p.add_argument("--rules", default="classic", help="classic (default) or revised")
    p.add_argument("--seat", type=int, default=0, help="your seat; seat 0 goes first (default 0)")
    p.add_argument("--seed", type=int, default=None, help="game seed (default: a random one)")
    p.add_argument("--max-rounds", type=int, default=100, help="round limit (default 100)")
    return p


def main(
    argv: Sequence[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None
) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # argparse has printed its message
        return int(exc.code or 0)
    if stdin is None:
        forgiving(sys.stdin, "replace")  # a line that is not valid text is a bad move, no more
    if stdout is None:
        forgiving(sys.stdout, "backslashreplace")
    return run_command(PROG, lambda: _play(args, stdin, stdout))


def forgiving(stream: TextIO, errors: str) -> None:
    """Let a terminal stream replace what it cannot decode or encode instead of raising."""
    reconfigure = getattr(stream, "reconfigure", None)
    if callable(reconfigure):
        reconfigure(errors=errors)


def _set_table(args: argparse.Namespace, seed: int, human: HumanAgent) -> Table:
    """The table, once every option and agent is known good (a :class:`CommandError`)."""
    try:
        rules = get_rules(args.rules)
        rules.check_players(args.players)
    except ValueError as exc:
        raise usage_error(str(exc)) from None
    if not 0 <= args.seat < args.players:
        raise usage_error(f"--seat must be in 0..{args.players - 1}, got {args.seat}")
    if seed < 0 or args.max_rounds < 1:
        raise usage_error("--seed must be >= 0 and --max-rounds >= 1")
    opponents = opponent_specs(args.opponents, args.players, args.opponent)
    return Table(human, args.seat, opponents, args.players, rules.name, seed, args.max_rounds)


def _play(args: argparse.Namespace, stdin: TextIO | None, stdout: TextIO | None) -> int:
    if (stdin or sys.stdin) is None or (stdout or sys.stdout) is None:
        raise CommandError("standard input or output is closed: nothing to play with")
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    human = HumanAgent(stdin=stdin, stdout=stdout)
    table = _set_table(args, seed, human)
    try:
        table.play()
    except HumanQuit as exc:
        human.say(f"Leaving the game: {exc}. (Replay this deal with --seed {seed}.)")
    except IllegalActionError as exc:
        raise CommandError(f"an agent failed: {exc}") from None
    except KeyboardInterrupt:
        human.say("\nInterrupted; leaving the game.")
        return INTERRUPTED
    return 0


if __name__ == "__main__":
    sys.exit(main())
