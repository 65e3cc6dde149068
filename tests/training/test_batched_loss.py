"""The batched backend's loss and network against references written out here.

GAE against a loop over one game and one step at a time; each term of the loss against
its formula over the legal moves; the shared trunk's shapes; and the NashConv that
training measures (:mod:`grove_env.training.measure.exploit`) against the uniform policy's known
values.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import torch

from grove_env.agents.learned.actor import Actor
from grove_env.training.batched.loss import (
    LossWeights,
    Minibatch,
    gae,
    masked_log_probs,
    ppo_loss,
    scheduled,
    uniform_log_probs,
)
from grove_env.training.batched.rollout import Rollout
from grove_env.training.config import config_from_dict, load_config
from grove_env.training.measure.exploit import GAME, ROUND, ExploitMeter, nashconv_score
from grove_env.training.run import checkpoint
from grove_env.training.run.network import ActorCritic

torch.set_num_threads(1)
ROOT = Path(__file__).resolve().parents[2]
SMOKE = load_config(ROOT / "configs" / "smoke.yaml")


# ----------------------------------------------------------------- the loss
def reference_gae(rewards, values, dones, last, gamma, lam):
    """GAE one game and one step at a time, as the formula reads."""
    steps, games = len(rewards), len(rewards[0])
    adv = [[0.0] * games for _ in range(steps)]
    for b in range(games):
        running = 0.0
        for t in reversed(range(steps)):
            following = last[b] if t == steps - 1 else values[t + 1][b]
            on = 0.0 if dones[t][b] else 1.0
            delta = rewards[t][b] + gamma * following * on - values[t][b]
            running = delta + gamma * lam * on * running
            adv[t][b] = running
    return adv, [[a + v for a, v in zip(ra, rv)] for ra, rv in zip(adv, values)]


@pytest.mark.parametrize(("gamma", "lam"), [(1.0, 0.95), (0.9, 0.5), (0.99, 1.0), (1.0, 0.0)])
def test_gae_equals_a_step_by_step_reference(gamma: float, lam: float) -> None:
    rng = np.random.default_rng(0)
    steps, games = 9, 6
    rewards = rng.normal(size=(steps, games)).round(3)
    values = rng.normal(size=(steps, games)).round(3)
    dones = rng.random((steps, games)) < 0.3
    last = rng.normal(size=games).round(3)
    adv, ret = gae(
        torch.tensor(rewards),
        torch.tensor(values),
        torch.tensor(dones),
        torch.tensor(last),
        gamma,
        lam,
    )
    want_adv, want_ret = reference_gae(
        rewards.tolist(), values.tolist(), dones.tolist(), last.tolist(), gamma, lam
    )
    np.testing.assert_allclose(adv.numpy(), want_adv, rtol=1e-12)
    np.testing.assert_allclose(ret.numpy(), want_ret, rtol=1e-12)


def test_the_loss_terms_against_their_formulas() -> None:
    torch.manual_seed(0)
    masks = torch.tensor([[True, True, False], [True, False, True], [True, True, True]])
    logits = torch.randn(3, 3)
    actions = torch.tensor([1, 2, 0])
    old = torch.tensor([-0.9, -0.4, -1.3])
    adv = torch.tensor([1.0, -2.0, 0.5])
    ret = torch.tensor([0.3, -0.2, 0.1])
    values = torch.tensor([0.1, 0.0, 0.4])
    weights = LossWeights(clip_range=0.2, vf_coef=0.5, ent_coef=0.01, magnet_coef=0.3, kl_coef=0.7)
    batch = Minibatch(masks, actions, old, adv, ret, uniform_log_probs(masks))
    loss, terms = ppo_loss(logits, values, batch, weights)

    # Written out for each row from the legal moves alone.
    policy = value = entropy = magnet = proximal = 0.0
    norm = (adv - adv.mean()) / (adv.std() + 1e-8)
    for i in range(3):
        legal = [a for a in range(3) if masks[i, a]]
        z = [math.exp(float(logits[i, a])) for a in legal]
        p = {a: zi / sum(z) for a, zi in zip(legal, z)}
        ratio = p[int(actions[i])] / math.exp(float(old[i]))
        a_i = float(norm[i])
        policy -= min(ratio * a_i, min(max(ratio, 0.8), 1.2) * a_i) / 3
        value += (float(values[i]) - float(ret[i])) ** 2 / 3
        entropy -= sum(q * math.log(q) for q in p.values()) / 3
        magnet += sum(q * math.log(q * len(legal)) for q in p.values()) / 3
        proximal += (ratio * math.log(ratio) - (ratio - 1)) / 3
    want = policy + 0.5 * value - 0.01 * entropy + 0.3 * magnet + 0.7 * proximal
    assert float(loss) == pytest.approx(want, rel=1e-5)
    assert float(terms["magnet_kl"]) == pytest.approx(magnet, rel=1e-5)
    assert float(terms["entropy_loss"]) == pytest.approx(-entropy, rel=1e-5)
    # Illegal moves have probability exactly 0 and no NaN reaches a gradient.
    assert (masked_log_probs(logits, masks).exp()[~masks] == 0).all()
    logits.requires_grad_(True)
    ppo_loss(logits, values, batch, weights)[0].backward()
    assert torch.isfinite(logits.grad).all()


@pytest.mark.parametrize("snapshot", [False, True])
def test_magnet_in_reward_takes_the_log_ratio_from_each_reward(snapshot: bool) -> None:
    """``magnet_in: reward``: GAE over the rewards less ``coef log(pi(a) / rho(a))`` of
    the move played, ``rho`` uniform over the legal moves or a snapshot's."""
    rng = np.random.default_rng(1)
    steps, games = 5, 4
    rollout = Rollout.empty(steps, games, 3, torch.device("cpu"), magnet=snapshot)
    rollout.masks[:] = torch.from_numpy(rng.random((steps, games, 10)) < 0.6)
    rollout.masks[..., 0] = True
    legal = [
        [np.flatnonzero(rollout.masks[t, b].numpy()) for b in range(games)] for t in range(steps)
    ]
    rollout.actions[:] = torch.tensor([[int(rng.choice(m)) for m in row] for row in legal])
    rollout.log_probs[:] = torch.from_numpy(-rng.random((steps, games)).astype(np.float32))
    rollout.rewards[:] = torch.from_numpy(rng.normal(size=(steps, games)).astype(np.float32))
    rollout.values[:] = torch.from_numpy(rng.normal(size=(steps, games)).astype(np.float32))
    rollout.dones[:] = torch.from_numpy(rng.random((steps, games)) < 0.3)
    if rollout.magnet is not None:
        rollout.magnet[:] = masked_log_probs(torch.randn(steps, games, 10), rollout.masks)
    want = rollout.rewards.clone()
    for t in range(steps):
        for b in range(games):
            a = int(rollout.actions[t, b])
            rho = -math.log(len(legal[t][b])) if not snapshot else float(rollout.magnet[t, b, a])
            want[t, b] -= 0.3 * (float(rollout.log_probs[t, b]) - rho)
    adv, ret = gae(want, rollout.values, rollout.dones, rollout.last_values, 1.0, 0.9)
    samples = rollout.samples(1.0, 0.9, reward_magnet=0.3)
    torch.testing.assert_close(samples.advantages, adv.flatten())
    torch.testing.assert_close(samples.returns, ret.flatten())
    plain = rollout.samples(1.0, 0.9)
    assert not torch.allclose(plain.advantages, samples.advantages)


