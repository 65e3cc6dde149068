"""NashConv against learner steps: training methods compared on one budget, several seeds.

    python benchmarks/nashconv_curves.py [--methods ppo=configs/revised_2p.yaml
        mmd=configs/mmd.yaml] [--tables revised-2p revised-3p] [--seeds 0 1 2]
        [--steps 3000000] [--every 500000] [--work runs/curves] [--json PATH] [--png PATH]

Each method is a config (``name=path``). For every table, method and seed the script
runs ``train.py`` on the config with the table's rules and players, the seed, the
budget (``total_timesteps``) and ``exploit_every``, without the final gauntlet, and
reads the exact NashConv the run measured (``metrics.csv``,
:mod:`grove_env.training.measure.exploit`): the whole game where the run measured it
(outcome: at 2 players, and at 3 for a config with ``exploit_whole_game: true``), else
one round from the start of a game (markers). Everything else (imitation, opponents,
entropy, magnet) is the config's, so two configs that differ only in their loss compare
that loss.

It prints, per table and method, the median over the seeds of the last and of the
lowest NashConv and the seeds' last figures, and writes ``--json`` (``{"tables": {table:
{method: {"steps": [...], "seeds": {seed: [nash_conv, ...]}, "walls": {seed: [seconds,
...]}, "measure": ...}}}}``) and ``--png`` (a column per table, one colour per method:
against learner steps the seeds' median and their range, against the seconds each run
had trained a line per seed). A run directory already there is read, not re-run, once
its training finished (``curve_done.json``), so an interrupted comparison goes on where
it stopped.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from grove_env.agents.learned.policy_files import ModelFileError, parse_zoo_table
from grove_env.training.measure.exploit import GAME, ROUND, nashconv_curve

ROOT = Path(__file__).resolve().parents[1]
MEASURES = {True: "whole game, outcome", False: "one round, markers"}
"""What a curve measures, by whether the run measured the whole game."""


def train(config: Path, table: str, seed: int, args: argparse.Namespace, run_dir: Path) -> float:
    """Run one training (skipped where ``run_dir`` finished before); its seconds."""
    marker = run_dir / "curve_done.json"
    if marker.is_file():
        return float(json.loads(marker.read_text())["seconds"])
    rules, players = parse_zoo_table(table)
    sets = {
        "rules": rules,
        "num_players": players,
        "seed": seed,
        "total_timesteps": args.steps,
        "exploit_every": args.every,
        "final_eval_games": 0,
        "final_nashconv": "false",
        "progress": "false",
        "run_dir": run_dir,
    }
    command = [sys.executable, "train.py", "--config", str(config)]
    for key, value in sets.items():
        command += ["--set", f"{key}={value}"]
    began = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed: {done.stderr.strip().splitlines()[-1:]}")
    seconds = time.perf_counter() - began
    marker.write_text(json.dumps({"seconds": seconds}) + "\n")
    return seconds


def median_and_range(runs: list[list[float]]) -> tuple[list[float], list[float], list[float]]:
    """Per measurement the seeds' median, lowest and highest, over the measurements that
    every seed reached."""
    points = list(zip(*runs))
    return (
        [statistics.median(p) for p in points],
        [min(p) for p in points],
        [max(p) for p in points],
    )


def plot(results: dict, path: str) -> None:
    """A column per table: NashConv against learner steps (the seeds' median as a line,
    their range shaded), and below it against the seconds each run had trained (a line
    per seed, since the seeds' clocks differ)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tables = list(results)
    fig, axes = plt.subplots(2, len(tables), figsize=(6 * len(tables), 7), squeeze=False)
    for column, table in enumerate(tables):
        by_steps, by_wall = axes[0][column], axes[1][column]
        for colour, (method, found) in zip(("C0", "C1", "C2", "C3"), results[table].items()):
            middle, low, high = median_and_range(list(found["seeds"].values()))
            steps = found["steps"][: len(middle)]
            by_steps.plot(steps, middle, colour, label=f"{method} (median)")
            by_steps.fill_between(steps, low, high, color=colour, alpha=0.2)
            for i, (seed, values) in enumerate(found["seeds"].items()):
                walls = found.get("walls", {}).get(seed)
                if walls:
                    label = method if i == 0 else None
                    by_wall.plot(walls, values, colour, alpha=0.8, label=label)
        units = " / ".join({found["measure"] for found in results[table].values()})
        by_steps.set(title=table, xlabel="learner steps", ylabel=f"NashConv ({units})")
        by_wall.set(xlabel="seconds trained (each seed)", ylabel=f"NashConv ({units})")
        for ax in (by_steps, by_wall):
            ax.set_ylim(bottom=0)
            ax.legend()
    fig.tight_layout()
    fig.savefig(path)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--methods",
        nargs="+",
        default=["ppo=configs/revised_2p.yaml", "mmd=configs/mmd.yaml"],
        help="name=config",
    )
    p.add_argument("--tables", nargs="+", default=["revised-2p", "revised-3p"])
    p.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    p.add_argument("--steps", type=int, default=3_000_000)
    p.add_argument("--every", type=int, default=500_000)
    p.add_argument("--work", default="runs/curves")
    p.add_argument("--json", default=None, metavar="PATH")
    p.add_argument("--png", default=None, metavar="PATH")
    args = p.parse_args(argv)
    methods = {}
    for item in args.methods:
        name, _, config = item.partition("=")
        if not name or not (ROOT / config).is_file():
            p.error(f"--methods takes name=config with an existing config, got {item!r}")
        methods[name] = ROOT / config
    for table in args.tables:
        try:
            if parse_zoo_table(table)[1] > 4:
                p.error(f"NashConv is measured at 2 to 4 players, got {table!r}")
        except ModelFileError as err:
            p.error(str(err))
    work = Path(args.work)
    results: dict = {}
    for table in args.tables:
        results[table] = {}
        for method, config in methods.items():
            found: dict = {"steps": [], "seeds": {}, "walls": {}, "seconds": {}}
            for seed in args.seeds:
                run_dir = work / table / method / f"seed{seed}"
                found["seconds"][seed] = train(config, table, seed, args, run_dir)
                game = nashconv_curve(run_dir, GAME)
                points = game or nashconv_curve(run_dir, ROUND)
                found["measure"] = MEASURES[bool(game)]
                steps, values = [p[0] for p in points], [p[2] for p in points]
                found["steps"] = max(found["steps"], steps, key=len)
                found["seeds"][seed] = values
                found["walls"][seed] = [round(p[1], 1) for p in points]
                print(
                    f"{table} {method} seed {seed}: last {values[-1]:.4f}, lowest "
                    f"{min(values):.4f} ({found['seconds'][seed]:.0f} s)",
                    flush=True,
                )
            results[table][method] = found
    print(f"\nmedian over seeds {args.seeds}, {args.steps} steps, NashConv every {args.every}")
    for table, by_method in results.items():
        for method, found in by_method.items():
            unit = found["measure"]
            last = [v[-1] for v in found["seeds"].values()]
            low = [min(v) for v in found["seeds"].values()]
            print(
                f"{table:11s} {method:6s} {unit}: last {statistics.median(last):.4f}, lowest "
                f"{statistics.median(low):.4f}; seeds' last {[round(x, 4) for x in last]}"
            )
    if args.json:
        Path(args.json).write_text(json.dumps({"tables": results}, indent=2) + "\n")
    if args.png:
        plot(results, args.png)


if __name__ == "__main__":
    main()
