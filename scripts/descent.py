"""Train a policy by exploitability descent on the exact round tree (no samples, no imitation).

    python scripts/descent.py --config configs/revised_2p.yaml --out runs/descent-revised-2p
        [--iterations 2000] [--lr 0.003] [--lr-end 0.02] [--report-every 25] [--other-states]
        [--whole-game [--round-weight 0.5]] [--init POLICY]

The config gives the table (``rules``, ``num_players``: one table) and the network
(``net_arch``, ``activation``, ``features``, ``seed``); its PPO settings are read only
with ``start: trained`` (below). A ``descent:`` section in it (``iterations``, ``lr``,
``lr_end``, ``report_every``, ``other_states``, ``whole_game``, ``round_weight``, and
the settings without flags: ``later_rounds``, ``against``, ``against_weight``,
``keep``, ``gradient``, ``floors``, ``table``, ``fit_epochs``, ``fit_lr``) sets what
the flags do not (``scripts/zoo.py`` trains a table whose config has one this way). A
``then:`` mapping in that section (the same keys; the flags set only the first stage) is
a second stage, started from the weights the first one kept, and a ``then:`` in that
one a third, and so on: ``configs/descent/revised_2p.yaml`` descends on the first round,
then on the whole game.

Where the descent starts: random weights (``start: random``, the default), a policy
(``--init``), or ``start: trained``: the config is first trained as it stands, without
its ``descent:`` section (``train.py --config OUT/trained.yaml --set
run_dir=OUT/trained``, its PPO run with every artefact), and the descent starts from
that run's best policy. ``configs/zoo/revised_4p.yaml`` trains its table this way: PPO
self-play, then descent on the exact round tree.
:mod:`grove_env.training.descent` says what an iteration is. Written to ``--out`` (a new
folder):

- ``config.yaml``: the config as used, with its ``descent:`` settings;
- ``best_policy.json``/``.pt``: the weights the last stage kept (its lowest NashConv's,
  or its final ones with ``keep: last``), safe format, playing by sampling (``play:
  sample``); ``ppo:OUT`` plays them in tournaments, the gauntlet and the analysis;
- ``descent.csv``: ``iteration,nash_conv,seconds,measure`` at every measurement, the
  iterations and seconds counted from the first stage's start, ``measure`` ``round``
  (one round), ``game`` (the whole game, with ``--whole-game``) or ``table`` (a
  ``table: true`` stage's table); then, for each
  opponent of the play term or of a floor (``against``, ``floors``, below),
  ``markers_vs_<spec>``: the policy's expected markers in the first round against
  ``n - 1`` copies of it, at the same measurement (empty in a stage without that
  opponent). They show the play term's progress without a gauntlet;
- ``result.json``: the settings, the iteration kept, and the kept policy's exact NashConv
  as it plays (one round in markers; at two players the whole game in outcome units);
  ``init_steps``, the samples the starting policy was trained on (0 from random weights).

The policy's card counts ``step`` in iterations (the one kept), except after ``start:
trained``, where it is the PPO run's steps (the samples behind the policy; the descent's
iterations are in ``result.json`` and the config).

With ``--other-states`` each iteration also descends on the round at one later public
state of the game (drawn at random), so that the rounds after the first are trained too.
``later_rounds: K`` takes those states from the ``K`` rounds after the first only (at
3 players there are 563 later states, 13 of them in round 2). ``against: {spec:
weight}`` with ``against_weight: W`` adds the play term of
:mod:`grove_env.training.descent`: each seat's value in the round against ``n - 1``
copies of each opponent (the gauntlet's styles, ``heuristic``, ``random``...), on the
first round and on the later state drawn; ``keep: last`` keeps the final weights, not
the lowest NashConv's (the trade between the two terms is the point). ``gradient:
nashconv`` (the default) descends on NashConv's own gradient, ``gradient: own`` on the
earlier form that pushes each seat up for itself, which need not descend at three or
more seats (at four it did not); the zoo's revised 3p policy was trained with it
(:mod:`grove_env.training.descent`). ``floors: {spec: markers}`` holds the policy's
first-round markers against ``n - 1`` copies of each opponent at or above its floor:
an iteration under a floor steps on those opponents' play term alone, any other on
the usual loss (:mod:`grove_env.training.descent`, "Floors"). ``table: true`` descends
a table instead of the network (free logits at every information set of the first
round, started from the network's move probabilities; the stage's settings apply to
it), then fits the network to the table it kept: ``fit_epochs`` passes (16) of minibatch
Adam at ``fit_lr`` (0.001), weighted by the reach of each information set under the
table and under the stage's opponents (:mod:`grove_env.training.descent_fit`). Its
measurements are the table's (``measure`` ``table``), then one of the fitted network
(``round``); a ``then:`` stage goes on from the fitted network.
With ``--whole-game`` (two players) it descends on the game itself, stage by stage
(:mod:`grove_env.training.descent_game`), and ``--round-weight W`` adds the first round's
own loss (its markers) times ``W``; ``--init POLICY`` starts from a policy of the same
network, e.g. a round descent's.
A bad config or an existing ``--out`` is one line on stderr (exit code 2).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import torch
import yaml

from grove_env.agents.base import make_agent, table_refusal
from grove_env.agents.learned.actor import Actor
from grove_env.agents.learned.policy_files import BEST_POLICY, ModelFileError
from grove_env.agents.learned.ppo import load_actor
from grove_env.agents.learned.safe_policy import save_policy
from grove_env.analysis.measure import round_tree
from grove_env.analysis.round_tree import RoundTree
from grove_env.messages import one_line
from grove_env.rules import get_rules
from grove_env.training import checkpoint
from grove_env.training.batched.model import ActorCritic
from grove_env.training.config import ConfigError, config_from_dict, dump_config, read_yaml
from grove_env.training.config_errors import KINDS, shown
from grove_env.training.descent import (
    DescentReport,
    Inputs,
    Opponents,
    Table,
    branch_probabilities,
    check_settings,
    descend,
    floors_on,
    kept,
    measured,
    opponents_on,
    other_states,
    tree_inputs,
)
from grove_env.training.descent_fit import fit, fit_weights
from grove_env.training.descent_game import descend_game
from grove_env.training.evaluate import final_nash_conv
from grove_env.training.run_dir import nash_conv_line

ROOT = Path(__file__).resolve().parents[1]
DEFAULTS: dict[str, Any] = {
    "iterations": 2000,
    "lr": 0.003,
    "lr_end": 0.02,
    "report_every": 25,
    "other_states": False,
    "whole_game": False,
    "round_weight": 0.0,
    "later_rounds": 0,
    "against": {},
    "against_weight": 0.0,
    "keep": "lowest",
    "gradient": "nashconv",
    "floors": {},
    "table": False,
    "fit_epochs": 16,
    "fit_lr": 0.001,
}
FITTING = ("fit_epochs", "fit_lr")
STARTS = ("random", "trained")


def descent_settings(
    section: Any, args: argparse.Namespace | None, outer: tuple[Any, ...] = ()
) -> dict[str, Any]:
    """The settings: the flags given (``args``; none for a ``then:`` stage), else the
    config's ``descent:`` section, else the defaults; a section with other keys or kinds
    of value is a :class:`ConfigError`. A ``then:`` mapping in it is one more stage,
    read the same way (flags aside, its own ``then:`` included), started from the
    weights the stage before it kept; ``outer``, the stages before it, so that a chain
    that comes back to one of them (a YAML alias) is refused, not followed forever.
    ``start`` (first stage only): ``random`` or ``trained`` (module docstring)."""
    allowed = set(DEFAULTS) | {"then"} | ({"start"} if args is not None else set())
    if not isinstance(section, dict) or set(section) - allowed:
        raise ConfigError(
            f"the descent: section takes {', '.join(sorted(allowed))}; got {shown(section)}"
        )
    if any(section is stage for stage in outer):
        raise ConfigError("the descent: section's then: chain comes back to a stage before it")
    out: dict[str, Any] = {}
    for key, default in DEFAULTS.items():
        flag = getattr(args, key, None) if args is not None else None
        value = flag if flag is not None else section.get(key, default)
        if type(value) is not type(default) and not (type(default) is float and type(value) is int):
            raise ConfigError(f"{key} must be {KINDS[type(default)]}, got {shown(value)}")
        out[key] = value
    if out["round_weight"] and not out["whole_game"]:
        raise ConfigError("round_weight is for a whole_game stage")
    if out["later_rounds"] < 0 or (out["later_rounds"] and not out["other_states"]):
        raise ConfigError("later_rounds is a count >= 0 for an other_states stage")
    if out["table"] and (out["whole_game"] or out["other_states"]):
        raise ConfigError("a table stage descends the first round: no whole_game or other_states")
    if not out["table"] and set(FITTING) & set(section):
        raise ConfigError("fit_epochs and fit_lr are for a table stage (table: true)")
    if out["fit_epochs"] < 1 or not 0 < out["fit_lr"] < math.inf:
        raise ConfigError("need fit_epochs >= 1 and fit_lr > 0")
    check_against(out)
    if args is not None:
        out["start"] = section.get("start", "random")
        if out["start"] not in STARTS:
            raise ConfigError(f"start is {' or '.join(STARTS)}, got {out['start']!r}")
        if out["start"] == "trained" and args.init is not None:
            raise ConfigError("--init and start: trained both say where the descent starts")
    if section.get("then") is not None:
        out["then"] = descent_settings(section["then"], None, (*outer, section))
    return out


def check_against(stage: dict[str, Any]) -> None:
    """``against`` (agent spec -> weight > 0) and ``against_weight`` (>= 0) go together,
    for a stage on rounds (not ``whole_game``); so is ``floors`` (agent spec -> finite
    markers). Each spec must make an agent whose move probabilities can be asked."""
    against, weight = stage["against"], stage["against_weight"]
    if not 0 <= weight < math.inf or bool(against) != (weight > 0):  # NaN is neither
        raise ConfigError("against (spec: weight) and against_weight > 0 go together")
    for key in ("against", "floors"):
        if stage[key] and stage["whole_game"]:
            raise ConfigError(f"{key} is for stages on rounds, not whole_game")
    for spec, w in against.items():
        if not isinstance(spec, str) or isinstance(w, bool) or not isinstance(w, int | float):
            raise ConfigError(f"against maps agent specs to weights, got {spec!r}: {w!r}")
        if not 0 < w < math.inf:
            raise ConfigError(f"against's weights are finite and > 0, got {spec}: {w}")
        check_opponent("against", spec)
    for spec, floor in stage["floors"].items():
        number = isinstance(floor, int | float) and not isinstance(floor, bool)
        if not isinstance(spec, str) or not number:
            raise ConfigError(f"floors maps agent specs to markers, got {spec!r}: {floor!r}")
        if not math.isfinite(floor):
            raise ConfigError(f"floors are finite numbers of markers, got {spec}: {floor}")
        check_opponent("floors", spec)


def check_opponent(key: str, spec: str) -> None:
    """A :class:`ConfigError` unless ``spec`` makes an agent whose move probabilities
    the analysis can ask (``key``: the setting that names it)."""
    try:
        agent = make_agent(spec, seed=0)
    except (ValueError, ModelFileError) as e:
        raise ConfigError(f"{key} {spec!r}: {one_line(e)}") from None
    if not (hasattr(agent, "action_probabilities") or getattr(agent, "deterministic", False)):
        raise ConfigError(
            f"{key} {spec!r}: its move probabilities cannot be asked "
            "(the styles, heuristic, random, cfr and ppo: can)"
        )


def stages_of(settings: dict[str, Any]) -> list[dict[str, Any]]:
    """The stages in order: the settings, then those of their ``then:`` chain, if any."""
    first = {k: v for k, v in settings.items() if k not in ("then", "start")}
    return [first] + (stages_of(settings["then"]) if "then" in settings else [])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--config", required=True, help="a training config: table and network")
    p.add_argument("--out", required=True, help="a new folder for the policy and its figures")
    p.add_argument("--iterations", type=int, default=None, help=f"default {DEFAULTS['iterations']}")
    p.add_argument("--lr", type=float, default=None, help=f"default {DEFAULTS['lr']}")
    p.add_argument(
        "--lr-end", type=float, default=None, help="final step size, as a fraction (0.02)"
    )
    p.add_argument("--report-every", type=int, default=None, help="iterations per NashConv (25)")
    p.add_argument(
        "--other-states",
        action="store_true",
        default=None,
        help="also descend on the round at the later public states (one drawn per iteration)",
    )
    p.add_argument(
        "--whole-game",
        action="store_true",
        default=None,
        help="two players: descend on every public state's round with the game's "
        "continuation values, NashConv of the whole game every --report-every (say 100)",
    )
    p.add_argument(
        "--round-weight",
        type=float,
        default=None,
        help="with --whole-game: add the first round's own descent loss (markers), "
        "times this weight, to keep its one-round NashConv low (0)",
    )
    p.add_argument(
        "--init",
        default=None,
        metavar="POLICY",
        help="start from this policy's weights (a run directory or policy .json of the "
        "same network), e.g. a round descent's before --whole-game",
    )
    args = p.parse_args(argv)
    out = Path(args.out)
    try:
        data = read_yaml(args.config)
        settings = descent_settings(data.pop("descent", None) or {}, args)
        stages = stages_of(settings)
        cfg = config_from_dict(data).model_copy(update={"play": "sample"})
        tables = cfg.table_list()
        if len(tables) != 1:
            raise ConfigError(f"exploitability descent trains one table, the config has {tables}")
        if out.exists():
            raise ConfigError(f"{str(out)!r} already exists")
        ((rules, n),) = tables
        if n >= 5:
            raise ConfigError("one round at 5 players is beyond the exact analysis here")
        for stage in stages:
            if stage["whole_game"] and (n != 2 or stage["other_states"]):
                raise ConfigError("whole_game is for two players, without other_states")
            check_settings(
                stage["iterations"],
                stage["lr"],
                stage["lr_end"],
                ("report_every", stage["report_every"]),
                stage["keep"],
                stage["gradient"],
            )
            for key in ("against", "floors"):
                for spec in stage[key]:
                    refusal = table_refusal(spec, rules, n)
                    if refusal is not None:
                        raise ConfigError(f"{key} {spec!r}: {refusal}")
        torch.manual_seed(cfg.seed)
        torch.set_num_threads(cfg.torch_threads)
        actor = ActorCritic(checkpoint.policy_card(cfg, 0)).actor
        init_steps = 0
        if args.init is not None:
            init_steps = start_from(actor, args.init, cfg)
    except (ConfigError, ValueError, ModelFileError) as e:
        print(f"descent: {e}", file=sys.stderr)
        return 2
    out.mkdir(parents=True)
    t0 = time.perf_counter()
    if settings["start"] == "trained":
        trained = out / "trained"
        (out / "trained.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
        print(f"training the start: train.py, into {trained}", flush=True)
        config = str(out / "trained.yaml")
        command = [str(ROOT / "train.py"), "--config", config, "--set", f"run_dir={trained}"]
        training = subprocess.run([sys.executable, *command])  # paths as the caller gave them
        if training.returncode != 0:
            failed = f"exit {training.returncode}"
            print(f"descent: training the start failed ({failed})", file=sys.stderr)
            return 1
        init_steps = start_from(actor, str(trained), cfg)
        if (trained / "versions.json").is_file():  # what trained it; the card shows it
            shutil.copyfile(trained / "versions.json", out / "versions.json")
    tree = round_tree(get_rules(rules), n)  # after the PPO run: 1.2 GB at 4 players
    (out / "config.yaml").write_text(
        dump_config(cfg) + yaml.safe_dump({"descent": settings}, sort_keys=False)
    )
    began = time.perf_counter()
    named = (spec for stage in stages for spec in [*stage["against"], *stage["floors"]])
    specs = list(dict.fromkeys(named))
    log = (out / "descent.csv").open("w", newline="")
    rows = csv.writer(log, lineterminator="\n")
    rows.writerow(
        ["iteration", "nash_conv", "seconds", "measure"] + [f"markers_vs_{s}" for s in specs]
    )
    also: list = []
    built_for: tuple[int, dict[str, Any]] | None = None  # what ``also`` holds
    done = kept_at = 0
    for stage in stages:
        measured_on = "game" if stage["whole_game"] else "table" if stage["table"] else "round"

        def report(r: DescentReport, done: int = done, measured_on: str = measured_on) -> None:
            seconds = time.perf_counter() - began
            play = [f"{r.play[s]:.6f}" if s in r.play else "" for s in specs]
            rows.writerow(
                [done + r.iteration, f"{r.nash_conv:.6f}", f"{seconds:.1f}", measured_on] + play
            )
            log.flush()
            line = f"iteration {done + r.iteration}: NashConv {r.nash_conv:.4f} ({measured_on})"
            if r.play:
                line += "; markers vs " + ", ".join(f"{s} {v:.4f}" for s, v in r.play.items())
            print(f"{line} ({seconds:.0f} s)", flush=True)

        wanted = (stage["later_rounds"], stage["against"])
        if stage["other_states"] and built_for != wanted:
            built_for = wanted  # a later stage with other rounds or opponents builds its own
            also = other_states(
                actor,
                get_rules(rules),
                n,
                cfg.max_rounds,
                rounds=stage["later_rounds"],
                against=stage["against"],
            )
            print(f"{len(also)} later public states, one drawn per iteration", flush=True)
        if stage["whole_game"]:
            reports = descend_game(
                actor,
                get_rules(rules),
                n,
                cfg.max_rounds,
                stage["iterations"],
                stage["lr"],
                stage["lr_end"],
                stage["report_every"],
                on_report=report,
                seed=cfg.seed,
                round_weight=stage["round_weight"],
            )
        else:
            against = opponents_on(tree, stage["against"]) if stage["against"] else []
            floors = floors_on(tree, stage["floors"]) if stage["floors"] else []
            inputs = tree_inputs(actor, tree) if stage["table"] else []
            policy = table_of(actor, inputs) if stage["table"] else actor
            reports = descend(
                policy,
                tree,
                stage["iterations"],
                stage["lr"],
                stage["lr_end"],
                stage["report_every"],
                on_report=report,
                also=also if stage["other_states"] else [],
                seed=cfg.seed,
                against=against,
                against_weight=stage["against_weight"],
                keep=stage["keep"],
                gradient=stage["gradient"],
                floors=floors,
            )
            if isinstance(policy, Table):
                opponents = [*against, *floors]
                fitted = fit_to_table(actor, inputs, tree, policy, stage, opponents, cfg.seed)
                report(fitted, done=done, measured_on="round")
        kept_at = done + kept(reports, stage["keep"], stage["floors"]).iteration
        done += stage["iterations"]
    log.close()
    step = init_steps if settings["start"] == "trained" else kept_at
    save_policy(actor, checkpoint.policy_card(cfg, step), out / BEST_POLICY)
    measured = final_nash_conv(f"ppo:{out}", rules, n, cfg.max_rounds)
    result = {
        "config": args.config,
        "rules": rules,
        "num_players": n,
        "seed": cfg.seed,
        **settings,
        "later_states": len(also),
        "init": args.init,
        "init_steps": init_steps,
        "kept_iteration": kept_at,
        "nash_conv": measured,
        "seconds": round(time.perf_counter() - t0, 1),
    }
    (out / "result.json").write_text(json.dumps(result, indent=2) + "\n")
    print(f"kept iteration {kept_at}; " + nash_conv_line(measured), flush=True)
    return 0


def table_of(actor: Actor, inputs: Inputs) -> Table:
    """A table at ``actor``'s branch probabilities on the tree of ``inputs``."""
    with torch.no_grad():
        return Table(branch_probabilities(actor, inputs))


