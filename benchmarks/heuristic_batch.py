"""Decisions per second of the heuristic, one observation at a time and in a batch.

The positions are the decisions of random legal play on one table (``grove_v1``,
every phase, the seat to act), collected once. ``single`` times ``agent.act`` on each
of them in turn; ``batch`` times one ``agent.act_batch`` call on ``K`` of them at
once. Every repeat measures both, so that load from other processes falls on them
alike, and the table shows the median rate of each over ``--repeats`` and the ratio
of the medians. Each repeat uses a fresh agent, so ``single`` never meets a position
it has decided before; one untimed batch call first builds the agent's tables.

Usage::

    python benchmarks/heuristic_batch.py --rules classic --players 4 --batch 1024 --repeats 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import numpy as np

from grove_env.agents.arena.match import decision_positions
from grove_env.agents.base import make_agent


def measure(spec: str, obs: np.ndarray, masks: np.ndarray, single_rows: int) -> tuple[float, float]:
    """``(single, batch)`` decisions per second of the agent ``spec`` on these positions."""
    agent = make_agent(spec)
    # Outside the timing: build the agent's tables and touch the batch's work memory
    # once (a batched caller such as the vector environment calls it every step).
    # ``act_batch`` does not fill the memory of single decisions that ``act`` keeps.
    agent.act_batch(obs, masks)
    start = time.perf_counter()
    for o, m in zip(obs[:single_rows], masks[:single_rows]):
        agent.act({"observation": o, "action_mask": m})
    single = single_rows / (time.perf_counter() - start)
    start = time.perf_counter()
    agent.act_batch(obs, masks)
    batch = len(obs) / (time.perf_counter() - start)
    return single, batch


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--agent", default="heuristic", help="agent spec (default: heuristic)")
    p.add_argument("--rules", default="classic")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--batch", type=int, default=1024, help="K, observations per batch call")
    p.add_argument("--single", type=int, default=256, help="observations timed one by one")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--json", default=None, help="also write the figures to this file")
    args = p.parse_args(argv)
    if args.batch < 1 or args.single < 1 or args.repeats < 1:
        p.error("--batch, --single and --repeats must be at least 1")
    obs, masks = decision_positions(args.rules, args.players, max(args.batch, args.single))
    runs = [
        measure(args.agent, obs[: args.batch], masks[: args.batch], args.single)
        for _ in range(args.repeats)
    ]
    single = statistics.median(r[0] for r in runs)
    batch = statistics.median(r[1] for r in runs)
    print(f"{args.agent} on {args.rules} {args.players}p, median of {args.repeats} repeats")
    print(f"single: {single:12,.0f} decisions/s ({args.single} observations one by one)")
    print(f"batch:  {batch:12,.0f} decisions/s (K = {args.batch})")
    print(f"ratio:  {batch / single:12.1f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"single": single, "batch": batch, "ratio": batch / single}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
