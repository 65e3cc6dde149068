"""Play In a Grove against agents in the terminal (also installed as ``grove-play``).

::

    python -m grove_env.agents.play --players 4 --opponents heuristic [--rules classic] [--seat 0]

On your turn you see the public table (every seat as ``P0``, ``P1``, ...), what your
seat knows (seats written relative to you: ``seat +1`` is the next seat clockwise),
and your legal moves by number and name. Every move at the table is announced, and
after each round the reveal and where the markers went; at the end, the standings.
``--opponents`` takes one spec for every other seat or a comma-separated list, one
per other seat in clockwise order from yours. Without ``--opponents`` you play the
``heuristic`` agent where it is installed, else ``random``.
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

RESULT_ROW = {
    "classic": "fewest markers held (both faces) is best",
    "revised": "most penalty markers is worst; the rest rank by fewest penalty markers",
}


def default_opponent() -> str:
    """``heuristic`` where its module imports, else ``random``."""
    try:
        make_agent("heuristic", seed=0)
    except ImportError:
        return "random"
    return "heuristic"


def opponent_specs(text: str | None, num_players: int) -> list[str]:
    """One spec per other seat from ``--opponents`` (a single spec is repeated)."""
    specs = [s.strip() for s in (text or default_opponent()).split(",")]
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
        env.reset(seed=self.seed)
        self.intro()
        shown_rounds = 0
        current_round = 0
        last_seat = None
        while True:
            name = env.agent_selection
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                break
            game = env.game
            assert game is not None
            if game.round != current_round:
                current_round = game.round
                first = self.who(game.first_player)
                self.say(f"\n=== Round {current_round}: {first} goes first ===")
            seat = env.agent_name_mapping[name]
            if seat == self.seat:
                if last_seat != seat:  # the first player's later decisions change nothing public
                    self.say("\n--- Your turn. The table (public) ---")
                    self.say(describe_table(game, reveal=False))
                action = self.human.act(obs)
            else:
                action = int(self.agents[seat].act(obs))
            env.step(action)
            last_seat = seat
            self.say(f"{self.who(seat)}: {action_name(action)}")
            if len(game.history) > shown_rounds:
                shown_rounds = len(game.history)
                self.say(describe_round(game.history[-1], self.rules))
        self.final(truncated=bool(env.truncations[env.agent_selection]))

    def final(self, truncated: bool) -> None:
        env = self.env
        game = env.game
        assert game is not None
        infos = env.infos
        standings = [int(infos[a]["standings"]) for a in env.possible_agents]
        scores = infos[env.possible_agents[0]]["scores"]
        rounds = len(game.history)
        if truncated:
            self.say(f"\nThe game was cut off after {rounds} rounds; standings so far.")
        else:
            ended = ", ".join(f"P{s}" for s in infos[env.possible_agents[0]]["ended_by"])
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
        "(default: heuristic if installed, else random)",
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
    except KeyboardInterrupt:
        human.say("\nInterrupted; leaving the game.")
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
