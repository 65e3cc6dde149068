"""Each seat's value in fresh games, on the batched engine: a responder's, and the profile's.

:func:`response_values` seats the responder (any agent: the trained best response as
``ppo:<checkpoint>``) at each seat in turn against ``n - 1`` copies of the policy;
:func:`profile_values` plays the policy at every seat and reads every seat's return of
the same games. A seat's gain is the difference of the two (:mod:`.report`).

Every game slot counts only its first ``quota`` games (short games are not favoured, as
in :mod:`grove_env.training.measure.evaluate`), and the responder's slots rotate their
seat game by game, so each seat gets the same number of games. The games are seeded
apart from training's (``seed`` is the caller's; the trainer's games use the config's
seed and ``seed + 7919 k``). The interval of a mean is the normal one, ``1.96`` standard
errors: a value is a mean of thousands of bounded returns.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from grove_env.training.selfplay.games import SelfPlayGames
from grove_env.training.selfplay.opponents import Opponents
from grove_env.vector import VectorGame

Z95 = 1.96
"""Standard errors each side of a mean in its 95% interval."""
MAX_SLOTS = 512
"""Games played side by side."""
POLICY = 1
"""The policy's kind id in an :class:`Opponents` of that one policy."""


@dataclass(frozen=True)
class SeatValues:
    """Per seat: the mean return over ``games`` games and its standard error."""

    means: list[float]
    errors: list[float]
    games: int
    """Games per seat."""

    def to_dict(self) -> dict[str, Any]:
        return {"means": self.means, "errors": self.errors, "games": self.games}


def summarise(returns: list[list[float]]) -> SeatValues:
    """Means and standard errors of each seat's returns (the same count at every seat).

    >>> summarise([[1.0, -1.0], [0.0, 0.0]]).means
    [0.0, 0.0]
    """
    means = [float(np.mean(r)) for r in returns]
    errors = [float(np.std(r, ddof=1) / math.sqrt(len(r))) if len(r) > 1 else math.inf
              for r in returns]  # fmt: skip
    return SeatValues(means, errors, min(len(r) for r in returns))


def _layout(num_players: int, games: int) -> tuple[int, int]:
    """``(slots, quota)``: whole seat rotations of slots, each playing ``quota`` games (a
    multiple of the seats), at least ``games`` per seat in all."""
    slots = num_players * math.ceil(min(num_players * games, MAX_SLOTS) / num_players)
    rounds = math.ceil(num_players * games / slots / num_players)
    return slots, rounds * num_players


def response_values(
    responder: Any,
    policy: str,
    rules: str,
    num_players: int,
    reward: str,
    max_rounds: int,
    games: int,
    seed: int,
) -> SeatValues:
    """The responder's mean return at each seat against ``n - 1`` copies of ``policy``
    (a spec), over at least ``games`` fresh games per seat."""
    slots, quota = _layout(num_players, games)
    table = SelfPlayGames(
        slots,
        Opponents({policy: 1.0}, seed=seed + 1),
        rules=rules,
        num_players=num_players,
        reward=reward,
        max_rounds=max_rounds,
        learner_seat="rotate",
        seed=seed,
    )
    obs = table.restart(seed)
    counted = np.zeros(slots, dtype=np.int64)
    returns: list[list[float]] = [[] for _ in range(num_players)]
    while (counted < quota).any():
        seats = table.learner_seat.copy()  # a game ends at most once per decision
        actions = np.asarray(responder.act_batch(obs, table.action_masks()), dtype=np.int64)
        table.advance(actions, infos=False)
        obs = table.observe()
        for closed in table.ended:
            for slot, ret in zip(closed.games.tolist(), closed.returns.tolist()):
                if counted[slot] < quota:
                    returns[int(seats[slot])].append(ret)
                    counted[slot] += 1
    return summarise(returns)


def profile_values(
    policy: str,
    rules: str,
    num_players: int,
    reward: str,
    max_rounds: int,
    games: int,
    seed: int,
) -> SeatValues:
    """The policy's mean return at each seat when it plays every seat, over at least
    ``games`` fresh games (every seat's return of each game)."""
    slots, quota = _layout(num_players, games)
    quota //= num_players  # every game counts at every seat
    players = Opponents({policy: 1.0}, seed=seed + 1)
    game = VectorGame(slots, rules, num_players, reward, max_rounds, seed=seed)
    running = np.zeros((slots, num_players), dtype=np.float64)
    counted = np.zeros(slots, dtype=np.int64)
    returns: list[list[float]] = [[] for _ in range(num_players)]
    while (counted < quota).any():
        actions = players.act(POLICY, game.observe(), game.action_masks())
        result = game.step(actions)
        running += result.rewards
        for slot in result.ended_games.tolist():
            if counted[slot] < quota:
                for seat in range(num_players):
                    returns[seat].append(float(running[slot, seat]))
                counted[slot] += 1
            running[slot] = 0.0
    return summarise(returns)
