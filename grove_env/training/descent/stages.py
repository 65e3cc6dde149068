"""One stage of a descent run, and the log every stage writes to (``descent.csv``).

A stage descends the network on the first round's tree (:func:`~.exact.descend`), on the
whole game (:func:`~.game.descend_game`, two players), or descends a table of the first
round and then fits the network to it (:mod:`~.fit`); :func:`run_stage` picks by the
stage's settings and leaves in the actor the weights the stage kept.
"""

from __future__ import annotations

import csv
import time
from pathlib import Path

import torch

from grove_env.agents.learned.actor import Actor
from grove_env.analysis.round_tree import RoundTree
from grove_env.rules import get_rules
from grove_env.training.config import TrainConfig
from grove_env.training.config.descent import DescentStage
from grove_env.training.descent.exact import descend, other_states
from grove_env.training.descent.fit import fit, fit_weights
from grove_env.training.descent.game import descend_game
from grove_env.training.descent.loop import kept
from grove_env.training.descent.tree import (
    DescentReport,
    Inputs,
    TabularPolicy,
    Targets,
    branch_probabilities,
    floors_on,
    measured,
    opponents_on,
    tree_inputs,
)


class StageLog:
    """``descent.csv`` and the console line of every measurement (module docstring of
    :mod:`~.run`); ``specs``, the opponents whose markers it has columns for."""

    def __init__(self, path: Path, specs: list[str], began: float) -> None:
        self.specs, self.began = specs, began
        self.file = path.open("w", newline="")
        self.rows = csv.writer(self.file, lineterminator="\n")
        markers = [f"markers_vs_{s}" for s in specs]
        self.rows.writerow(["iteration", "nash_conv", "seconds", "measure", *markers])

    def report(self, r: DescentReport, done: int, measure: str) -> None:
        """One measurement, ``done`` iterations of earlier stages before it."""
        seconds = time.perf_counter() - self.began
        play = [f"{r.play[s]:.6f}" if s in r.play else "" for s in self.specs]
        row = [done + r.iteration, f"{r.nash_conv:.6f}", f"{seconds:.1f}", measure, *play]
        self.rows.writerow(row)
        self.file.flush()
        line = f"iteration {done + r.iteration}: NashConv {r.nash_conv:.4f} ({measure})"
        if r.play:
            line += "; markers vs " + ", ".join(f"{s} {v:.4f}" for s, v in r.play.items())
        print(f"{line} ({seconds:.0f} s)", flush=True)

    def close(self) -> None:
        self.file.close()


def run_stage(
    actor: Actor, tree: RoundTree, stage: DescentStage, cfg: TrainConfig, log: StageLog, done: int
) -> tuple[int, int]:
    """Descend ``actor`` by one ``stage``; ``(the iteration kept, later states used)``."""
    measure = "game" if stage.whole_game else "table" if stage.table else "round"

    def report(r: DescentReport) -> None:
        log.report(r, done, measure)

    rules, n = cfg.table_list()[0]
    if stage.whole_game:
        reports = descend_game(
            actor,
            get_rules(rules),
            n,
            cfg.max_rounds,
            stage.iterations,
            stage.lr,
            stage.lr_end,
            stage.report_every,
            on_report=report,
            seed=cfg.seed,
            round_weight=stage.round_weight,
        )
        return kept(reports, stage.keep, stage.floors).iteration, 0
    also = []
    if stage.other_states:
        also = other_states(
            actor,
            get_rules(rules),
            n,
            cfg.max_rounds,
            rounds=stage.later_rounds,
            against=stage.against,
        )
        print(f"{len(also)} later public states, one drawn per iteration", flush=True)
    against = opponents_on(tree, stage.against) if stage.against else []
    floors = floors_on(tree, stage.floors) if stage.floors else []
    inputs = tree_inputs(actor, tree) if stage.table else []
    policy = table_of(actor, inputs) if stage.table else actor
    reports = descend(
        policy,
        tree,
        stage.iterations,
        stage.lr,
        stage.lr_end,
        stage.report_every,
        on_report=report,
        also=also,
        seed=cfg.seed,
        against=against,
        against_weight=stage.against_weight,
        keep=stage.keep,
        gradient=stage.gradient,
        floors=floors,
    )
    if isinstance(policy, TabularPolicy):
        fitted = fit_to_table(actor, inputs, tree, policy, stage, [*against, *floors], cfg.seed)
        log.report(fitted, done, "round")
    return kept(reports, stage.keep, stage.floors).iteration, len(also)


def table_of(actor: Actor, inputs: Inputs) -> TabularPolicy:
    """A table at ``actor``'s branch probabilities on the tree of ``inputs``."""
    with torch.no_grad():
        return TabularPolicy(branch_probabilities(actor, inputs))


def fit_to_table(
    actor: Actor,
    inputs: Inputs,
    tree: RoundTree,
    table: TabularPolicy,
    stage: DescentStage,
    opponents: Targets,
    seed: int,
) -> DescentReport:
    """After a table stage: fit ``actor`` to the ``table`` it kept (:mod:`~.fit`), weighted
    by reach under the table and under each of the stage's ``opponents``, its minibatches
    drawn from ``seed``; the fitted network's measurement at the stage's last iteration."""
    target = table.fixed()
    weights = fit_weights(tree, [target, *(b for _, _, b in opponents)])
    began = time.perf_counter()
    losses = fit(actor, inputs, target, weights, stage.fit_epochs, stage.fit_lr, seed=seed)
    print(
        f"fitted the network to the table kept: KL {losses[0]:.4f} -> {losses[-1]:.4f} "
        f"({stage.fit_epochs} epochs, {time.perf_counter() - began:.0f} s)",
        flush=True,
    )
    with torch.no_grad():
        nash_conv, play = measured(tree, branch_probabilities(actor, inputs), opponents)
    return DescentReport(stage.iterations, nash_conv, time.perf_counter() - began, play)
