"""The batched heuristic decides as it did before its search was made cheaper (issue 55).

``data/heuristic_batch.npz`` holds recorded positions of random play on every table
(300 each, every phase and position in the round) with the actions the search before
issue 55 took on them, for the default heuristic and a noisier one. It was written by
``python benchmarks/heuristic_before.py tests/data/heuristic_batch.npz``, the old code
kept beside the benchmark, and agreed with the code of the commit before the change.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from positions import TABLES

from grove_env.actions import Phase
from grove_env.agents.base import make_agent
from grove_env.agents.views.rows import Rows, tables
from grove_env.rules import RULE_SETS

RECORD = Path(__file__).resolve().parents[1] / "data" / "heuristic_batch.npz"
SPECS = {"default": "heuristic", "noisy": "heuristic:noise=0.2,aim=0.3"}
"""The key of each recorded agent's actions, and its spec."""


@pytest.fixture(scope="module")
def record() -> dict[str, np.ndarray]:
    with np.load(RECORD) as data:
        return {key: data[key] for key in data.files}


def by_table(observations: np.ndarray) -> dict[tuple[str, int], np.ndarray]:
    """The recorded rows of each table, ``(rules name, players) -> row indices``."""
    return {(rules.name, n): idx for rules, n, idx in tables(observations.astype(np.float64))}


def test_the_record_covers_every_table_phase_and_position(record):
    split = by_table(record["observations"])
    assert sorted(split) == sorted(TABLES)
    for (name, n), idx in split.items():
        rows = Rows.of(record["observations"][idx])
        phases = [Phase.LOOK, Phase.SWAP, Phase.ACCUSE]
        if not RULE_SETS[name].victim_swap:
            phases.remove(Phase.SWAP)
        assert sorted(set(rows.phase.tolist())) == [int(p) for p in phases]
        accusing = rows.phase == int(Phase.ACCUSE)
        assert set(rows.position[accusing].tolist()) == set(range(n))


@pytest.mark.parametrize("key", SPECS)
def test_act_batch_takes_the_recorded_actions_on_every_table(record, key):
    """One batch of every table at once, as the vector environment asks, then each
    table alone: every action is the one recorded."""
    agent = make_agent(SPECS[key])
    actions = agent.act_batch(record["observations"], record["masks"])
    for table, idx in by_table(record["observations"]).items():
        differ = np.flatnonzero(actions[idx] != record[key][idx])
        assert differ.size == 0, f"{table}: {differ.size} of {idx.size} actions differ"
        alone = agent.act_batch(record["observations"][idx], record["masks"][idx])
        assert alone.tolist() == record[key][idx].tolist(), table


def test_the_record_tells_heuristics_apart(record):
    """The check can fail: a heuristic with other options does not take the recorded
    actions, and the two recorded heuristics differ from each other."""
    other = make_agent("heuristic:aim=1,spread=2")
    actions = other.act_batch(record["observations"], record["masks"])
    assert (actions != record["default"]).sum() > 20
    assert (record["noisy"] != record["default"]).sum() > 20
