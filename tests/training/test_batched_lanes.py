"""``learn_from: live_seats``: every live seat's decisions, one trajectory per seat.

The advantages over linked decisions against a reference written per seat, and the
collector's rollout read back against the games it played: each decision is its
acting seat's, each seat's decisions of a game chain to the game's end with that
seat's return, the zero-sum games pay zero over their seats, and a seat's decision
whose next one falls in the next rollout is carried there whole.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from grove_env.observation import OFF_TO_ACT
from grove_env.training.batched.lanes import LaneCollector, LaneRollout
from grove_env.training.batched.loss import lane_gae
from grove_env.training.batched.trainer import BatchedTrainer
from grove_env.training.config import load_config


def random_lanes(
    rng: np.random.Generator, games: int, seats: int, steps: int
) -> list[tuple[list[int], bool]]:
    """Seats' decisions as rows laid out as a :class:`LaneRollout` lays them out (the
    carried rows first): each a list of rows in time order, and whether its game ended."""
    carried = games * seats
    lanes: dict[tuple[int, int], list[int]] = {}
    out: list[tuple[list[int], bool]] = []
    for g in range(games):
        for s in range(seats):
            if rng.random() < 0.5:
                lanes[g, s] = [g * seats + s]
    for t in range(steps):
        for g in range(games):
            s = int(rng.integers(seats))
            lanes.setdefault((g, s), []).append(carried + t * games + g)
            if rng.random() < 0.15:  # the game ends after this step
                out += [(lanes.pop((g, q)), True) for q in range(seats) if (g, q) in lanes]
    return out + [(rows, False) for rows in lanes.values()]


def reference_advantages(
    rows: list[int], ended: bool, rewards: np.ndarray, values: np.ndarray, gamma: float, lam: float
) -> dict[int, float]:
    """GAE along one seat's decisions, as the formula reads: its last decision, if its
    game goes on, has no advantage and is the bootstrap of the one before."""
    learnt = rows if ended else rows[:-1]
    out: dict[int, float] = {}
    for i in reversed(range(len(learnt))):
        row = rows[i]
        if i + 1 < len(rows):  # the seat decides again: bootstrap from that decision
            after = rows[i + 1]
            delta = rewards[row] + gamma * values[after] - values[row]
            out[row] = delta + gamma * lam * out.get(after, 0.0)
        else:  # the game's end
            out[row] = rewards[row] - values[row]
    return out


@pytest.mark.parametrize(("gamma", "lam"), [(1.0, 0.95), (0.9, 0.5), (1.0, 0.0)])
def test_lane_gae_equals_a_reference_per_seat(gamma: float, lam: float) -> None:
    rng = np.random.default_rng(3)
    games, seats, steps = 5, 3, 12
    lanes = random_lanes(rng, games, seats, steps)
    size = games * seats + games * steps
    rewards = rng.normal(size=size).round(3)
    values = rng.normal(size=size).round(3)
    following = np.full(size, -1)
    dones = np.zeros(size, dtype=bool)
    for rows, ended in lanes:
        following[rows[:-1]] = rows[1:]
        dones[rows[-1]] = ended
    blocks = [slice(0, games * seats)] + [
        slice(games * seats + t * games, games * seats + (t + 1) * games) for t in range(steps)
    ]
    adv, ret, known = lane_gae(
        torch.tensor(rewards),
        torch.tensor(values),
        torch.tensor(dones),
        torch.tensor(following),
        blocks,
        gamma,
        lam,
    )
    want: dict[int, float] = {}
    for rows, ended in lanes:
        want.update(reference_advantages(rows, ended, rewards, values, gamma, lam))
    filled = sorted(r for rows, _ in lanes for r in rows)
    assert 0 < known.sum() < len(filled)  # some lanes end, some wait for a next decision
    assert {r for r in filled if known[r]} == set(want)
    for row, value in want.items():
        assert adv[row].item() == pytest.approx(value, abs=1e-12)
        assert ret[row].item() == pytest.approx(value + values[row], abs=1e-12)


def lane_trainer(
    tmp_path: Path, rules: str, players: int, steps: int, live: float = 1.0
) -> BatchedTrainer:
    smoke = load_config("configs/smoke.yaml")
    cfg = smoke.model_copy(
        update={
            "backend": "batched",
            "learn_from": "live_seats",
            "rules": rules,
            "num_players": players,
            "num_envs": 6,
            "n_steps": steps,
            "batch_size": 6 * steps,
            "features": "observation",
            "opponents": smoke.opponents.model_validate(
                {**{k: 0.0 for k in smoke.opponents.weights()}, "live": live, "random": 1 - live}
            ),
            "torch_threads": 1,
        }
    )
    return BatchedTrainer(cfg, tmp_path)


def watch(trainer: BatchedTrainer) -> list[dict]:
    """Record, for every step of the tables, who acted and which games ended how."""
    log: list[dict] = []
    table = trainer.collector.tables[0]
    advance = table.advance

    def watched(actions, active=None, infos=True):  # type: ignore[no-untyped-def]
        acting, learner = table.acting.copy(), table.learner_seat.copy()
        out = advance(actions, active, infos)
        log.append({"acting": acting, "learner": learner, "ended": list(table.ended)})
        return out

    table.advance = watched  # type: ignore[method-assign]
    return log


@pytest.mark.parametrize(
    ("rules", "players", "live"), [("revised", 2, 1.0), ("classic", 3, 1.0), ("classic", 4, 0.5)]
)
def test_each_seats_decisions_chain_to_its_return(
    tmp_path: Path, rules: str, players: int, live: float
) -> None:
    """Against live and random seats, each learning seat's decisions of a game chain
    to its end; the learner's sum to its return."""
    trainer = lane_trainer(tmp_path, rules, players, steps=120, live=live)
    assert isinstance(trainer.collector, LaneCollector)
    log = watch(trainer)
    rollout = trainer.rollout
    assert isinstance(rollout, LaneRollout)
    assert trainer.collector.collect(rollout, lambda n: True) is not None
    b, c = rollout.games, rollout.carried
    assert not rollout.filled[:c].any()  # a fresh start carries nothing
    # Every decision is its acting seat's: the observation says it is that seat's turn.
    assert (rollout.inputs[c:, OFF_TO_ACT] == 1).all()
    seat = np.stack([entry["acting"] for entry in log])  # [T, B]
    before = {int(n): int(r) for r, n in enumerate(rollout.following) if n >= 0}
    checked = 0
    for t, entry in enumerate(log):
        for closed in entry["ended"]:
            for i, g in enumerate(closed.games.tolist()):
                lane_sums = []
                for s in np.flatnonzero(closed.learning[i]).tolist():
                    mine = [u for u in range(t + 1) if seat[u, g] == s]
                    last = c + mine[-1] * b + g
                    assert rollout.dones[last]
                    chain = [last]
                    while chain[-1] in before:
                        chain.append(before[chain[-1]])
                    lane_sums.append(float(rollout.rewards[chain].sum()))
                    if s == entry["learner"][g]:
                        assert lane_sums[-1] == pytest.approx(float(closed.returns[i]), abs=1e-5)
                        assert len(chain) == closed.lengths[i]
                        checked += 1
                if closed.learning[i].all():  # the outcome is zero-sum over the seats
                    assert sum(lane_sums) == pytest.approx(0.0, abs=1e-5)
    assert checked >= b
    if live < 1.0:  # some games had random seats, which keep no decisions
        assert not trainer.collector.tables[0].learning.all()
    samples = rollout.samples(1.0, 0.95)
    assert len(samples.actions) == int(rollout.filled.sum()) - int((rollout.open >= 0).sum())
    # magnet_in reward: each filled row's reward less 0.2 log(pi(a) n_legal), by hand.
    rewards = rollout.rewards.copy()
    for row in np.flatnonzero(rollout.filled).tolist():
        legal = int(rollout.masks[row].sum())
        rollout.rewards[row] -= 0.2 * (float(rollout.log_probs[row]) + np.log(legal))
    by_hand = rollout.samples(1.0, 0.95)
    rollout.rewards[:] = rewards
    transformed = rollout.samples(1.0, 0.95, reward_magnet=0.2)
    torch.testing.assert_close(transformed.advantages, by_hand.advantages)
    assert not torch.allclose(transformed.advantages, samples.advantages)