def fit_to_table(
    actor: Actor,
    inputs: Inputs,
    tree: RoundTree,
    table: Table,
    stage: dict[str, Any],
    opponents: Opponents,
    seed: int,
) -> DescentReport:
    """After a ``table: true`` stage: fit ``actor`` to the ``table`` it kept
    (:mod:`grove_env.training.descent_fit`), weighted by reach under the table and under
    each of the stage's ``opponents``, its minibatches drawn from ``seed``; the fitted
    network's measurement at the stage's last iteration."""
    target = table.fixed()
    weights = fit_weights(tree, [target, *(b for _, _, b in opponents)])
    began = time.perf_counter()
    epochs, lr = stage["fit_epochs"], stage["fit_lr"]
    losses = fit(actor, inputs, target, weights, epochs, lr, seed=seed)
    print(
        f"fitted the network to the table kept: KL {losses[0]:.4f} -> {losses[-1]:.4f} "
        f"({stage['fit_epochs']} epochs, {time.perf_counter() - began:.0f} s)",
        flush=True,
    )
    with torch.no_grad():
        nash_conv, play = measured(tree, branch_probabilities(actor, inputs), opponents)
    return DescentReport(stage["iterations"], nash_conv, time.perf_counter() - began, play)


def start_from(actor: torch.nn.Module, policy: str, cfg: Any) -> int:
    """Load ``policy`` (a run directory or policy file) into ``actor``; its steps. A
    policy of another network than the config's is a :class:`ConfigError`."""
    start, card = load_actor(policy)
    if card.net_arch != tuple(cfg.net_arch) or card.features != cfg.features:
        raise ConfigError(f"{policy!r} is another network than the config's")
    actor.load_state_dict(start.state_dict())
    return card.step


if __name__ == "__main__":
    sys.exit(main())
