"""A warm start for PPO: the network first learns a teacher agent's moves.

Training from random weights spends most of a short run learning what any rule-based
agent already knows (accuse the likely culprit, do not top an innocent stack). With
``imitate: heuristic`` a run first plays ``imitate_steps`` learner decisions of its own
training games with the teacher in the learner's seat (the opponents are the run's
mix, the teacher standing in for ``live`` and ``pool``), then fits the policy to the
teacher's moves (cross-entropy over the legal actions) and the value to each decision's
return in that game (Monte Carlo, the run's reward), for ``imitate_epochs`` passes.
PPO then trains on from there. The data are the learner seat's decisions only, as in
PPO's own rollouts (:mod:`grove_env.training.selfplay.games`), so the value learns the same
credit assignment.

>>> from grove_env.training.config import config_from_dict
>>> cfg = config_from_dict({"num_envs": 16, "batch_size": 64, "n_steps": 8,
...                         "opponents": {"random": 1.0, "live": 0, "pool": 0, "heuristic": 0}})
>>> data = teacher_games(cfg, "greedy", steps=256, seed=0)
>>> len(data.actions) >= 256, bool(data.masks[range(len(data.actions)), data.actions].all())
(True, True)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from grove_env.agents.base import make_agent
from grove_env.observation import OBS_SIZE
from grove_env.training.config import TrainConfig
from grove_env.training.selfplay.tables import TableGames, build_opponents, table_games


@dataclass(frozen=True)
class TeacherData:
    """Learner-seat decisions of the teacher: what it saw, could do, did, and got."""

    observations: np.ndarray  # float32[N, 125], followed by the advice where the run reads it
    masks: np.ndarray  # bool[N, 10]
    actions: np.ndarray  # int64[N]
    returns: np.ndarray  # float32[N], the rest of the game's reward (gamma 1)


class TeacherActor:
    """The teacher where the opponents expect an actor (``live`` and ``pool`` seats)."""

    def __init__(self, teacher: Any) -> None:
        self.teacher = teacher

    def act(self, observations: np.ndarray, masks: np.ndarray, **_: Any) -> np.ndarray:
        return np.asarray(self.teacher.act_batch(observations, masks), dtype=np.int64)


def teacher_games(cfg: TrainConfig, teacher: str, steps: int, seed: int) -> TeacherData:
    """At least ``steps`` learner decisions of the teacher in the run's training games.

    Decisions of games still running at the end have no return yet and are dropped, so
    a few more games than ``steps / num_envs`` rounds are played.
    """
    agent: Any = make_agent(teacher, seed=seed)
    opponents = build_opponents(cfg, seed + 1)
    opponents.live = TeacherActor(agent)  # type: ignore[assignment]
    env = TableGames(table_games(cfg, opponents, seed), advice=cfg.features == "advice")
    obs = env.restart(seed)
    rows: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    returns: list[np.ndarray] = []
    open_rows: list[list[int]] = [[] for _ in range(env.num_envs)]  # decisions per game
    kept = 0
    while kept < steps:
        masks = env.action_masks()
        actions = np.asarray(agent.act_batch(obs[:, :OBS_SIZE], masks), dtype=np.int64)
        rewards, dones, _ = env.advance(actions)
        index = len(rows)
        rows.append((obs, masks, actions, rewards.astype(np.float32)))
        returns.append(np.zeros(env.num_envs, dtype=np.float32))
        for b in range(env.num_envs):
            open_rows[b].append(index)
        for b in np.flatnonzero(dones).tolist():  # a game ended: credit its decisions backwards
            total = 0.0
            for i in reversed(open_rows[b]):
                total += float(rows[i][3][b])
                returns[i][b] = total
            kept += len(open_rows[b])
            open_rows[b] = []
        obs = env.observe()
    done = np.ones((len(rows), env.num_envs), dtype=bool)
    for b, pending in enumerate(open_rows):
        done[pending, b] = False
    pick = done.reshape(-1)
    return TeacherData(
        observations=np.concatenate([r[0] for r in rows])[pick],
        masks=np.concatenate([r[1] for r in rows]).astype(bool)[pick],
        actions=np.concatenate([r[2] for r in rows])[pick],
        returns=np.concatenate(returns)[pick],
    )


Forward = Callable[[torch.Tensor, torch.Tensor], tuple[torch.Tensor, torch.Tensor]]
"""``(rows, masks) -> (log-probabilities [N, 10], values [N])`` of the network to fit."""


def imitate(model: Any, data: TeacherData, epochs: int, batch_size: int, seed: int) -> dict:
    """Fit ``model.policy`` (an SB3 masked actor-critic) to the teacher (:func:`fit_teacher`)."""
    policy = model.policy

    def forward(rows: torch.Tensor, masks: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        dist = policy.get_distribution(rows, action_masks=masks)
        return dist.distribution.logits, policy.predict_values(rows)[:, 0]

    policy.set_training_mode(True)
    try:
        return fit_teacher(
            forward,
            policy.parameters(),
            data,
            epochs,
            batch_size,
            seed,
            lr=float(model.lr_schedule(1.0)),
            vf_coef=model.vf_coef,
            max_grad_norm=model.max_grad_norm,
            device=policy.device,
        )
    finally:
        policy.set_training_mode(False)


def fit_teacher(
    forward: Forward,
    parameters: Iterable[torch.nn.Parameter],
    data: TeacherData,
    epochs: int,
    batch_size: int,
    seed: int,
    lr: float,
    vf_coef: float,
    max_grad_norm: float,
    device: str | torch.device = "cpu",
) -> dict:
    """Fit a network to the teacher: policy by cross-entropy on its moves, value by squared
    error on the returns, with Adam at ``lr``. Returns the last epoch's mean losses and
    the share of moves the policy now picks like the teacher."""
    params = list(parameters)
    optimizer = torch.optim.Adam(params, lr=lr)
    generator = torch.Generator().manual_seed(seed)
    obs = torch.as_tensor(data.observations, dtype=torch.float32, device=device)
    masks = torch.as_tensor(data.masks, device=device)
    actions = torch.as_tensor(data.actions, device=device)
    returns = torch.as_tensor(data.returns, device=device)
    stats: dict[str, float] = {}
    for _ in range(epochs):
        order = torch.randperm(len(actions), generator=generator).to(device)
        totals = {"policy_loss": 0.0, "value_loss": 0.0}
        for lo in range(0, len(order), batch_size):
            at = order[lo : lo + batch_size]
            log_probs, values = forward(obs[at], masks[at])
            policy_loss = -log_probs.gather(1, actions[at, None])[:, 0].mean()
            value_loss = torch.nn.functional.mse_loss(values, returns[at])
            loss = policy_loss + vf_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, max_grad_norm)
            optimizer.step()
            totals["policy_loss"] += policy_loss.item() * len(at)
            totals["value_loss"] += value_loss.item() * len(at)
        stats = {k: v / len(order) for k, v in totals.items()}
    with torch.no_grad():
        picked = torch.cat(
            [
                forward(obs[lo : lo + batch_size], masks[lo : lo + batch_size])[0].argmax(dim=1)
                for lo in range(0, len(actions), batch_size)
            ]
        )
    stats["agreement"] = float((picked == actions).float().mean())
    return stats


def report_imitation(
    teacher: str, decisions: int, epochs: int, stats: dict[str, float], began: float
) -> None:
    """The line a run prints after its warm start."""
    print(
        f"imitated {teacher}: {decisions:,} decisions, {epochs} epochs, "
        f"{stats['agreement']:.1%} of its moves, {time.time() - began:.0f} s",
        flush=True,
    )
