"""The warm start (grove_env.training.selfplay.teacher): the teacher's games, returns, fit."""

from __future__ import annotations

import numpy as np
import pytest

from grove_env.training.config import config_from_dict
from grove_env.training.sb3.builders import build_env, build_model
from grove_env.training.selfplay.teacher import imitate, teacher_games

pytestmark = pytest.mark.slow  # imitation trains a network

CFG = config_from_dict(
    {
        "num_envs": 32,
        "n_steps": 8,
        "batch_size": 256,
        "net_arch": [32, 32],
        "features": "culprit_odds",
        "opponents": {"random": 1.0, "live": 0.5, "pool": 0, "heuristic": 0},
        "progress": False,
    }
)


def test_teacher_decisions_are_legal_and_their_returns_are_the_games_outcomes() -> None:
    data = teacher_games(CFG, "greedy", steps=600, seed=3)
    n = len(data.actions)
    assert n >= 600 and data.observations.shape == (n, 125)
    assert data.masks[np.arange(n), data.actions].all()
    # outcome reward, gamma 1: every decision's return is its game's zero-sum outcome,
    # (worse - better) / (n - 1) for 4 players: a multiple of 1/3 in [-1, 1].
    assert np.abs(data.returns).max() <= 1.0 + 1e-6
    assert np.allclose(data.returns * 3, np.round(data.returns * 3), atol=1e-5)
    assert len(np.unique(np.round(data.returns * 3))) > 1


def test_imitation_learns_the_teachers_moves() -> None:
    data = teacher_games(CFG, "greedy", steps=3000, seed=1)
    model = build_model(CFG, build_env(CFG), "cpu")
    before = imitate(model, data, epochs=1, batch_size=256, seed=0)["agreement"]
    after = imitate(model, data, epochs=30, batch_size=256, seed=0)
    assert after["agreement"] >= 0.9 > before
    assert np.isfinite(after["policy_loss"]) and np.isfinite(after["value_loss"])
