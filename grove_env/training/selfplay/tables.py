"""A run's tables: its ``num_envs`` games split over ``tables``, seeded, sharing the opponents.

Every learner builds its games here, so the split, the seeds and the opponents' seed are
written once: table ``i`` of a run seeded ``seed`` takes ``seed + 7919 i`` (table 0 keeps
``seed``), the opponents ``seed + 1``. :class:`TableGames` steps the tables as one batch
(slots in table order), for the runs that read the games as rows: the teacher's games,
the quick evaluations. The SB3 ``VecEnv`` (:mod:`grove_env.training.sb3.vec_env`) and the
batched backend's collectors step the :class:`~.games.SelfPlayGames` themselves.

>>> table_sizes(4096, 3), table_seed(5, 0), table_seed(5, 2)
([1366, 1365, 1365], 5, 15843)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from grove_env.agents.heuristic.advice import advised
from grove_env.training.config import TrainConfig
from grove_env.training.selfplay.games import SelfPlayGames
from grove_env.training.selfplay.opponents import Opponents


def table_seed(seed: int, index: int) -> int:
    """The seed of table ``index``'s games in a run seeded ``seed`` (table 0 keeps it)."""
    return seed + 7919 * index


def table_sizes(num_envs: int, tables: int) -> list[int]:
    """``num_envs`` games split as evenly as they go over ``tables`` tables, first ones larger."""
    return [len(part) for part in np.array_split(np.arange(num_envs), tables)]


def build_opponents(cfg: TrainConfig, seed: int) -> Opponents:
    """Who plays the other seats: the config's opponent mix (the live actor comes later)."""
    return Opponents(
        cfg.opponents.weights(),
        pool_size=cfg.pool_size,
        sampling=cfg.opponent_sampling,
        seed=seed,
    )


def table_games(
    cfg: TrainConfig,
    opponents: Opponents,
    seed: int,
    learners: str = "learner",
    make: Callable[..., SelfPlayGames] = SelfPlayGames,
    num_envs: int | None = None,
) -> list[SelfPlayGames]:
    """The run's games, one :class:`SelfPlayGames` (or ``make``'s face of it) per table of
    the config, seeded from ``seed``: ``num_envs`` games (the config's by default)."""
    tables = cfg.table_list()
    num_envs = cfg.num_envs if num_envs is None else num_envs
    return [
        make(
            size,
            opponents,
            rules=rules,
            num_players=n,
            reward=cfg.reward,
            max_rounds=cfg.max_rounds,
            learner_seat=cfg.learner_seat,
            seed=table_seed(seed, i),
            learners=learners,
        )
        for i, ((rules, n), size) in enumerate(zip(tables, table_sizes(num_envs, len(tables))))
    ]


FIRST_ROUND = "@first-round"
"""The label suffix of the round games' results (``rollout/win_share_vs_<kind>@first-round``)."""


def training_games(
    cfg: TrainConfig, opponents: Opponents, seed: int, learners: str
) -> tuple[list[SelfPlayGames], int]:
    """The batched backend's games: the tables' whole games, then (with ``round_games``)
    one more table of games that play the first round alone against ``round_opponents``
    (their own :class:`Opponents`, seeded ``seed + 2``, with the same live weights), seeded
    as the next table. Also how many tables at the end are such round games (0 or 1)."""
    rounds = cfg.round_game_count()
    games = table_games(cfg, opponents, seed, learners, num_envs=cfg.num_envs - rounds)
    if not rounds:
        return games, 0
    round_opponents = Opponents(cfg.round_opponents.weights(), seed=seed + 2, live=opponents.live)
    rules, n = cfg.table_list()[0]
    games.append(
        SelfPlayGames(
            rounds,
            round_opponents,
            rules=rules,
            num_players=n,
            reward="markers",
            max_rounds=1,
            learner_seat=cfg.learner_seat,
            seed=table_seed(seed, len(games)),
            learners=learners,
        )
    )
    return games, 1


class TableGames:
    """Several tables' games stepped as one batch: slot ``b`` of table ``i`` is row
    ``offset_i + b``. With ``advice`` every observation row is followed by its advice
    (``features: advice``), the network's input."""

    def __init__(self, games: list[SelfPlayGames], advice: bool = False) -> None:
        self.tables = games
        self.advice = advice
        self.num_envs = sum(g.num_games for g in games)

    def restart(self, seed: int) -> np.ndarray:
        """Every game afresh, table ``i``'s from ``table_seed(seed, i)``; the first rows."""
        return self._rows(
            np.concatenate([g.restart(table_seed(seed, i)) for i, g in enumerate(self.tables)])
        )

    def advance(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[dict]]:
        """Play one decision per slot: ``(rewards, dones, infos)`` in slot order."""
        bounds = np.cumsum([0] + [g.num_games for g in self.tables])
        parts = [g.advance(actions[lo:hi]) for g, lo, hi in zip(self.tables, bounds, bounds[1:])]
        infos = [info for part in parts for info in part[2]]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]), infos

    def observe(self) -> np.ndarray:
        """The rows the policy reads at every slot's acting learning seat."""
        return self._rows(np.concatenate([g.observe() for g in self.tables]))

    def action_masks(self) -> np.ndarray:
        return np.concatenate([g.action_masks() for g in self.tables])

    def _rows(self, observations: np.ndarray) -> np.ndarray:
        return advised(observations) if self.advice else observations
