"""The advice features (:mod:`grove_env.agents.heuristic.advice`): the search taken apart.

The mixture of the per-table values must be the heuristic's own value, the random
table's values those of a heuristic that thinks every seat random, and the advised
best move the heuristic's move; the network that reads advice must be fed it the same
way in training (the VecEnv) and in play (the actor of a saved policy).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from positions import TABLES

from grove_env.actions import ACCUSE_0, KEEP, SWAP_0, Phase
from grove_env.agents.arena.match import decision_positions
from grove_env.agents.base import make_agent
from grove_env.agents.heuristic.advice import ADVICE_SIZE, MODELS, MOVES, advice
from grove_env.agents.heuristic.search import (
    HeuristicAgent,
    HeuristicParams,
)
from grove_env.agents.learned.policy_net import InputFeatures, build_actor, input_size, reads
from grove_env.observation import OBS_SIZE, OFF_PHASE
from grove_env.training.config import config_from_dict
from grove_env.training.sb3.builders import build_env, build_model
from grove_env.training.sb3.features import GroveFeatures
from grove_env.training.sb3.vec_env import GroveSelfPlayVecEnv
from grove_env.training.selfplay.opponents import Opponents

torch.set_num_threads(1)
MIXTURE, RANDOM = MODELS.index("mixture"), MODELS.index("random")


def phases(obs: np.ndarray) -> np.ndarray:
    return obs[:, OFF_PHASE : OFF_PHASE + 4].argmax(axis=1)


def values_of(a: np.ndarray) -> np.ndarray:
    """``[K, models, moves]``: the move-value block of advice rows."""
    return a[:, : MOVES * len(MODELS)].reshape(len(a), len(MODELS), MOVES)


@pytest.mark.parametrize("rules,n", TABLES)
def test_advice_is_centred_and_names_the_heuristics_move(rules, n):
    obs, masks = decision_positions(rules, n, 150, seed=10 + n)
    a = advice(obs)
    assert a.shape == (len(obs), ADVICE_SIZE) and a.dtype == np.float32
    values = values_of(a)
    phase = phases(obs)
    posterior = a[:, MOVES * len(MODELS) :]
    # Nothing to advise at the look; the posterior only where accusations are priced.
    assert (a[phase == int(Phase.LOOK)] == 0).all()
    np.testing.assert_allclose(posterior[phase == int(Phase.ACCUSE)].sum(axis=1), 1.0, atol=1e-6)
    assert (posterior[phase != int(Phase.ACCUSE)] == 0).all()
    # Centred over the open moves: every model's values sum to zero.
    np.testing.assert_allclose(values.sum(axis=2), 0.0, atol=1e-5)
    accusing = phase == int(Phase.ACCUSE)
    assert (values[accusing][:, :, : ACCUSE_0 - KEEP] == 0).all()
    # The mixture's best accusation is the heuristic's, where it is clearly best.
    chosen = HeuristicAgent().act_batch(obs, masks)
    mix = values[:, MIXTURE, ACCUSE_0 - KEEP :].astype(np.float64)
    top = np.sort(mix, axis=1)
    clear = accusing & (top[:, -1] - top[:, -2] > 1e-4)
    assert clear.sum() >= 10
    assert (mix[clear].argmax(axis=1) + ACCUSE_0 == chosen[clear]).all()
    swapping = phase == int(Phase.SWAP)
    if swapping.any():  # keep, or the swap worth most by more than the margin
        swaps = values[swapping, MIXTURE, : ACCUSE_0 - KEEP]
        opened = masks[swapping, KEEP:ACCUSE_0].astype(bool)
        best = np.where(opened[:, 1:], swaps[:, 1:], -np.inf).max(axis=1)
        margin = best - swaps[:, 0]
        clear = np.abs(margin - HeuristicParams().swap_margin) > 1e-4
        expect = np.where(margin > HeuristicParams().swap_margin, SWAP_0, KEEP)
        got = np.where(chosen[swapping] == KEEP, KEEP, SWAP_0)
        assert (got[clear] == expect[clear]).all()


def test_advice_of_a_batch_is_advice_row_by_row():
    obs, _ = decision_positions("classic", 3, 30, seed=2)
    mixed = np.concatenate([obs, decision_positions("revised", 5, 30, seed=2)[0]])
    whole = advice(mixed)
    single = np.concatenate([advice(row[None]) for row in mixed[::7]])
    np.testing.assert_allclose(whole[::7], single, atol=1e-6)


def test_a_network_reading_advice_is_fed_it_in_play_and_in_training():
    obs, masks = decision_positions("classic", 4, 40, seed=3)
    features = InputFeatures("advice")
    rows = features.prepare(obs)
    assert rows.shape == (len(obs), reads("advice", OBS_SIZE))
    np.testing.assert_array_equal(rows[:, OBS_SIZE:], advice(obs))
    out = features(torch.as_tensor(rows))
    assert out.shape == (len(obs), input_size("advice", OBS_SIZE))
    np.testing.assert_array_equal(out[:, -ADVICE_SIZE:].numpy(), advice(obs))
    # The actor of a saved policy takes plain observations and appends the advice itself.
    actor = build_actor("advice", OBS_SIZE, [16], "relu", 10)
    with torch.no_grad():
        logits = actor(torch.as_tensor(rows))
    picked = actor.act(obs, masks.astype(bool), deterministic=True)
    expected = torch.where(torch.as_tensor(masks.astype(bool)), logits, -1e9).argmax(dim=1)
    assert picked.tolist() == expected.tolist()
    # The SB3 extractor is the same computation, and refuses rows of the wrong width.
    space = GroveSelfPlayVecEnv(4, Opponents({"random": 1.0}), advice=True).observation_space
    extractor = GroveFeatures(space, kind="advice")
    np.testing.assert_array_equal(extractor(torch.as_tensor(rows)).numpy(), out.numpy())
    with pytest.raises(ValueError, match="read rows of"):
        GroveFeatures(
            GroveSelfPlayVecEnv(4, Opponents({"random": 1.0})).observation_space, "advice"
        )


@pytest.mark.slow
def test_the_training_env_appends_advice_to_every_row_it_returns():
    env = GroveSelfPlayVecEnv(32, Opponents({"random": 1.0}, seed=0), seed=0, advice=True)
    assert env.observation_space.shape == (OBS_SIZE + ADVICE_SIZE,)
    env.seed(0)
    rows = env.reset()
    np.testing.assert_array_equal(rows[:, OBS_SIZE:], advice(rows[:, :OBS_SIZE]))
    rng = np.random.default_rng(0)
    finals = 0
    for _ in range(60):
        masks = env.action_masks()
        rows, _, dones, infos = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        assert rows.shape == (32, OBS_SIZE + ADVICE_SIZE)
        np.testing.assert_array_equal(rows[:, OBS_SIZE:], advice(rows[:, :OBS_SIZE]))
        for b in np.flatnonzero(dones):
            final = infos[b]["terminal_observation"]
            assert final.shape == (OBS_SIZE + ADVICE_SIZE,)
            np.testing.assert_array_equal(final[OBS_SIZE:], advice(final[None, :OBS_SIZE])[0])
            finals += 1
    assert finals > 0


def test_the_config_takes_advice_and_rllib_refuses_it():
    assert config_from_dict({"features": "advice"}).features == "advice"
    with pytest.raises(ValueError, match="features=observation"):
        config_from_dict(
            {
                "features": "advice",
                "backend": "rllib",
                "opponents": {"random": 1.0, "live": 0, "pool": 0},
            }
        )


@pytest.mark.slow
def test_an_sb3_zip_that_reads_advice_plays_plain_observations(tmp_path):
    cfg = config_from_dict(
        {
            "num_envs": 8,
            "n_steps": 4,
            "batch_size": 32,
            "net_arch": [8],
            "features": "advice",
            "opponents": {"random": 1.0, "live": 0, "pool": 0, "heuristic": 0},
        }
    )
    model = build_model(cfg, build_env(cfg))
    model.save(tmp_path / "advice.zip")
    agent = make_agent(f"sb3:{tmp_path / 'advice.zip'}")
    obs, masks = decision_positions("classic", 4, 12, seed=4)
    actions = agent.act_batch(obs, masks)
    assert all(m[a] for a, m in zip(actions, masks))