def test_a_seats_last_decision_is_carried_into_the_next_rollout(tmp_path: Path) -> None:
    trainer = lane_trainer(tmp_path, "classic", 4, steps=5)
    rollout = trainer.rollout
    assert isinstance(rollout, LaneRollout)
    trainer.collector.collect(rollout, lambda n: True)
    lanes = np.flatnonzero(rollout.open.ravel() >= 0)
    src = rollout.open.ravel()[lanes]
    kept = {
        "inputs": rollout.inputs[src].clone(),
        "actions": rollout.actions[src].clone(),
        "log_probs": rollout.log_probs[src].clone(),
        "values": rollout.values[src].clone(),
        "rewards": rollout.rewards[src].copy(),
    }
    assert len(lanes) >= rollout.games  # every game has a seat waiting
    rollout.carry_over()
    assert np.array_equal(np.flatnonzero(rollout.filled), lanes)
    assert np.array_equal(rollout.open.ravel()[lanes], lanes)
    assert torch.equal(rollout.inputs[lanes], kept["inputs"])
    assert torch.equal(rollout.actions[lanes], kept["actions"])
    assert torch.equal(rollout.log_probs[lanes], kept["log_probs"])
    assert torch.equal(rollout.values[lanes], kept["values"])
    assert np.array_equal(rollout.rewards[lanes], kept["rewards"])
    assert (rollout.following == -1).all() and not rollout.dones.any()
    # The next rollout links the carried decisions to their seats' next ones.
    trainer.collector.collect(rollout, lambda n: True)
    assert (rollout.following[lanes] >= rollout.carried).mean() > 0.5


