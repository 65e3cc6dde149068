"""AEC throughput: random legal play through ``grove_v1.env()`` beside PettingZoo classics.

Decisions per second of the standard PettingZoo loop (``agent_iter``, ``last``, ``step``)
with the fully wrapped environments, for ``grove_v1``, ``tictactoe_v3`` and
``connect_four_v3`` in the same process. A decision is a step with an action; the
``step(None)`` calls that only remove a finished agent, and the resets between games, run
inside the timed loop but are not counted. Every environment gets the same cheap random
policy (``random.Random`` over the mask's non-zeros). The environments are interleaved
within each repetition, in a rotating order, so that machine noise falls on all alike;
the reported figure is the median of the repetitions.

Usage::

    python benchmarks/aec_throughput.py [--steps 20000] [--repeats 5] \\
        [--rules classic] [--players 4] [--seed 0]

PettingZoo's classic environments need pygame (``pip install pettingzoo[classic]``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np


def measure(make: Callable[[], object], steps: int, seed: int) -> float:
    """Decisions per second over ``steps`` decisions of random play (games back to back)."""
    env = make()
    rng = random.Random(seed)
    flatnonzero = np.flatnonzero
    env.reset(seed=seed)
    decisions = 0
    start = time.perf_counter()
    while decisions < steps:
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = flatnonzero(obs["action_mask"])
            env.step(int(legal[int(rng.random() * len(legal))]))
            decisions += 1
            if decisions == steps:
                break
        else:
            env.reset()
    elapsed = time.perf_counter() - start
    env.close()
    return decisions / elapsed


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=20_000, help="decisions per measurement")
    parser.add_argument("--repeats", type=int, default=5, help="measurements per environment")
    parser.add_argument("--rules", default="classic", choices=["classic", "revised"])
    parser.add_argument("--players", type=int, default=4, help="grove_v1 num_players")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="PATH", help="also write the figures to this file")
    args = parser.parse_args(argv)
    if args.steps < 1 or args.repeats < 1:
        parser.error("--steps and --repeats must be >= 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    try:
        from pettingzoo.classic import connect_four_v3, tictactoe_v3
    except ImportError as err:
        print(f"PettingZoo's classic environments need pygame: {err}", file=sys.stderr)
        return 2
    import pettingzoo

    from grove_env import __version__, grove_v1

    grove_name = f"grove_v1 ({args.rules}, {args.players}p)"
    envs: dict[str, Callable[[], object]] = {
        grove_name: lambda: grove_v1.env(num_players=args.players, rules=args.rules),
        "tictactoe_v3": tictactoe_v3.env,
        "connect_four_v3": connect_four_v3.env,
    }
    names = list(envs)
    print(
        f"AEC throughput, decisions/s: {args.steps} decisions x {args.repeats} repeats; "
        f"Python {platform.python_version()}, pettingzoo {pettingzoo.__version__}, "
        f"grove-env {__version__}",
        flush=True,
    )
    rates: dict[str, list[float]] = {name: [] for name in names}
    for rep in range(args.repeats):
        order = names[rep % len(names) :] + names[: rep % len(names)]
        for name in order:
            rates[name].append(measure(envs[name], args.steps, args.seed + rep))
        print(
            f"  repeat {rep + 1}: "
            + ", ".join(f"{name.split(' ')[0]} {rates[name][-1]:,.0f}" for name in names),
            flush=True,
        )
    median = {name: statistics.median(values) for name, values in rates.items()}
    width = max(len(name) for name in names)
    for name in names:
        spread = f"{min(rates[name]):,.0f}-{max(rates[name]):,.0f}"
        print(f"{name:<{width}}  median {median[name]:>10,.0f}/s  (range {spread})")
    ratios = {other: median[grove_name] / median[other] for other in names[1:]}
    for other, ratio in ratios.items():
        print(f"ratio grove_v1 / {other}: {ratio:.2f}")
    if args.json:
        figures = {"median_decisions_per_s": median, "ratio_grove_v1_to": ratios}
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
