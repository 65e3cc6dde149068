"""Decisions per second of the batched engine beside grove_v1, and its memory.

Random legal play in both: the batched engine picks, in every game at once, the
largest of uniform random keys among the legal actions (``argmax(keys * mask)``);
grove_v1 (``grove_v1.env()``, wrappers included) picks uniformly among the legal
actions of ``env.last()``'s mask, one game after another, resetting finished games.
A decision is one action of one player in one game.

Two columns for the engine: ``engine`` times masks, choice and ``step``; ``+ observe``
adds ``observe(out=...)`` of the player to act every step, as a training loop would
(grove_v1's ``last()`` always builds the observation, so that column is the like for
like comparison). Each measurement runs for ``--seconds``; every repeat measures
grove_v1 and each batch size in turn, so that load from other processes falls on
all of them alike, and the table shows medians over ``--repeats``.

A second table gives the batched trainer's path at ``--observe-batch`` games (4096):
decisions per second with the acting seat's observation, without it, and their
ratio, per wall-clock second and per CPU second of the measuring thread (the latter
does not count time the machine gave to other processes). Its last column is the
process's CPU time over that thread's: 1.00 means no other thread did any of the
work (the engine and its encoder are single-threaded NumPy).

Memory at the largest batch size is measured in a fresh subprocess that imports only
the engine, builds a ``VectorGame`` and plays a few rounds with observations:
``tracemalloc`` peak (NumPy reports its array buffers to tracemalloc, so this is the
engine's own allocations) and the growth of ``ru_maxrss`` (the process's peak
resident memory) over the baseline after imports; the process's whole peak RSS is
shown too.

Usage::

    python benchmarks/vector_throughput.py --rules classic --players 4 --seconds 1
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

from grove_env.observation import OBS_SIZE
from grove_env.vector import VectorGame

BATCH_SIZES = (1, 64, 1024, 4096, 8192)


def random_actions(masks: np.ndarray, rng: np.random.Generator, keys: np.ndarray) -> np.ndarray:
    """A uniformly random legal action per row of ``masks`` (bool[B, 10])."""
    rng.random(out=keys, dtype=np.float32)
    keys *= masks
    return keys.argmax(axis=1)


def measure_vector(
    num_games: int, rules: str, players: int, seconds: float, observe: bool, seed: int = 0
) -> tuple[float, float, float]:
    """Decisions per second of random legal play in ``num_games`` games at once, per
    wall-clock second and per CPU second of this thread, and the process's CPU time
    over this thread's."""
    vg = VectorGame(num_games, rules, players, seed=seed)
    rng = np.random.default_rng(seed)
    keys = np.empty((num_games, 10), dtype=np.float32)
    out = np.empty((num_games, OBS_SIZE), dtype=np.float32)
    for _ in range(2 * (players + 2)):  # warm up: work arrays, a few round ends
        vg.step(random_actions(vg.action_masks(), rng, keys))
    steps = 0
    start, cpu, process = time.perf_counter(), time.thread_time(), time.process_time()
    deadline = start + seconds
    while True:
        for _ in range(players + 2):  # whole rounds, so round ends count fairly
            if observe:
                vg.observe(out=out)
            vg.step(random_actions(vg.action_masks(), rng, keys))
        steps += players + 2
        now = time.perf_counter()
        if now >= deadline:
            cpu = time.thread_time() - cpu
            process = time.process_time() - process
            decisions = steps * num_games
            return decisions / (now - start), decisions / cpu, process / cpu


def measure_aec(rules: str, players: int, seconds: float, seed: int = 0) -> float:
    """Decisions per second of random legal play through ``grove_v1.env()``."""
    from grove_env import grove_v1  # here, so that the memory subprocess never loads it

    env = grove_v1.env(num_players=players, rules=rules)
    env.reset(seed=seed)
    pick = random.Random(seed)
    decisions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(200):
            _, _, terminated, truncated, _ = last = env.last()
            if terminated or truncated:
                env.step(None)
                if not env.agents:
                    env.reset()
                continue
            legal = np.flatnonzero(last[0]["action_mask"])
            env.step(int(legal[pick.randrange(len(legal))]))
            decisions += 1
        now = time.perf_counter()
        if now >= deadline:
            return decisions / (now - start)


