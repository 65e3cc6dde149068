"""The page's hints: one column to act on, the recommended move, the shipped policies."""

from __future__ import annotations

import random

import pytest

from grove_env.actions import Phase
from grove_env.agents.learned.policy_files import zoo_shipped
from grove_env.core import Game
from grove_env.observation import ObservationEncoder
from grove_env.web.hints import seat_hints, table_policies


@pytest.mark.parametrize(("rules", "n"), [("classic", 4), ("classic", 2), ("revised", 5)])
def test_hints_mark_the_fewest_expected_markers_beside_each_shipped_policy(
    rules: str, n: int
) -> None:
    game, rng = Game(rules, n, seed=n), random.Random(n)
    encoder, checked = ObservationEncoder(game.rules, n), 0
    while not game.history:
        seat = game.current_player
        hints = seat_hints(game, seat, encoder)
        assert [m["action"] for m in hints["moves"]] == game.legal_actions()
        assert hints["policies"] == table_policies(rules, n)
        for spec in hints["policies"]:
            assert sum(m["policies"][spec] for m in hints["moves"]) == pytest.approx(1.0)
        if game.phase is Phase.LOOK:
            assert hints["recommended"] is None
        else:
            fewest = min(m["penalty"] for m in hints["moves"])
            best = next(m for m in hints["moves"] if m["action"] == hints["recommended"])
            assert best["penalty"] == pytest.approx(fewest)
            checked += 1
        other = (seat + 1) % n  # a seat that is not to act gets no hints
        assert seat_hints(game, other, encoder)["moves"] == []
        game.apply_action(rng.choice(game.legal_actions()))
    assert checked >= n


def test_the_zoo_policy_is_offered_wherever_one_ships() -> None:
    assert table_policies("classic", 4) == ["zoo:classic-4p"]
    assert table_policies("revised", 2)[-1] == "cfr"
    for table in zoo_shipped():
        rules, n = table.split("-")
        assert f"zoo:{table}" in table_policies(rules, int(n[:-1]))