def test_schedules() -> None:
    assert scheduled(0.2, None, 0.7) == 0.2
    assert scheduled(1.0, 0.0, 0.25) == 0.75 and scheduled(1.0, 0.5, 2.0) == 0.5


def test_a_shared_trunk_keeps_the_policy_file_and_halves_the_critic() -> None:
    card = checkpoint.policy_card(SMOKE, 0)
    apart, shared = ActorCritic(card), ActorCritic(card, shared_trunk=True)
    assert {k: v.shape for k, v in shared.actor.state_dict().items()} == {
        k: torch.Size(v) for k, v in card.shapes().items()
    }
    assert [p.shape for p in shared.critic.parameters()] == [(1, card.net_arch[-1]), (1,)]
    rows = torch.rand(5, 125)
    for model in (apart, shared):
        logits, values = model(rows)
        assert logits.shape == (5, 10) and values.shape == (5,)
        torch.testing.assert_close(values, model.value(rows))
    # The value reads the actor's hidden layer: its gradient reaches the actor's body.
    shared(rows)[1].sum().backward()
    assert shared.actor.body[0].weight.grad is not None


# ----------------------------------------------------------------- NashConv
def uniform_actor() -> Actor:
    """An actor whose logits are all 0: uniform over the legal moves when it samples."""
    actor = checkpoint.policy_card(load_config(ROOT / "configs" / "smoke.yaml"), 0).build()
    torch.nn.init.zeros_(actor.head.weight)
    torch.nn.init.zeros_(actor.head.bias)
    return actor


@pytest.mark.slow
def test_exploit_meter_gives_the_uniform_policys_known_nashconv() -> None:
    # The uniform policy's NashConv at revised 2p (benchmarks/exploitability.py, README):
    # one round 0.4810 markers, the whole game 1.7440 outcome. The meter measures the
    # policy as the run's policy plays (play: sample), uniform here.
    cfg = config_from_dict(
        {
            "rules": "revised",
            "num_players": 2,
            "exploit_every": 1,
            "features": "culprit_odds",
            "play": "sample",
        }
    )
    measured = ExploitMeter(cfg).measure(uniform_actor())
    assert measured[ROUND] == pytest.approx(0.480952, abs=1e-5)
    assert measured[GAME] == pytest.approx(1.743952, abs=1e-5)
    assert nashconv_score(measured) == -measured[GAME]


def test_the_runs_play_mode_is_written_on_its_policy_card() -> None:
    for play in ("greedy", "sample"):
        cfg = config_from_dict({"rules": "revised", "num_players": 2, "play": play})
        assert checkpoint.policy_card(cfg, 7).play == play
        assert ExploitMeter(cfg).deterministic == (play == "greedy")
    mixed = config_from_dict({"num_players": 2, "play": "sample", "exploit_policy": "greedy"})
    assert ExploitMeter(mixed).deterministic
