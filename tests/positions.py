"""Helpers shared by the agent tests: build a position and read a seat's observation."""

from __future__ import annotations

import numpy as np

from grove_env import Game, ObservationEncoder
from grove_env.actions import NUM_ACTIONS


def observe(game: Game, seat: int) -> dict[str, np.ndarray]:
    """The observation dict grove_v0 would give ``seat`` now."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    if seat == game.current_player:
        mask[game.legal_actions()] = 1
    enc = ObservationEncoder(game.rules, game.num_players)
    return {"observation": enc.encode(game, seat), "action_mask": mask}


def play(game: Game, *actions: int) -> Game:
    """Apply ``actions`` in order and return the game."""
    for a in actions:
        game.apply_action(a)
    return game