def _status_mb(field: str) -> float:
    """A memory line of /proc/self/status (Linux), in MB; NaN elsewhere."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def measure_memory(num_games: int, rules: str, players: int) -> dict[str, float]:
    """In this process: the engine's tracemalloc peak and peak RSS growth, in MB.

    The growth is the peak resident size during the run (``VmHWM``, reset first
    through ``/proc/self/clear_refs`` where Linux allows; else ``ru_maxrss``) minus
    the resident size before it.
    """
    rss_before = _status_mb("VmRSS")
    try:
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")  # reset the peak resident size to the current one
    except OSError:
        pass
    tracemalloc.start()
    vg = VectorGame(num_games, rules, players, seed=0)
    rng = np.random.default_rng(0)
    keys = np.empty((num_games, 10), dtype=np.float32)
    for _ in range(5 * (players + 2)):
        vg.observe()
        vg.step(random_actions(vg.action_masks(), rng, keys))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    peak_rss = _status_mb("VmHWM")
    if peak_rss != peak_rss:  # NaN: no /proc, fall back to the process's peak
        peak_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "tracemalloc_peak_mb": peak / 2**20,
        "rss_before_mb": rss_before,
        "peak_rss_mb": peak_rss,
        "peak_rss_growth_mb": peak_rss - rss_before,
    }


def memory_in_subprocess(num_games: int, rules: str, players: int) -> dict[str, float]:
    """:func:`measure_memory` in a fresh interpreter (so earlier runs don't count)."""
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]);"
        "from vector_throughput import measure_memory;"
        "print(json.dumps(measure_memory(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]))))"
    )
    here = os.path.dirname(os.path.abspath(__file__))
    args = [sys.executable, "-c", code, here, str(num_games), rules, str(players)]
    done = subprocess.run(args, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


Measured = dict[int, dict[bool, list[tuple[float, float, float]]]]
"""Per batch size, without and with observation: every run's :func:`measure_vector`."""


def measure_all(args: argparse.Namespace, sizes: list[int]) -> tuple[list[float], Measured]:
    """grove_v1's decisions per second, and the engine's at each batch size, each repeat
    measuring everything in turn."""
    aec: list[float] = []
    engine: Measured = {b: {False: [], True: []} for b in sizes}
    for repeat in range(args.repeats):
        aec.append(measure_aec(args.rules, args.players, args.seconds, seed=repeat))
        for b in sizes:
            for observe in (False, True):
                engine[b][observe].append(
                    measure_vector(b, args.rules, args.players, args.seconds, observe)
                )
    return aec, engine


def _median(runs: list[tuple[float, float, float]], i: int) -> float:
    return statistics.median(run[i] for run in runs)


def observe_table(b: int, runs: dict[bool, list[tuple[float, float, float]]]) -> list[str]:
    """The trainer's path at ``b`` games: with and without the acting seat's observation."""
    wall = [_median(runs[observe], 0) for observe in (True, False)]
    cpu = [_median(runs[observe], 1) for observe in (True, False)]
    threads = max(_median(runs[observe], 2) for observe in (True, False))
    return [
        f"The batched trainer's path at B = {b}: `observe(out=...)` of the seat to act "
        "before every `step`, beside the same play without it:",
        "",
        "| games B | with observation decisions/s | without | ratio | with, per CPU s "
        "| without, per CPU s | process / thread CPU |",
        "|---:|---:|---:|---:|---:|---:|---:|",
        f"| {b} | {wall[0]:,.0f} | {wall[1]:,.0f} | {wall[0] / wall[1]:.2f} "
        f"| {cpu[0]:,.0f} | {cpu[1]:,.0f} | {threads:.2f} |",
    ]


def run(args: argparse.Namespace) -> str:
    """Measure everything and return the report as Markdown."""
    sizes = args.batch_sizes
    load = os.getloadavg()[0]
    aec, engine = measure_all(args, sorted(set(sizes) | {args.observe_batch}))
    base = statistics.median(aec)
    lines = [
        f"{args.rules}, {args.players} players, random legal play; median of {args.repeats} "
        f"runs of {args.seconds:g} s; {os.cpu_count()} CPUs, load average "
        f"{load:.1f} at start, {os.getloadavg()[0]:.1f} at end",
        "",
        "| games B | engine decisions/s | x grove_v1 | + observe decisions/s | x grove_v1 |",
        "|---:|---:|---:|---:|---:|",
    ]
    figures: dict = {"grove_v1_decisions_per_s": base, "engine": {}}
    for b in sizes:
        e, o = _median(engine[b][False], 0), _median(engine[b][True], 0)
        lines.append(f"| {b} | {e:,.0f} | {e / base:,.1f} | {o:,.0f} | {o / base:,.1f} |")
        figures["engine"][f"B={b}"] = {"decisions_per_s": e, "with_observe": o, "x_aec": e / base}
    lines.append(f"| grove_v1 `env()` | {base:,.0f} | 1.0 | | |")
    lines += ["", *observe_table(args.observe_batch, engine[args.observe_batch])]
    if not args.no_memory:
        big = max(sizes)
        mem = memory_in_subprocess(big, args.rules, args.players)
        lines += [
            "",
            f"Memory at B = {big} (fresh process, engine only): tracemalloc peak "
            f"{mem['tracemalloc_peak_mb']:.1f} MB, peak RSS growth "
            f"{mem['peak_rss_growth_mb']:.1f} MB (process: {mem['rss_before_mb']:.1f} MB "
            f"after imports, peak {mem['peak_rss_mb']:.1f} MB).",
        ]
        figures[f"memory_B={big}"] = mem
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return "\n".join(lines)


def batch_sizes(text: str) -> list[int]:
    """``--batch-sizes``: comma-separated ints >= 1 (an argparse type)."""
    try:
        sizes = [int(b) for b in text.split(",")]
    except ValueError:
        sizes = []
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"expected ints >= 1 separated by commas, got {text!r}")
    return sizes


def batch_size(text: str) -> int:
    """``--observe-batch``: one int >= 1 (an argparse type)."""
    sizes = batch_sizes(text)
    if len(sizes) != 1:
        raise argparse.ArgumentTypeError(f"expected one int >= 1, got {text!r}")
    return sizes[0]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="classic", choices=["classic", "revised"])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=1.0, help="per measurement")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--batch-sizes", type=batch_sizes, default=list(BATCH_SIZES), help="e.g. 1,64,4096"
    )
    parser.add_argument(
        "--observe-batch", type=batch_size, default=4096, help="B of the trainer's-path table"
    )
    parser.add_argument("--no-memory", action="store_true", help="skip the memory run")
    parser.add_argument("--json", metavar="PATH", help="also write the figures to this file")
    args = parser.parse_args(argv)
    print(run(args))


if __name__ == "__main__":
    main()
