"""A run's tables (:mod:`grove_env.training.selfplay.tables`): the split, the seeds, and
:class:`TableGames`, which steps them as one batch exactly as each table steps alone."""

from __future__ import annotations

import numpy as np

from grove_env.training.config import TrainConfig
from grove_env.training.selfplay.tables import (
    TableGames,
    build_opponents,
    table_games,
    table_seed,
    table_sizes,
)


def test_the_split_covers_every_game_and_the_seeds_differ() -> None:
    for games, tables in [(4096, 7), (10, 3), (3, 3)]:
        sizes = table_sizes(games, tables)
        assert sum(sizes) == games and max(sizes) - min(sizes) <= 1
    assert len({table_seed(0, i) for i in range(7)}) == 7 and table_seed(9, 0) == 9


def cfg() -> TrainConfig:
    return TrainConfig(
        num_envs=12,
        batch_size=64,
        tables=["classic:3", "revised:2"],
        opponents={"live": 0.0, "pool": 0.0, "heuristic": 0.0, "random": 1.0},
    )


def test_the_tables_stepped_together_play_as_each_alone() -> None:
    config = cfg()
    together = TableGames(table_games(config, build_opponents(config, 1), seed=5))
    alone = table_games(config, build_opponents(config, 1), seed=5)
    rng = np.random.default_rng(0)
    rows = together.restart(5)
    firsts = [g.restart(table_seed(5, i)) for i, g in enumerate(alone)]
    assert np.array_equal(rows, np.concatenate(firsts))
    for _ in range(40):
        masks = together.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        rewards, dones, _ = together.advance(actions)
        parts = [g.advance(a) for g, a in zip(alone, np.split(actions, [6]))]
        assert np.array_equal(rewards, np.concatenate([p[0] for p in parts]))
        assert np.array_equal(dones, np.concatenate([p[1] for p in parts]))
        assert np.array_equal(together.observe(), np.concatenate([g.observe() for g in alone]))


def test_advice_follows_each_row() -> None:
    config = cfg()
    games = TableGames(table_games(config, build_opponents(config, 1), seed=0), advice=True)
    rows = games.restart(0)
    assert rows.shape[0] == 12 and rows.shape[1] > 125
    assert np.array_equal(rows[:, :125], np.concatenate([g.observe() for g in games.tables]))
