"""Decisions per second of the heuristic, one observation at a time and in a batch,
and of its batch against the code before issue 55.

The positions are the decisions of random legal play on one table (``grove_v1``,
every phase, the seat to act), collected once. ``single`` times ``agent.act`` on each
of them in turn; ``batch`` times one ``agent.act_batch`` call on ``K`` of them at
once. Every repeat measures both, so that load from other processes falls on them
alike, and the table shows the median rate of each over ``--repeats`` and the ratio
of the medians. Each repeat uses a fresh agent, so ``single`` never meets a position
it has decided before; one untimed batch call first builds the agent's tables.

For the heuristic, each repeat also times the same ``act_batch`` call of the search as
it was before issue 55 (:mod:`heuristic_before`, kept here for this comparison only),
right after the new one: ``old`` and ``new`` are the medians in milliseconds per call
(and in CPU milliseconds, steadier on a loaded machine), ``speed-up`` their ratio, and
the old and new actions must be identical (the command fails where they are not).

Usage::

    python benchmarks/heuristic_batch.py --rules classic --players 4 --batch 4096 --repeats 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import numpy as np
from heuristic_before import OldHeuristicAgent

from grove_env.agents.arena.match import decision_positions
from grove_env.agents.base import BaseAgent, make_agent
from grove_env.agents.heuristic.search import HeuristicAgent


def timed_batch(
    agent: BaseAgent, obs: np.ndarray, masks: np.ndarray
) -> tuple[float, float, np.ndarray]:
    """``(seconds, CPU seconds, actions)`` of one ``act_batch`` call."""
    start, cpu = time.perf_counter(), time.process_time()
    actions = agent.act_batch(obs, masks)
    return time.perf_counter() - start, time.process_time() - cpu, actions


def measure(spec: str, obs: np.ndarray, masks: np.ndarray, single_rows: int) -> dict[str, float]:
    """One repeat: ``single`` and ``batch`` decisions per second of the agent ``spec`` on
    these positions, and for the heuristic the ``old`` and ``new`` seconds of the batch
    call (``_cpu``: its CPU seconds) and whether their actions are ``identical`` (1.0)
    or not (0.0)."""
    agent = make_agent(spec)
    # Outside the timing: build the agent's tables and touch the batch's work memory
    # once (a batched caller such as the vector environment calls it every step).
    # ``act_batch`` does not fill the memory of single decisions that ``act`` keeps.
    agent.act_batch(obs, masks)
    start = time.perf_counter()
    for o, m in zip(obs[:single_rows], masks[:single_rows]):
        agent.act({"observation": o, "action_mask": m})
    single = single_rows / (time.perf_counter() - start)
    new, new_cpu, actions = timed_batch(agent, obs, masks)
    out = {"single": single, "batch": len(obs) / new}
    if isinstance(agent, HeuristicAgent):
        old_agent = OldHeuristicAgent(agent.params)
        old_agent.act_batch(obs, masks)  # its tables too, outside the timing
        old, old_cpu, old_actions = timed_batch(old_agent, obs, masks)
        out |= {"old": old, "new": new, "old_cpu": old_cpu, "new_cpu": new_cpu}
        out["identical"] = float(np.array_equal(actions, old_actions))
    return out


def summary(runs: list[dict[str, float]]) -> dict[str, float]:
    """The medians over the repeats, the ratios of the medians, and ``identical`` where
    every repeat's actions were."""
    out = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    out["ratio"] = out["batch"] / out["single"]
    if "old" in out:
        out["speedup"] = out["old"] / out["new"]
        out["speedup_cpu"] = out["old_cpu"] / out["new_cpu"]
        out["identical"] = float(all(r["identical"] for r in runs))
    return out


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
    s = summary(runs)
    print(f"{args.agent} on {args.rules} {args.players}p, median of {args.repeats} repeats")
    print(f"single: {s['single']:12,.0f} decisions/s ({args.single} observations one by one)")
    print(f"batch:  {s['batch']:12,.0f} decisions/s (K = {args.batch})")
    print(f"ratio:  {s['ratio']:12.1f}x")
    if "old" in s:
        print(f"old:    {s['old'] * 1e3:12.1f} ms per batch call (CPU {s['old_cpu'] * 1e3:.1f} ms)")
        print(f"new:    {s['new'] * 1e3:12.1f} ms per batch call (CPU {s['new_cpu'] * 1e3:.1f} ms)")
        print(f"speed-up: {s['speedup']:10.2f}x (CPU {s['speedup_cpu']:.2f}x)")
        print(f"identical actions: {'yes' if s['identical'] else 'NO'}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(s, f)
    return 0 if s.get("identical", 1.0) else 1


if __name__ == "__main__":
    sys.exit(main())
