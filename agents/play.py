"""Play In a Grove against agents in the terminal (also installed as ``grove-play``).

::

    python -m grove_env.agents.play --players 4 --opponents heuristic [--rules classic] [--seat 0]

On your turn you see the public table (every seat as ``P0``, ``P1``, ...), what your
seat knows (seats written relative to you: ``seat +1`` is the next seat clockwise),
and your legal moves by number and name. Every move at the table is announced, and
after each round the reveal and where the markers went; at the end, the standings.
``--opponents`` takes one spec for every other seat or a comma-separated list, one
per other seat in clockwise order from yours. Without ``--opponents`` you play the
``heuristic`` agent.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from typing import TextIO

import numpy as np

from grove_env.actions import action_name
from grove_env.grove_v0 import raw_env
from grove_env.rules import get_rules
from grove_env.text import describe_round, describe_table

from .base import Agent, make_agent, parse_spec
from .human import HumanAgent, HumanQuit
from .match import GameResult, IllegalActionError, Observation, Step, play_game

DEFAULT_OPPONENT = "heuristic"
RESULT_ROW = {
    "classic": "fewest markers held (both faces) is best",
    "revised": "most penalty markers is worst; the rest rank by fewest penalty markers",
}


def opponent_specs(text: str | None, num_players: int) -> list[str]:
    """One spec per other seat from ``--opponents`` (a single spec is repeated)."""
    specs = [s.strip() for s in (text or DEFAULT_OPPONENT).split(",")]
    if len(specs) == 1:
        specs *= num_players - 1
    if len(specs) != num_players - 1:
        raise ValueError(
            f"{num_players} players need 1 or {num_players - 1} opponent specs, "
            f"got {len(specs)}: {specs}"
        )
    for spec in specs:
        name, _ = parse_spec(spec)
        if name == "human":
            raise ValueError("opponents cannot be 'human' here: one person per terminal")
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
            try:
                self.agents[other] = make_agent(spec, seed=int(seeds[other]))
            except ImportError as exc:
                raise ValueError(f"agent {spec!r} is not available here: {exc}") from None
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
    p = argparse.ArgumentParser(prog="grove-play", description="Play In a Grove against agents.")
    p.add_argument("--players", type=int, default=4, help="table size (default 4)")
    p.add_argument(
        "--opponents",
        default=None,
        help="one spec for every other seat, or one per other seat clockwise from yours "
        "(default: heuristic)",
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
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    try:
        rules = get_rules(args.rules)
        rules.check_players(args.players)
        if not 0 <= args.seat < args.players:
            raise ValueError(f"--seat must be in 0..{args.players - 1}, got {args.seat}")
        if seed < 0 or args.max_rounds < 1:
            raise ValueError("--seed must be >= 0 and --max-rounds >= 1")
        opponents = opponent_specs(args.opponents, args.players)
        human = make_agent("human", stdin=stdin, stdout=stdout)
        assert isinstance(human, HumanAgent)
        table = Table(human, args.seat, opponents, args.players, rules.name, seed, args.max_rounds)
    except ValueError as exc:
        print(f"grove-play: error: {exc}", file=sys.stderr)
        return 2
    try:
        table.play()
    except HumanQuit as exc:
        human.say(f"Leaving the game: {exc}. (Replay this deal with --seed {seed}.)")
    except IllegalActionError as exc:
        print(f"grove-play: an agent failed: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        human.say("\nInterrupted; leaving the game.")
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
