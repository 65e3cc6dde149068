"""Learning from every live seat (``learn_from: live_seats``): one trajectory per seat.

In self-play the learner's live weights play several seats of a game, and each of
those seats' decisions is as much an on-policy sample as the learner seat's. The
default collector (:mod:`.rollout`) learns from the learner seat alone and plays the
others as opponents, so most of each step's engine, observation and forward passes
feed no gradient. Here every *learning* seat of a game (the learner seat and each
``live`` seat, :attr:`SelfPlayGames.learning
<grove_env.training.selfplay.games.SelfPlayGames.learning>`) keeps a trajectory of its own,
a *lane*:

* a step is one decision of every game, by whichever learning seat acts there (the
  other opponents' moves are played in between, as before), so one forward pass
  answers all games and every row of it is learnt from;
* each decision is linked to its seat's next decision in that game
  (:attr:`LaneRollout.following`), and collects that seat's rewards up to then: the
  lanes of one game interleave in time, but a seat's value bootstraps only from its
  own next state (never from another seat's, the pitfall the default collector also
  avoids);
* a lane's last decision of a rollout has no next decision yet: it is kept back and
  carried into the next rollout (the first ``B x 5`` rows), and learnt from once its
  next decision or its game's end is known; the decision before it bootstraps from
  its value, as a rollout's last step does in the default collector. Nothing is
  bootstrapped from a state at which the seat does not act.

:func:`.loss.lane_gae` computes the advantages over the links, one slice of ``B`` rows
at a time. A step counts ``B`` learner steps, as in the default collector, so
``total_timesteps`` is the number of decisions played by the learning seats. In pure
self-play at ``n`` players a step of the engine is thus a learner step, where the
default collector steps the engine ``n`` times (and asks the network ``n`` times) for
one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from grove_env.actions import NUM_ACTIONS
from grove_env.agents.heuristic.advice import advised
from grove_env.observation import OFF_ROUND
from grove_env.rules import MAX_PLAYERS

from .loss import lane_gae, magnet_log_ratio
from .rollout import Collector, RolloutStats
from .update import Samples


@dataclass
class LaneRollout:
    """The decisions of ``T`` steps of ``B`` games, after the ``C = B x 5`` carried ones.

    Row ``C + t B + g`` is game ``g``'s decision at step ``t``; row ``5 g + s`` is seat
    ``s`` of game ``g``'s decision carried from the rollout before (where ``filled``).
    The network's side is on the learner's device; the links and rewards are NumPy.
    """

    steps: int
    games: int
    inputs: torch.Tensor  # float32[M, input_size]
    masks: torch.Tensor  # bool[M, 10]
    actions: torch.Tensor  # int64[M]
    log_probs: torch.Tensor  # [M]
    values: torch.Tensor  # [M]
    magnet: torch.Tensor | None  # [M, 10] log-probabilities of a snapshot magnet
    rewards: np.ndarray  # float32[M]: the seat's rewards from the decision to its next
    dones: np.ndarray  # bool[M]: the game ended before the seat's next decision
    following: np.ndarray  # int64[M]: the row of the seat's next decision, -1 if none yet
    filled: np.ndarray  # bool[M]: the row holds a decision
    learnt: np.ndarray  # bool[M]: the decision is learnt from (round_games: not a whole
    # game's first round)
    open: np.ndarray  # int64[B, 5]: the row of each seat's latest decision, -1 if none

    @classmethod
    def empty(
        cls, steps: int, games: int, width: int, device: torch.device, magnet: bool
    ) -> LaneRollout:
        size = games * MAX_PLAYERS + steps * games

        def z(*shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
            return torch.zeros(shape, dtype=dtype, device=device)

        return cls(
            steps=steps,
            games=games,
            inputs=z(size, width),
            masks=z(size, NUM_ACTIONS, dtype=torch.bool),
            actions=z(size, dtype=torch.int64),
            log_probs=z(size),
            values=z(size),
            magnet=z(size, NUM_ACTIONS) if magnet else None,
            rewards=np.zeros(size, dtype=np.float32),
            dones=np.zeros(size, dtype=bool),
            following=np.full(size, -1, dtype=np.int64),
            filled=np.zeros(size, dtype=bool),
            learnt=np.ones(size, dtype=bool),
            open=np.full((games, MAX_PLAYERS), -1, dtype=np.int64),
        )

    @property
    def carried(self) -> int:
        return self.games * MAX_PLAYERS

    def step_rows(self, t: int) -> slice:
        return slice(self.carried + t * self.games, self.carried + (t + 1) * self.games)

    def clear(self) -> None:
        """No decision carried (the games restart)."""
        self.filled[:] = False
        self.open[:] = -1

    def carry_over(self) -> None:
        """Keep each seat's latest decision (whose next one is not known yet) as a carried
        row; forget the rest."""
        lanes = np.flatnonzero(self.open.ravel() >= 0)
        src = self.open.ravel()[lanes]
        rewards, learnt = self.rewards[src], self.learnt[src]
        at = torch.from_numpy(lanes).to(self.inputs.device)
        take = torch.from_numpy(src).to(self.inputs.device)
        for tensor in (self.inputs, self.masks, self.actions, self.log_probs, self.values):
            tensor[at] = tensor[take]
        if self.magnet is not None:
            self.magnet[at] = self.magnet[take]
        self.rewards[:] = 0.0
        self.dones[:] = False
        self.following[:] = -1
        self.filled[:] = False
        self.rewards[lanes] = rewards
        self.learnt[lanes] = learnt
        self.filled[lanes] = True
        self.open.ravel()[lanes] = lanes

    def link(self, t: int, seats: np.ndarray) -> None:
        """Step ``t``'s decisions were played by ``seats[g]``: link them to those seats'
        previous decisions."""
        rows = np.arange(self.step_rows(t).start, self.step_rows(t).stop)
        games = np.arange(self.games)
        before = self.open[games, seats]
        had = before >= 0
        self.following[before[had]] = rows[had]
        self.open[games, seats] = rows
        self.filled[rows] = True

    def samples(self, gamma: float, lam: float, reward_magnet: float = 0.0) -> Samples:
        """The decisions whose advantage is known (:func:`.loss.lane_gae`), with it;
        ``reward_magnet`` as :meth:`.rollout.Rollout.samples` takes it."""
        device = self.values.device
        blocks = [slice(0, self.carried)] + [self.step_rows(t) for t in range(self.steps)]
        rewards = torch.from_numpy(self.rewards).to(device)
        if reward_magnet:
            ratio = magnet_log_ratio(self.log_probs, self.masks, self.actions, self.magnet)
            filled = torch.from_numpy(self.filled).to(device)
            rewards = rewards - reward_magnet * torch.where(filled, ratio, 0.0)
        advantages, returns, known = lane_gae(
            rewards,
            self.values,
            torch.from_numpy(self.dones).to(device),
            torch.from_numpy(self.following).to(device),
            blocks,
            gamma,
            lam,
        )
        rows = torch.from_numpy(np.flatnonzero(self.filled & self.learnt)).to(device)
        rows = rows[known[rows]]
        return Samples(
            inputs=self.inputs[rows],
            masks=self.masks[rows],
            actions=self.actions[rows],
            log_probs=self.log_probs[rows],
            values=self.values[rows],
            advantages=advantages[rows],
            returns=returns[rows],
            magnet=None if self.magnet is None else self.magnet[rows],
        )


class LaneCollector(Collector):
    """Steps the run's games with the learner's policy at every learning seat, into a
    :class:`LaneRollout` (the tables are built with ``learners="live"``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fresh = True
        """The games (re)started since the last rollout: no decision to carry."""

    def restart(self, seed: int) -> None:
        super().restart(seed)
        self.fresh = True

    @torch.no_grad()
    def collect(  # type: ignore[override]
        self, rollout: LaneRollout, keep_going: Callable[[int], bool]
    ) -> RolloutStats | None:
        """Fill ``rollout``; ``None`` if ``keep_going(B)`` said stop after a step."""
        stats = RolloutStats({}, [], [])
        self.model.eval()
        if self.fresh:
            rollout.clear()
            self.fresh = False
        else:
            rollout.carry_over()
        for t in range(rollout.steps):
            actions = self.decide(rollout, rollout.step_rows(t))
            rollout.link(t, np.concatenate([table.acting for table in self.tables]))
            if self.round_tables:
                rollout.learnt[rollout.step_rows(t)] = self.learnt_rows()
            self._advance_lanes(actions.cpu().numpy(), rollout, stats)
            if not keep_going(self.num_games):
                return None
        self.gather_results(stats)
        return stats

    def learnt_rows(self) -> np.ndarray:
        """Per game, whether its decision just taken is learnt from: with ``round_games``,
        a whole game's first-round decisions are not (the round games teach that round)."""
        whole = self.bounds[self.whole_tables]
        learnt = np.ones(self.num_games, dtype=bool)
        learnt[:whole] = self.observed[:whole, OFF_ROUND] > 0
        return learnt

    def _advance_lanes(
        self, actions: np.ndarray, rollout: LaneRollout, stats: RolloutStats
    ) -> None:
        """One step of every table: each seat's rewards onto its latest decision; the
        games that ended close their seats' lanes (a truncation bootstrapped)."""
        finals, cut = [], []
        whole = self.whole_tables
        for i, (table, lo, hi) in enumerate(zip(self.tables, self.bounds[:-1], self.bounds[1:])):
            n = table.num_players
            table.advance(actions[lo:hi], infos=False)
            lanes = rollout.open[lo:hi, :n]
            paid = lanes >= 0
            rollout.rewards[lanes[paid]] += table.seat_rewards[paid]
            for closed in table.ended:
                games = closed.games + lo
                last = rollout.open[games, :n]
                rollout.dones[last[last >= 0]] = True
                rollout.open[games] = -1
                if i >= whole:
                    continue  # a round game: its round's end is its end, in markers
                stats.returns.append(closed.returns)
                stats.lengths.append(closed.lengths)
                assert closed.seat_observations is not None
                cut_games = np.flatnonzero(closed.truncated)
                cut_last = last[cut_games]
                where = cut_last >= 0
                if where.any():
                    finals.append(closed.seat_observations[cut_games][where])
                    cut.append(cut_last[where])
        if finals:
            obs = np.concatenate(finals)
            rows = torch.from_numpy(advised(obs) if self.advice else obs).to(self.device)
            bootstrap = self.model.value(rows).cpu().numpy()
            rollout.rewards[np.concatenate(cut)] += self.gamma * bootstrap