def test_two_runs_of_one_seed_train_the_same_weights(tmp_path: Path) -> None:
    weights = []
    for run in ("a", "b"):
        (tmp_path / run).mkdir()
        trainer = lane_trainer(tmp_path / run, "classic", 4, steps=6, live=0.5)
        for _ in range(3):
            assert trainer.iterate()
        trainer.writer.close()
        weights.append([p.detach().clone() for p in trainer.model.parameters()])
    assert all(torch.equal(a, b) for a, b in zip(*weights))
    assert not all(torch.equal(a, b) for a, b in zip(weights[0], lane_init(tmp_path)))


def lane_init(tmp_path: Path) -> list[torch.Tensor]:
    (tmp_path / "init").mkdir()
    trainer = lane_trainer(tmp_path / "init", "classic", 4, steps=6, live=0.5)
    trainer.writer.close()
    return [p.detach().clone() for p in trainer.model.parameters()]


def test_magnet_in_reward_leaves_the_loss(tmp_path: Path, monkeypatch) -> None:
    """``magnet_in: reward``: the update's loss gets no magnet term (the rewards carry it,
    as the tests of ``samples`` check)."""
    import grove_env.training.batched.trainer as trainer_module

    seen = []

    def spy(model, optimizer, samples, weights, settings, generator):
        seen.append(weights)
        return update(model, optimizer, samples, weights, settings, generator)

    update = trainer_module.ppo_update
    monkeypatch.setattr(trainer_module, "ppo_update", spy)
    trainer = lane_trainer(tmp_path, "revised", 2, steps=6)
    extra = {"magnet": "uniform", "magnet_coef": 0.1, "magnet_in": "reward"}
    trainer.cfg = trainer.cfg.model_validate({**trainer.cfg.model_dump(), **extra})
    assert trainer.iterate() and trainer.iterate()
    trainer.writer.close()
    assert [w.magnet_coef for w in seen] == [0.0, 0.0]
