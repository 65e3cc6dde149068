"""``python -m grove_env.training.bestresponse``: a learned best response's lower bound on NashConv.

    python -m grove_env.training.bestresponse --rules revised --players 3 --agent random \\
        --whole-game --steps 6e6 --seconds 840 --eval-games 20000 --exact

trains one best response to ``--agent`` for every seat of the table (the front door's
run: ``<runs-root>/br-<table>-<agent>-s<seed>-<time>``), plays it at each seat against
``n - 1`` copies of the agent in fresh games, plays the agent against itself as well,
and prints each seat's gain with its 95% interval and their sum, a **lower bound** on
the agent's NashConv: of the whole game (``--whole-game``, ``outcome`` reward) or of one
round from the start of a game (``markers``). ``--exact`` adds the exact NashConv
(:func:`grove_env.analysis.nash_conv`: the whole game at 2 and 3 players, one round at 2
to 4) and how much of it the bound recovers. ``--set key=value`` changes a training
setting (:data:`~grove_env.training.bestresponse.plan.SETTINGS`, or any config key).
The result is also written to ``best_response.json`` in the run directory; ``--json``
prints it as one line (the training's own lines go to stderr then).

Exit codes: 0 done; 1 a failure (a model file, the run directory); 2 a usage error;
130 interrupted (the run keeps its checkpoint).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from pathlib import Path

from grove_env.agents.cli.command_line import (
    CommandError,
    Parser,
    build_agent,
    run_command,
    usage_error,
)
from grove_env.agents.learned.policy_files import latest_checkpoint
from grove_env.analysis import nash_conv
from grove_env.rules import RULE_SETS
from grove_env.training.config import ConfigError, ConfigFileError
from grove_env.training.front import EXIT_INTERRUPTED, BackendMissingError, train
from grove_env.training.run.checkpoint import read_state
from grove_env.training.run.directory import RunDirError, atomic_write_text

from .evaluate import profile_values, response_values
from .plan import Plan, best_response_config, check
from .report import result, text

PROG = "python -m grove_env.training.bestresponse"
RESULT_FILE = "best_response.json"


def count(text: str) -> int:
    """An argparse type: a whole count, written ``6000000`` or ``6e6``."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value.is_integer() or value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, got {text!r}")
    return int(value)


def seconds(text: str) -> float:
    """An argparse type: a positive, finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return value


def parser() -> argparse.ArgumentParser:
    p = Parser(prog=PROG, description=__doc__.split("\n\n")[0].strip("`"))
    p.add_argument("--rules", default="revised", choices=sorted(RULE_SETS))
    p.add_argument("--players", type=count, default=3)
    p.add_argument("--agent", default="random", help="the frozen policy: random, zoo:TABLE ...")
    p.add_argument("--whole-game", action="store_true", help="the whole game, not one round")
    p.add_argument("--steps", type=count, default=6_000_000, help="training steps, all seats")
    p.add_argument("--seconds", type=seconds, default=None, help="training seconds at most")
    p.add_argument("--eval-games", type=count, default=20_000, help="fresh games per seat")
    p.add_argument("--seed", type=int, default=0, help="seed of training and evaluation")
    p.add_argument("--exact", action="store_true", help="also the exact NashConv and the ratio")
    p.add_argument("--runs-root", default="runs", help="folder of the run directory")
    p.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="a training setting"
    )
    p.add_argument("--json", action="store_true", help="print the result as one JSON line")
    return p


def main(argv: list[str] | None = None) -> int:
    try:
        args = parser().parse_args(argv)
    except SystemExit as e:  # argparse has printed its one line
        return int(e.code or 0)
    return run_command(PROG, lambda: run(args))


def run(args: argparse.Namespace) -> int:
    plan = Plan(
        args.rules,
        args.players,
        args.agent,
        whole_game=args.whole_game,
        steps=args.steps,
        seconds=args.seconds,
        eval_games=args.eval_games,
        seed=args.seed,
        exact=args.exact,
    )
    try:
        check(plan)
        cfg = best_response_config(plan, args.runs_root, args.set)
    except ConfigError as e:
        raise usage_error(" ".join(str(e).split())) from None
    build_agent(plan.agent, seed=0)  # a model file that cannot load: one line, before training
    began = time.perf_counter()
    log = sys.stderr if args.json else sys.stdout
    try:
        with contextlib.redirect_stdout(log):
            code = train(cfg)
    except (ConfigError, ConfigFileError, RunDirError, BackendMissingError, OSError) as e:
        raise CommandError(" ".join(str(e).split())) from None
    if code == EXIT_INTERRUPTED:
        raise KeyboardInterrupt
    if code != 0:
        return code
    trained = time.perf_counter()
    run_dir = Path(cfg.run_dir or "")
    ckpt = latest_checkpoint(run_dir)
    if ckpt is None:
        raise CommandError(f"the run {str(run_dir)!r} left no checkpoint")
    responder = build_agent(f"ppo:{ckpt}", seed=plan.seed)
    rows = (plan.rules, plan.players, plan.unit, plan.max_rounds, plan.eval_games)
    evaluation_seed = plan.seed + 1_000_003  # apart from every seed the training used
    response = response_values(responder, plan.agent, *rows, seed=evaluation_seed)
    profile = profile_values(plan.agent, *rows, seed=evaluation_seed + 1)
    evaluated = time.perf_counter()
    spent: dict[str, float] = {
        "train": round(trained - began, 1),
        "evaluate": round(evaluated - trained, 1),
    }
    spent["total"] = round(evaluated - began, 1)
    exact = None
    if plan.exact:
        exact = nash_conv(
            build_agent(plan.agent, seed=0), plan.rules, plan.players, plan.whole_game,
            plan.max_rounds,
        )  # fmt: skip
        spent["exact"] = round(time.perf_counter() - evaluated, 1)
    steps = int(read_state(ckpt)["step"])
    out = result(plan, response, profile, str(run_dir), steps, spent, exact)
    atomic_write_text(run_dir / RESULT_FILE, json.dumps(out, indent=1) + "\n")
    print(json.dumps(out) if args.json else text(out), end="\n" if args.json else "")
    return 0
