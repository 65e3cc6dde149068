"""Collecting a rollout: every game's learner decision of one step as one batch.

:class:`Collector` owns the run's :class:`~grove_env.training.selfplay.games.SelfPlayGames`
(one per table; the games stay on the CPU in NumPy) and fills a :class:`Rollout`
(``[T, B]`` tensors on the learner's device). A step is:

1. the learners' observations of all ``B`` games (and the advice, for ``features:
   advice``) and their masks, one array each;
2. one forward pass of the actor-critic over the ``B`` rows: logits, values; a masked
   Gumbel-max draw with the run's generator, as :meth:`Actor.act
   <grove_env.agents.learned.actor.Actor.act>` samples;
3. ``advance`` of every table: the engine plays the learners' moves and then the
   opponents', batched per opponent kind (the live and pool opponents are forward
   passes of the actor alone), until every game waits for its learner again.

No Python loop runs over games or seats. A game cut off at ``max_rounds`` gets
``gamma V(final observation)`` added to its last reward (SB3's bootstrap of a
truncation), from one forward pass over those games' final observations; with
``truncation: end`` the cut is the game's end and nothing is added
(:func:`bootstrap_gamma`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import torch

from grove_env.actions import NUM_ACTIONS
from grove_env.agents.heuristic.advice import advised
from grove_env.agents.learned.actor import Actor
from grove_env.training.config import TrainConfig
from grove_env.training.run.network import ActorCritic
from grove_env.training.selfplay.games import SelfPlayGames
from grove_env.training.selfplay.tables import FIRST_ROUND

from .loss import gae, magnet_log_ratio, masked_log_probs
from .update import Samples


class Decisions(Protocol):
    """Where :meth:`Collector.decide` writes a step's decisions: a :class:`Rollout`
    (indexed by step) or a :class:`~grove_env.training.batched.lanes.LaneRollout`
    (indexed by row)."""

    inputs: torch.Tensor
    masks: torch.Tensor
    actions: torch.Tensor
    log_probs: torch.Tensor
    values: torch.Tensor
    magnet: torch.Tensor | None


@dataclass
class Rollout:
    """``T`` steps of ``B`` games, on the learner's device."""

    inputs: torch.Tensor  # float32[T, B, input_size]: the rows after the input features
    masks: torch.Tensor  # bool[T, B, 10]
    actions: torch.Tensor  # int64[T, B]
    log_probs: torch.Tensor  # [T, B]
    values: torch.Tensor  # [T, B]
    rewards: torch.Tensor  # [T, B]
    dones: torch.Tensor  # bool[T, B]
    magnet: torch.Tensor | None  # [T, B, 10] log-probabilities of a snapshot magnet
    last_values: torch.Tensor = field(default_factory=lambda: torch.zeros(0))  # [B]

    @classmethod
    def empty(
        cls, steps: int, games: int, width: int, device: torch.device, magnet: bool
    ) -> Rollout:
        def z(*shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
            return torch.zeros(shape, dtype=dtype, device=device)

        return cls(
            inputs=z(steps, games, width),
            masks=z(steps, games, NUM_ACTIONS, dtype=torch.bool),
            actions=z(steps, games, dtype=torch.int64),
            log_probs=z(steps, games),
            values=z(steps, games),
            rewards=z(steps, games),
            dones=z(steps, games, dtype=torch.bool),
            magnet=z(steps, games, NUM_ACTIONS) if magnet else None,
            last_values=z(games),
        )

    def samples(self, gamma: float, lam: float, reward_magnet: float = 0.0) -> Samples:
        """Every decision of the rollout, with its advantage and return (:func:`.loss.gae`);
        ``reward_magnet``: the weight of the magnet in the rewards (``magnet_in: reward``)."""
        rewards = self.rewards
        if reward_magnet:
            ratio = magnet_log_ratio(self.log_probs, self.masks, self.actions, self.magnet)
            rewards = rewards - reward_magnet * ratio
        advantages, returns = gae(rewards, self.values, self.dones, self.last_values, gamma, lam)
        return Samples(
            inputs=self.inputs.flatten(0, 1),
            masks=self.masks.flatten(0, 1),
            actions=self.actions.flatten(),
            log_probs=self.log_probs.flatten(),
            values=self.values.flatten(),
            advantages=advantages.flatten(),
            returns=returns.flatten(),
            magnet=None if self.magnet is None else self.magnet.flatten(0, 1),
        )


@dataclass
class RolloutStats:
    """What a rollout's finished games say, for the log."""

    results: dict[str, tuple[int, float]]
    returns: list[np.ndarray]
    lengths: list[np.ndarray]

    def scalars(self) -> dict[str, float]:
        if not self.returns:
            return {}
        returns, lengths = np.concatenate(self.returns), np.concatenate(self.lengths)
        return {
            "rollout/ep_rew_mean": float(returns.mean()),
            "rollout/ep_len_mean": float(lengths.mean()),
        }


def bootstrap_gamma(cfg: TrainConfig) -> float:
    """The weight of a truncated game's bootstrapped value (0: ``truncation: end``)."""
    return cfg.gamma if cfg.truncation == "bootstrap" else 0.0


class Collector:
    """Steps the run's games with the learner's policy, into a :class:`Rollout`."""

    def __init__(
        self,
        tables: list[SelfPlayGames],
        model: ActorCritic,
        gamma: float,
        advice: bool,
        device: torch.device,
        generator: torch.Generator,
        round_tables: int = 0,
    ) -> None:
        self.tables = tables
        self.round_tables = round_tables
        """How many tables at the end play the first round alone (``round_games``; only
        :class:`~grove_env.training.batched.lanes.LaneCollector` reads them)."""
        self.observed = np.zeros((0, 0), dtype=np.float32)
        """The observations of the last :meth:`decide`, one row per game."""
        self.model = model
        self.gamma = gamma
        self.advice = advice
        self.device = device
        self.generator = generator
        self.bounds = np.cumsum([0] + [t.num_games for t in tables])
        self.num_games = int(self.bounds[-1])
        self.magnet: Actor | None = None
        """A frozen actor whose log-probabilities the rollout keeps (snapshot magnet)."""

    @property
    def whole_tables(self) -> int:
        """How many tables at the start play whole games (the rest are round games)."""
        return len(self.tables) - self.round_tables

    def restart(self, seed: int) -> None:
        """Start every game afresh; table ``i`` seeded ``seed + 7919 i``."""
        for i, table in enumerate(self.tables):
            table.restart(seed + 7919 * i)

    def _rows(self) -> tuple[torch.Tensor, torch.Tensor]:
        obs = self.observed = np.concatenate([t.observe() for t in self.tables])
        masks = np.concatenate([t.action_masks() for t in self.tables])
        rows = advised(obs) if self.advice else obs
        return (
            torch.from_numpy(rows).to(self.device),
            torch.from_numpy(masks).to(self.device),
        )

    @torch.no_grad()
    def collect(self, rollout: Rollout, keep_going: Callable[[int], bool]) -> RolloutStats | None:
        """Fill ``rollout``; ``None`` if ``keep_going(B)`` said stop after a step."""
        stats = RolloutStats({}, [], [])
        self.model.eval()
        for t in range(rollout.inputs.shape[0]):
            actions = self.decide(rollout, t)
            rewards, dones = self._advance(actions.cpu().numpy(), stats)
            rollout.rewards[t] = rewards.to(self.device)
            rollout.dones[t] = dones.to(self.device)
            if not keep_going(self.num_games):
                return None
        rows, _ = self._rows()
        rollout.last_values.copy_(self.model.value(rows))  # in place: it may be shared
        self.gather_results(stats)
        return stats

    def decide(self, rollout: Decisions, at: int | slice) -> torch.Tensor:
        """One forward pass over the acting rows of every game: the moves drawn, and
        what the loss needs of them (inputs, masks, moves, their log-probabilities, the
        values, the magnet's log-probabilities) written into ``rollout`` at ``at``."""
        rows, masks = self._rows()
        inputs = self.model.actor.features(rows)
        logits, values = self.model.heads(inputs)
        log_probs = masked_log_probs(logits, masks)
        actions = self.draw(log_probs)
        rollout.inputs[at] = inputs
        rollout.masks[at] = masks
        rollout.actions[at] = actions
        rollout.log_probs[at] = log_probs.gather(1, actions[:, None])[:, 0]
        rollout.values[at] = values
        if rollout.magnet is not None and self.magnet is not None:
            rollout.magnet[at] = masked_log_probs(self.magnet(rows), masks)
        return actions

    def gather_results(self, stats: RolloutStats) -> None:
        """The tables' results since the last rollout, into ``stats`` (labelled by table
        where there are several)."""
        whole = self.whole_tables
        for i, table in enumerate(self.tables):
            where = f"@{table.game.rules.name}:{table.num_players}" if whole > 1 else ""
            where = FIRST_ROUND if i >= whole else where
            stats.results.update({k + where: v for k, v in table.pop_results().items()})

    def draw(self, log_probs: torch.Tensor) -> torch.Tensor:
        """A move per row, sampled from ``log_probs`` by a Gumbel-max draw with the run's
        generator, as :meth:`Actor.act <grove_env.agents.learned.actor.Actor.act>` samples."""
        u = torch.rand(log_probs.shape, generator=self.generator).clamp_(1e-12, 1.0 - 1e-7)
        return (log_probs - torch.log(-torch.log(u.to(self.device)))).argmax(dim=1)

    def _advance(self, actions: np.ndarray, stats: RolloutStats) -> tuple[torch.Tensor, ...]:
        """One step of every table; rewards (truncations bootstrapped) and dones."""
        rewards = np.empty(self.num_games, dtype=np.float32)
        dones = np.empty(self.num_games, dtype=bool)
        finals, cut = [], []
        for table, lo, hi in zip(self.tables, self.bounds[:-1], self.bounds[1:]):
            rewards[lo:hi], dones[lo:hi], _ = table.advance(actions[lo:hi], infos=False)
            for closed in table.ended:
                stats.returns.append(closed.returns)
                stats.lengths.append(closed.lengths)
            truncated = np.flatnonzero(table.truncated)
            if truncated.size:
                finals.append(table.final_observations[truncated])
                cut.append(truncated + lo)
        reward = torch.from_numpy(rewards)
        if finals:
            obs = np.concatenate(finals)
            rows = torch.from_numpy(advised(obs) if self.advice else obs).to(self.device)
            bootstrap = self.model.value(rows).cpu()
            reward[torch.from_numpy(np.concatenate(cut))] += self.gamma * bootstrap
        return reward, torch.from_numpy(dones)
