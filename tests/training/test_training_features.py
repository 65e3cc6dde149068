"""The derived policy inputs: culprit odds against brute-force counting over real positions."""

from __future__ import annotations

import itertools
import random

import gymnasium as gym
import numpy as np
import pytest
import torch

from grove_env.agents.views.rows import VIEW_WEIGHTS, Rows, split_view
from grove_env.core import Game, culprit_slot
from grove_env.observation import ObservationEncoder
from grove_env.training.sb3.features import NUM_EXTRA, GroveFeatures, culprit_odds, extra_features

torch.set_num_threads(1)


def brute_force_odds(game: Game, seat: int) -> list[float] | None:
    """Culprit odds by enumerating every placement of the unseen tiles (None: all unseen)."""
    seen = game.seen[seat]
    unseen = [s for s in range(3) if seen[s] is None]
    if len(unseen) == 3:
        return None
    pool = list(game.rules.tiles(game.num_players))
    known = [*game.known_tiles(seat), *(t for t in seen if t is not None)]
    if game.victim_for(seat) is not None:
        known.append(game.victim_for(seat))
    if game.spare is not None:
        known.append(game.spare)
    for t in known:
        pool.remove(t)
    odds = [0.0, 0.0, 0.0]
    placements = list(itertools.permutations(range(len(pool)), len(unseen)))
    for chosen in placements:
        triple = list(seen)
        for slot, i in zip(unseen, chosen):
            triple[slot] = pool[i]
        odds[culprit_slot(triple)] += 1.0 / len(placements)
    return odds


def positions(rules: str, n: int, games: int, seed: int):
    rng = random.Random(seed)
    encoder = ObservationEncoder(Game(rules, n).rules, n)
    for g in range(games):
        game = Game(rules, n, seed=seed * 1000 + g)
        while not game.terminal:
            seat = game.current_player
            yield game, seat, encoder.encode(game, seat)
            game.apply_action(rng.choice(game.legal_actions()))


@pytest.mark.parametrize(
    "rules,n", [("classic", 2), ("classic", 3), ("classic", 4), ("revised", 2), ("revised", 5)]
)
def test_culprit_odds_match_brute_force(rules: str, n: int) -> None:
    rows, expected = [], []
    for game, seat, obs in positions(rules, n, games=15, seed=n):
        odds = brute_force_odds(game, seat)
        rows.append(obs)
        expected.append(odds if odds is not None else [1 / 3] * 3)
    got = culprit_odds(torch.as_tensor(np.array(rows))).numpy()
    np.testing.assert_allclose(got, np.array(expected), atol=1e-5)


def test_features_extractor_appends_to_the_observation() -> None:
    obs = np.array([o for _, _, o in itertools.islice(positions("classic", 4, 3, 0), 40)])
    space = gym.spaces.Box(0.0, np.inf, (125,), np.float32)
    out = GroveFeatures(space)(torch.as_tensor(obs))
    assert out.shape == (40, 125 + NUM_EXTRA)
    np.testing.assert_array_equal(out[:, :125].numpy(), obs)
    extra = extra_features(torch.as_tensor(obs)).numpy()
    np.testing.assert_allclose(extra[:, :3].sum(1), 1.0, atol=1e-5)
    assert (extra[:, 3:6] >= 0).all() and (extra[:, 6] <= 0.6).all()


def test_culprit_odds_of_a_mixed_batch_are_each_tables_own() -> None:
    # The odds read only a row's own view, so rows of every table in one batch get the
    # same odds as in a batch of their table alone (the all-tables network mixes them).
    parts = [
        np.array([o for _, _, o in itertools.islice(positions(rules, n, 4, 7), 60)])
        for rules, n in [("classic", 2), ("revised", 5), ("classic", 4), ("revised", 3)]
    ]
    mixed = culprit_odds(torch.as_tensor(np.concatenate(parts))).numpy()
    alone = np.concatenate([culprit_odds(torch.as_tensor(p)).numpy() for p in parts])
    assert np.array_equal(mixed, alone)
    assert len({tuple(r) for r in mixed.round(6)}) > 10  # the rows differ: not all uniform


@pytest.mark.parametrize(
    "rules,n", [("classic", 3), ("classic", 4), ("revised", 2), ("revised", 5)]
)
def test_the_view_product_equals_the_rows_view(rules: str, n: int) -> None:
    # The view is one product of the one-hot blocks; Rows.pool counts their indices.
    obs = np.array([o for _, _, o in itertools.islice(positions(rules, n, 30, 5), 600)])
    pool, seen = split_view(obs @ VIEW_WEIGHTS)
    rows = Rows.of(obs)
    assert np.array_equal(pool, rows.pool) and np.array_equal(seen, rows.seen)
    assert (seen >= 0).any() and (pool.sum(axis=1) < rows.in_play.sum(axis=1)).all()


@pytest.mark.parametrize(
    "rules,n", [("classic", 2), ("classic", 4), ("revised", 3), ("revised", 5)]
)
def test_stack_and_later_accuser_features_match_the_rows_fields(rules: str, n: int) -> None:
    # extra_features reads the stacks and the player count as one matrix product; Rows
    # reads the same fields one by one.
    obs = np.array([o for _, _, o in itertools.islice(positions(rules, n, 20, 3), 500)])
    rows = Rows.of(obs)
    extra = extra_features(torch.as_tensor(obs)).numpy()
    np.testing.assert_array_equal(extra[:, 3:6], (rows.heights / 5.0).astype(np.float32))
    accusing = rows.phase == 2
    later = np.where(accusing, n - rows.position - 1, 0)
    np.testing.assert_array_equal(extra[:, 6], (later / 5.0).astype(np.float32))
    assert accusing.any() and (later > 0).any() and (rows.heights > 0).any()
