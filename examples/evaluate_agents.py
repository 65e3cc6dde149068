"""Evaluate an agent from Python: one tournament table, then a gauntlet.

    python examples/evaluate_agents.py --agent greedy --games 60

``run_tournament`` plays one lineup (one agent spec per seat, seats rotated) and ranks
the entries; ``run_gauntlet`` plays the agent against ``n - 1`` copies of each opponent
and reports each win share with its 95% interval. Any agent spec works, for example
``heuristic``, ``zoo:revised-3p`` (a shipped policy) or ``ppo:runs/smoke-s0-<time>``
(your run). At 60 games the intervals are wide; the results pages use thousands.
"""

from __future__ import annotations

import argparse

from grove_env.agents.arena.gauntlet import run_gauntlet
from grove_env.agents.arena.tournament import run_tournament


def main() -> None:
    parser = argparse.ArgumentParser(description="A tournament table and a gauntlet.")
    parser.add_argument("--agent", default="greedy", help="the agent spec to evaluate")
    parser.add_argument("--games", type=int, default=60, help="games per table")
    args = parser.parse_args()

    # One table: the agent and two random seats at revised rules, 3 players.
    table = run_tournament(
        [args.agent, "random", "random"], rules="revised", num_players=3, games=args.games
    )
    print(table.table())

    # The gauntlet: the agent against 2 copies of each opponent, here random only.
    gauntlet = run_gauntlet(
        args.agent, rules="revised", num_players=3, games=args.games // 2, opponents=["random"]
    )
    print(gauntlet.table())


if __name__ == "__main__":
    main()
