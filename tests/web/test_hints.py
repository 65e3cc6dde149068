"""The hints' expected penalty markers: the heuristic's search with the penalty as payoff."""

from __future__ import annotations

import random

import numpy as np
import pytest

from grove_env.actions import ACCUSE_0, Phase
from grove_env.agents.heuristic.hints import move_hints
from grove_env.agents.heuristic.search import HeuristicParams
from grove_env.agents.views.rows import Rows
from grove_env.core import Game
from grove_env.observation import ObservationEncoder
from grove_env.odds import posterior
from grove_env.rules import get_rules

TABLES = [("classic", 2), ("classic", 4), ("revised", 3), ("revised", 5)]


def positions(rules: str, n: int, games: int, seed: int):
    """``(game, seat to act)`` at every decision of ``games`` random games' first rounds."""
    rng = random.Random(seed)
    for k in range(games):
        game = Game(rules, n, seed=seed * 1000 + k)
        while not game.history:
            yield game, game.current_player
            game.apply_action(rng.choice(game.legal_actions()))


@pytest.mark.parametrize(("rules", "n"), TABLES)
def test_the_last_accuser_expects_the_stack_it_would_top_times_the_chance_of_innocence(
    rules: str, n: int
) -> None:
    """With no later seat and every style playing at random (so every deal the seat allows
    is equally likely), accusing a suspect costs its stack plus the marker when innocent."""
    params = HeuristicParams(noise=1.0)
    encoder, checked = ObservationEncoder(get_rules(rules), n), 0
    for game, seat in positions(rules, n, 30, seed=n):
        if game.phase is not Phase.ACCUSE or len(game.accusations) != n - 1:
            continue
        obs = encoder.encode(game, seat)
        hints = move_hints(obs, params)
        rows = Rows.of(obs[None].astype(np.float64))
        guilty = posterior(rows.counts)[0]
        for s in range(3):
            height = len(game.stacks[s])
            assert hints[ACCUSE_0 + s]["penalty"] == pytest.approx((1 - guilty[s]) * (height + 1))
        checked += 1
    assert checked >= 20


@pytest.mark.parametrize(("rules", "n"), TABLES)
def test_hints_name_exactly_the_legal_moves_after_the_look(rules: str, n: int) -> None:
    encoder = ObservationEncoder(get_rules(rules), n)
    for game, seat in positions(rules, n, 5, seed=1):
        hints = move_hints(encoder.encode(game, seat))
        expected = [] if game.phase is Phase.LOOK else game.legal_actions()
        assert sorted(hints) == expected
        for h in hints.values():
            assert 0.0 <= h["penalty"] <= n * 2 and np.isfinite(h["value"])
