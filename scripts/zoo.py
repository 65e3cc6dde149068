"""Re-train the zoo: one policy per table from ``configs/zoo/``, measured, with its card.

    python scripts/zoo.py                                   # every table (make zoo)
    python scripts/zoo.py --tables revised-2p classic-4p --games 400
    python scripts/zoo.py --tables revised-3p --nashconv-only  # re-measure, no training

For each table ``<rules>-<n>p``:

1. the config ``CONFIGS/<rules>_<n>p.yaml`` is trained in this process by the front door
   (:func:`grove_env.training.front.train`, what ``train.py`` runs) into
   ``WORK/<rules>_<n>p``: any backend or method the config names, exploitability descent
   for a config with a ``descent:`` section. This script only reads the run's
   ``best_policy.json``/``.pt``, the layout of :mod:`grove_env.agents.learned.policy_files`;
2. the best policy is copied to ``OUT/<rules>_<n>p/policy.json``/``.pt`` (safe format);
3. its exact NashConv (:func:`grove_env.analysis.nash_conv`): one round from the start
   of a game (markers, 2 to 4 players), and the whole game (outcome, 2 players and
   revised 3: ``WHOLE_GAME_ROUTINE``);
4. its gauntlet (:func:`~grove_env.agents.arena.gauntlet.run_gauntlet`, ``--games``
   per opponent, seed 0);
5. ``OUT/<rules>_<n>p/card.json``, with the keys of
   :data:`~grove_env.agents.learned.policy_files.ZOO_CARD_FIELDS`.

``--nashconv-only`` does step 3 alone for the policy already in ``OUT``: its card's
NashConv figures are measured again and nothing else changes (after a change to what is
measured, as when the whole game at three players became exact).

``OUT`` is the package's ``grove_env/data/zoo`` unless ``--out`` says otherwise; the
``zoo:<rules>-<n>p`` agent plays what is there. A mistake (an unknown table, a missing
config, a run directory already there, a failed training run) is one line on stderr.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from grove_env.agents.arena.gauntlet import run_gauntlet
from grove_env.agents.cli.command_line import (
    CommandError,
    Parser,
    run_command,
    usage_error,
)
from grove_env.agents.learned.policy_files import (
    ZOO_CARD,
    ZOO_CARD_FIELDS,
    ZOO_POLICY,
    ModelFileError,
    parse_zoo_table,
    zoo_dir,
    zoo_folder,
    zoo_tables,
)
from grove_env.agents.learned.ppo import PPOAgent, load_actor, plays_greedy, resolve
from grove_env.training import front
from grove_env.training.config import ConfigError, TrainConfig, load_config
from grove_env.training.measure.evaluate import final_nash_conv

PROG = "scripts/zoo.py"
ROOT = Path(__file__).resolve().parents[1]


def parser() -> Parser:
    p = Parser(prog=PROG, description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", nargs="+", default=zoo_tables(), help="default: all seven")
    p.add_argument("--configs", default=str(ROOT / "configs" / "zoo"), help="config folder")
    p.add_argument("--work", default=None, help="run directories (default runs/zoo-<time>)")
    p.add_argument("--out", default=None, help="default: grove_env/data/zoo")
    p.add_argument("--games", type=int, default=2000, help="gauntlet games per opponent")
    p.add_argument("--workers", type=int, default=2, help="gauntlet worker processes")
    p.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="a config override"
    )
    p.add_argument(
        "--nashconv-only",
        action="store_true",
        help="measure the shipped policies' NashConv again; no training, no gauntlet",
    )
    return p


@dataclass(frozen=True)
class TablePlan:
    """What re-training one table runs, settled (its config read) before any training."""

    table: str
    run_dir: Path
    path: Path
    config: TrainConfig
    """The table's config, its overrides and its run directory applied."""
    shown: str
    """What the card tells a reader to run: the config as named here, no run directory."""


def check(args: Any) -> list[TablePlan]:
    """A :class:`TablePlan` per table, everything checked (the configs read) before any
    training."""
    if args.games < 1 or args.workers < 1:
        raise usage_error(f"--games and --workers are >= 1, got {args.games}, {args.workers}")
    work = Path(args.work or ROOT / "runs" / f"zoo-{time.strftime('%Y%m%d-%H%M%S')}")
    plan = []
    for table in args.tables:
        try:
            rules, n = parse_zoo_table(table)
        except ModelFileError as e:
            raise usage_error(str(e)) from None
        config = Path(args.configs) / f"{rules}_{n}p.yaml"
        if not config.is_file():
            raise CommandError(f"no config for {table} at {str(config)!r}")
        run_dir = work / f"{rules}_{n}p"
        if run_dir.exists():
            raise CommandError(f"the run directory {str(run_dir)!r} is there already")
        plan.append(table_plan(table, config, run_dir, args.set))
    return plan


def shown_path(config: Path) -> str:
    """A config's path as a card shows it: relative to the repository where it is inside."""
    return str(config.relative_to(ROOT)) if config.is_relative_to(ROOT) else str(config)


