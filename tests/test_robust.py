"""The robust heuristic: legal play everywhere, batch == single, and a piler's stack.

The agent is registered as ``heuristic``; the old trusting one stays as
``heuristic`` (its reference tests are in ``test_heuristic.py``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from positions import TABLES, count_legal_decisions, observe, play

from grove_env import Game, decode
from grove_env.actions import ACCUSE_0, KEEP, LEAVE_0
from grove_env.agents.base import make_agent
from grove_env.agents.match import decision_positions
from grove_env.agents.posterior import posterior
from grove_env.agents.robust import RobustAgent, RobustParams, culprit_posteriors, parse_params
from grove_env.agents.style_mixture import histories, history_code, mixture_tables

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("rules,n", TABLES)
def test_never_picks_a_masked_action(rules, n):
    """The robust heuristic in every seat but one (random), ~300 decisions per table."""
    assert count_legal_decisions(make_agent("robust"), rules, n, 2000, 300) >= 300


@pytest.mark.parametrize("rules,n", TABLES)
def test_act_batch_matches_act_row_by_row(rules, n):
    rows, masks = decision_positions(rules, n, 60, seed=n)
    agent = make_agent("robust:trust=0.5")
    batch = agent.act_batch(rows, masks)
    single = [agent.act({"observation": o, "action_mask": m}) for o, m in zip(rows, masks)]
    assert batch.tolist() == single
    assert all(m[a] for a, m in zip(batch, masks))


@pytest.mark.parametrize("rules,n", TABLES)
def test_batched_posterior_is_the_exact_one(rules, n):
    rows, _ = decision_positions(rules, n, 40, seed=10 + n)
    q = culprit_posteriors(rows.astype(np.float64))
    for row, got in zip(rows, q):
        d = decode(row)
        if d.phase.name == "ACCUSE":
            assert got == pytest.approx(posterior(d))


def test_the_old_model_walks_onto_a_pilers_stack_and_the_new_one_does_not():
    # Classic 4p: seats hold 8 0 4 7, suspects 5 6 3, victim 2. Seat 0 (a piler) leaves
    # slot 0 unseen, keeps, and accuses the slot it holds least likely (slot 0); seat 1
    # (a piler) accuses slot 1. Seat 2 saw the 5 (slot 0) and the 3 (slot 2): with a 5
    # among the suspects the lowest tile is guilty, so slot 0 is a sure innocent
    # (exact posterior (0, 1/4, 3/4)). The trusting model reads the accusations as
    # evidence and expects the last seat to cover slot 0; it tops that stack. The
    # style mixture does not count on being covered there and accuses slot 2.
    g = play(Game("classic", 4, deals=[(8, 0, 4, 7, 5, 6, 3, 2)]), LEAVE_0, KEEP)
    piler = make_agent("piler")
    for seat in (0, 1):
        play(g, piler.act(observe(g, seat)))
    obs = observe(g, 2)
    d = decode(obs["observation"])
    assert [slot for _, slot in d.accusations] == [0, 1]
    assert posterior(d) == pytest.approx((0.0, 0.25, 0.75))
    assert make_agent("heuristic").act(obs) == ACCUSE_0
    assert make_agent("robust").act(obs) == ACCUSE_0 + 2


def test_history_codes_cover_every_history_once():
    for n in (2, 3, 4, 5):
        codes = [history_code(h) for h in histories(n)]
        assert codes == list(range(len(codes)))


def test_mixture_tables_are_distributions():
    t = mixture_tables(4, True, False, 0.1)
    sums = t.later.sum(axis=4)
    assert np.allclose(sums, 1.0)
    assert (t.likelihood > 0).all() and (t.likelihood <= 1).all()


def test_params_from_spec_and_errors():
    assert make_agent("robust").params == RobustParams()
    assert parse_params("trust=0.3, noise=0.2") == RobustParams(trust=0.3, noise=0.2)
    with pytest.raises(ValueError, match="key=value"):
        make_agent("robust:depth=3")
    with pytest.raises(ValueError, match=r"trust must be in \[0, 1\]"):
        RobustParams(trust=1.5)
    obs = observe(play(Game("classic", 4), LEAVE_0, KEEP), 0)
    with pytest.raises(ValueError, match="all-zero"):
        RobustAgent().act({"observation": obs["observation"], "action_mask": np.zeros(10)})


def test_the_benchmark_runs_at_a_tiny_size():
    script = ROOT / "benchmarks" / "heuristic_batch.py"
    args = ["--batch", "16", "--single", "4", "--repeats", "1", "--players", "3"]
    done = subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "single:" in done.stdout and "batch:" in done.stdout and "ratio:" in done.stdout
