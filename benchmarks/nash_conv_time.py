"""Time and peak memory of :func:`grove_env.analysis.nash_conv` for a network of training size.

    python benchmarks/nash_conv_time.py [--features culprit_odds] [--net-arch 128 128]
    python benchmarks/nash_conv_time.py --tables revised:2 revised:2:game classic:4

What a trainer pays to measure its policy every ``exploit_every`` steps: a freshly
initialised actor of the default config's shape (the cost does not depend on the
weights), played by ``PPOAgent(actor, deterministic=False)`` (its sampling policy).
Each table runs in its own process, so its peak memory is its own, and is measured
twice: the first call builds the round trees, the second finds them kept.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

import torch

from grove_env.agents.learned.policy_net import build_actor
from grove_env.agents.learned.ppo import PPOAgent
from grove_env.analysis import nash_conv

TABLES = ["revised:2", "revised:2:game", "revised:3", "revised:4", "classic:4"]


def measure(table: str, features: str, net_arch: list[int]) -> dict:
    rules, players, *game = table.split(":")
    torch.manual_seed(0)
    agent = PPOAgent(build_actor(features, 125, net_arch, "relu", 10), deterministic=False)
    seconds, values = [], []
    for _ in range(2):
        start = time.perf_counter()
        result = nash_conv(agent, rules, int(players), whole_game=bool(game))
        seconds.append(time.perf_counter() - start)
        values.append(result.nash_conv)
    assert values[0] == values[1], values  # the kept trees measure the same
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"table": table, "nash_conv": values[0], "seconds": seconds, "peak_mb": round(peak)}


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--tables", nargs="+", default=TABLES, help="rules:players[:game]")
    p.add_argument("--features", default="culprit_odds")
    p.add_argument("--net-arch", nargs="+", type=int, default=[128, 128])
    p.add_argument("--one", help=argparse.SUPPRESS)  # a child process: measure this table
    args = p.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.features, args.net_arch)))
        return
    print(
        f"features {args.features}, net_arch {args.net_arch}, torch threads "
        f"{torch.get_num_threads()}"
    )
    print(f"{'table':16} {'NashConv':>9} {'first s':>8} {'kept s':>7} {'peak MB':>8}")
    for table in args.tables:
        command = [sys.executable, __file__, "--one", table, "--features", args.features]
        command += ["--net-arch", *map(str, args.net_arch)]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        r = json.loads(done.stdout.strip().splitlines()[-1])
        first, kept = r["seconds"]
        print(
            f"{table:16} {r['nash_conv']:>9.4f} {first:>8.1f} {kept:>7.1f} {r['peak_mb']:>8}",
            flush=True,
        )


if __name__ == "__main__":
    main()