def table_plan(table: str, config: Path, run_dir: Path, overrides: Sequence[str]) -> TablePlan:
    """The table's config, read and checked, with ``overrides`` and ``run_dir`` applied."""
    try:
        cfg = load_config(config, [*overrides, f"run_dir={run_dir}"])
    except ConfigError as e:
        raise CommandError(f"{str(config)!r}: {e}") from None
    sets = [word for item in overrides for word in ("--set", item)]
    shown = ["python", "train.py", "--config", shown_path(config), *sets]
    return TablePlan(table, run_dir, config, cfg, " ".join(shown))


def train(plan: TablePlan) -> float:
    """Train the table's config through the front door; its seconds."""
    start = time.perf_counter()
    code = front.train(plan.config)
    if code != 0:
        raise CommandError(f"training {plan.table} ({plan.shown}) ended with exit code {code}")
    return time.perf_counter() - start


def install(run_dir: Path, target: Path) -> Path:
    """Copy the run's best policy (card and weights) to ``target/policy.json``/``.pt``."""
    card = resolve(run_dir)
    target.mkdir(parents=True, exist_ok=True)
    policy = target / ZOO_POLICY
    shutil.copyfile(card.with_suffix(".pt"), policy.with_suffix(".pt"))
    shutil.copyfile(card, policy)
    load_actor(policy)  # the copies pair (checksum) and load
    return policy


def nash_conv_figures(actor: Any, card: Any, rules: str, n: int) -> dict[str, float | None]:
    """The card's NashConv of a loaded policy (:func:`load_actor`): one round (2 to 4
    players), the whole game (2, revised 3)."""
    agent = PPOAgent(actor, deterministic=plays_greedy(card, None))  # as zoo: plays it
    # One round at 5 players is beyond the exact analysis here (memory and hours).
    measured = final_nash_conv(agent, rules, n) if n <= 4 else {}
    return {"one_round_markers": measured.get("round"), "whole_game_outcome": measured.get("game")}


def remeasure(table: str, out: Path | None) -> dict[str, Any]:
    """Measure a shipped policy's NashConv again and rewrite those figures of its card."""
    try:
        rules, n = parse_zoo_table(table)
    except ModelFileError as e:
        raise usage_error(str(e)) from None
    folder = zoo_dir(table, out)
    path = folder / ZOO_CARD
    if not path.is_file():
        raise CommandError(f"no card for {table} at {str(path)!r}: train it first")
    card = json.loads(path.read_text(encoding="utf-8"))
    card["nash_conv"] = nash_conv_figures(*load_actor(folder / ZOO_POLICY), rules, n)
    path.write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    return card


def measure(policy: Path, rules: str, n: int, games: int, workers: int) -> dict[str, Any]:
    """The card's figures: NashConv (:func:`nash_conv_figures`), the gauntlet."""
    actor, card = load_actor(policy)
    figures = nash_conv_figures(actor, card, rules, n)
    gauntlet = run_gauntlet(f"ppo:{policy}", rules, n, games=games, workers=workers).to_dict()
    del gauntlet["agent"]  # a path of the machine that measured it
    return {"steps": card.step, "nash_conv": figures, "gauntlet": gauntlet}


def build(plan: TablePlan, args: Any) -> dict[str, Any]:
    table, run_dir = plan.table, plan.run_dir
    rules, n = parse_zoo_table(table)
    seconds = train(plan)
    out = zoo_dir(table, Path(args.out) if args.out else None)
    policy = install(run_dir, out)
    figures = measure(policy, rules, n, args.games, args.workers)
    used = yaml.safe_load((run_dir / "config.yaml").read_text(encoding="utf-8"))
    used.pop("run_dir", None)  # a path of the machine that trained it
    versions = run_dir / "versions.json"
    card = {
        "table": table,
        "spec": f"zoo:{table}",
        "config": {
            "file": shown_path(plan.path),
            "as_used": used,
        },
        "steps": figures["steps"],
        "seed": used.get("seed"),
        "nash_conv": figures["nash_conv"],
        "gauntlet": figures["gauntlet"],
        "train_seconds": round(seconds, 1),
        "command": plan.shown,
        "versions": json.loads(versions.read_text()) if versions.is_file() else None,
    }
    assert tuple(card) == ZOO_CARD_FIELDS
    (out / ZOO_CARD).write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    return card


def summary(card: dict[str, Any]) -> str:
    nc, g = card["nash_conv"], card["gauntlet"]
    whole, round_ = nc["whole_game_outcome"], nc["one_round_markers"]
    worst = g["rule_based_worst"]
    return (
        f"{card['table']}: {card['steps']} steps in {card['train_seconds']:.0f} s; NashConv "
        + ("not measured (5 players)" if round_ is None else f"one round {round_:.4f} markers")
        + ("" if whole is None else f", whole game {whole:.4f} outcome")
        + f"; gauntlet ({g['games']} games) mean {g['rule_based_mean']:.3f}, worst "
        f"{worst['win_share']:.3f} against {worst['opponent']}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)

    def body() -> int:
        if args.nashconv_only:
            for table in args.tables:
                print(summary(remeasure(table, Path(args.out) if args.out else None)), flush=True)
            return 0
        plan = check(args)
        print(f"zoo: {len(plan)} tables into {args.out or zoo_folder()}", flush=True)
        for table in plan:
            print(summary(build(table, args)), flush=True)
        return 0

    return run_command(PROG, body)


if __name__ == "__main__":
    sys.exit(main())
