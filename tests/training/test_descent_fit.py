"""A table descended on the round tree, and a network fitted to it (``table: true``)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
import torch
from descents import CONFIG, ROOT, fresh_actor

from grove_env.analysis.best_response import exploitability_of
from grove_env.analysis.measure import round_tree
from grove_env.analysis.policies import branch_probabilities as policy_branches
from grove_env.analysis.policies import policy_of
from grove_env.rules import get_rules
from grove_env.training.config import read_yaml
from grove_env.training.descent.exact import descend
from grove_env.training.descent.fit import fit, fit_weights
from grove_env.training.descent.tree import (
    TabularPolicy,
    branch_probabilities,
    floors_on,
    play_values,
    tree_inputs,
)


@pytest.fixture(scope="module")
def tree():
    return round_tree(get_rules("revised"), 2)


def kl(target: list[np.ndarray], probs: list[np.ndarray], weights: list[np.ndarray]) -> float:
    """``sum_I w(I) KL(target(I) || probs(I))``, the depths averaged, written out."""
    total = 0.0
    for t, p, w in zip(target, probs, weights, strict=True):
        t = np.maximum(t, 1e-7)
        t = t / t.sum(1, keepdims=True)
        total += float((w * (t * (np.log(t) - np.log(np.maximum(p, 1e-9)))).sum(1)).sum())
    return total / len(target)


def test_a_table_starts_where_it_is_told_and_descends_below_the_network(tree) -> None:
    actor = fresh_actor()
    with torch.no_grad():
        start = branch_probabilities(actor, tree_inputs(actor, tree))
    table = TabularPolicy(start)
    assert all(np.allclose(a, b.numpy(), atol=1e-6) for a, b in zip(table.fixed(), start))
    reports = descend(table, tree, iterations=20, lr=0.1, report_every=10, keep="last")
    assert [r.iteration for r in reports] == [0, 10, 20]
    assert reports[0].nash_conv == pytest.approx(
        exploitability_of(tree, [p.double().numpy() for p in start]).nash_conv
    )
    # the table holds its last logits, and the report is the analysis's measure of them
    assert exploitability_of(tree, table.fixed()).nash_conv == pytest.approx(reports[-1].nash_conv)
    network = descend(fresh_actor(), tree, iterations=20, lr=0.003, report_every=10, keep="last")
    assert reports[-1].nash_conv < network[-1].nash_conv < reports[0].nash_conv


def test_a_table_holds_a_floor_as_the_network_does(tree) -> None:
    table = TabularPolicy(branch_probabilities(fresh_actor(), tree_inputs(fresh_actor(), tree)))
    floors = floors_on(tree, {"greedy": 0.0})
    start = play_values(tree, table.fixed(), floors)["greedy"]
    assert start < 0.0  # the fresh network loses markers to greedy: the floor is climbed
    reports = descend(table, tree, iterations=12, lr=0.3, report_every=1, floors=floors)
    values = [r.play["greedy"] for r in reports]
    reached = next(k for k, v in enumerate(values) if v >= 0.0)  # climbed to the floor,
    assert all(b > a for a, b in zip(values, values[1 : reached + 1]))
    assert min(values[reached:]) >= 0.0  # held it, and descended there
    assert reports[-1].nash_conv < reports[reached].nash_conv - 0.05
    with pytest.raises(ValueError, match="without other rounds"):
        descend(table, tree, iterations=1, lr=0.1, also=[object()])  # type: ignore[list-item]


def test_fit_weights_share_each_depth_between_sets_and_reach(tree) -> None:
    heuristic = policy_branches(tree, [policy_of("heuristic")] * 2)
    weights = fit_weights(tree, [heuristic], reach_share=0.8)
    assert [len(w) for w in weights] == [len(d.representative) for d in tree.depths]
    assert all(w.sum() == pytest.approx(1.0) and (w > 0).all() for w in weights)
    uniform = fit_weights(tree, [heuristic], reach_share=0.0)
    assert all(np.allclose(w, 1 / len(w)) for w in uniform)
    # at the first decision only chance has acted: a set's reach is its deals' chance
    first = tree.depths[0]
    dealt = np.bincount(first.infoset[:, 0], weights=tree.chance, minlength=len(weights[0]))
    assert np.allclose(weights[0], 0.2 / len(weights[0]) + 0.8 * dealt / dealt.sum())
    # a set that no profile reaches has the uniform share alone: the second seat's sets
    # after a first accusation the heuristic never makes
    last = len(tree.depths) - 1
    floor = 0.2 / len(weights[last])
    assert np.isclose(weights[last].min(), floor) and (weights[last] > floor + 1e-9).any()
    with pytest.raises(ValueError, match="reach_share"):
        fit_weights(tree, [heuristic], reach_share=1.5)


def test_fit_moves_the_network_to_a_table_it_can_hold(tree) -> None:
    teacher, student = fresh_actor(seed=1), fresh_actor(seed=2)
    inputs = tree_inputs(student, tree)
    with torch.no_grad():
        target = [p.double().numpy() for p in branch_probabilities(teacher, inputs)]
        before = [p.double().numpy() for p in branch_probabilities(student, inputs)]
    weights = fit_weights(tree, [target])
    losses = fit(student, inputs, target, weights, epochs=3, lr=0.003, batch_size=1024)
    assert len(losses) == 4
    assert losses[0] == pytest.approx(kl(target, before, weights), rel=1e-4)
    with torch.no_grad():
        after = [p.double().numpy() for p in branch_probabilities(student, inputs)]
    assert losses[-1] == pytest.approx(kl(target, after, weights), rel=1e-4)
    assert losses[-1] < 0.2 * losses[0]

    def apart(probs: list[np.ndarray]) -> float:  # weighted total variation from the target
        return sum(float((w * abs(p - t).sum(1)).sum()) for p, t, w in zip(probs, target, weights))

    assert apart(after) < 0.3 * apart(before)
    with pytest.raises(ValueError, match="epochs >= 1"):
        fit(student, inputs, target, weights, epochs=0, lr=0.003)
    with pytest.raises(ValueError, match="one entry per depth"):
        fit(student, inputs, target[:-1], weights, epochs=1, lr=0.003)


@pytest.mark.slow
def test_a_run_fits_the_network_after_a_table_stage_and_goes_on_from_it(tmp_path) -> None:
    config = tmp_path / "table.yaml"
    stages = (
        "{iterations: 20, lr: 0.1, report_every: 10, table: true, fit_epochs: 3, "
        "floors: {greedy: -0.5}, then: {iterations: 2, report_every: 1, lr: 0.0005}}"
    )
    config.write_text(CONFIG.read_text() + f"descent: {stages}\n")
    out = tmp_path / "out"
    command = [sys.executable, "train.py", "--config", str(config), "--set", f"run_dir={out}"]
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr
    assert "fitted the network to the table kept: KL" in run.stdout
    header, *rows = [row.split(",") for row in (out / "descent.csv").read_text().splitlines()]
    assert header[3:] == ["measure", "markers_vs_greedy"]
    assert [(r[0], r[3]) for r in rows] == [
        ("0", "table"),
        ("10", "table"),
        ("20", "table"),
        ("20", "round"),
        ("20", "round"),
        ("21", "round"),
        ("22", "round"),
    ]
    # the next stage starts from the fitted network: its first measurement is the fit's
    assert rows[3][1] == rows[4][1]
    result = json.loads((out / "result.json").read_text())
    assert result["table"] is True and result["fit_epochs"] == 3
    assert result["then"]["iterations"] == 2 and result["then"]["table"] is False
    assert read_yaml(out / "config.yaml")["descent"]["fit_epochs"] == 3  # typed, in the run
