"""What ``grove_v1`` accepts, checked before anything changes (the env's docstring lists it).

:func:`check_arguments` refuses a bad constructor argument; :func:`forced_deals` reads
``reset``'s seed and options (a forced deal under ``"deal"``; other keys pass through with a
warning, as Gymnasium's wrappers expect); :func:`deal_game` deals the game, and when a forced
deal is refused puts the seeder back as it was, so a rejected reset leaves the env unchanged.
"""

from __future__ import annotations

import random
from typing import Any

import gymnasium
import numpy as np

from grove_env.core import Game
from grove_env.render import RENDER_MODES
from grove_env.rules import RuleSet
from grove_env.standings import REWARD_MODES

ILLEGAL_MODES = ("raise", "terminate")


def check_arguments(
    reward: str, max_rounds: int, render_mode: str | None, illegal_action: str
) -> None:
    """Raise ``ValueError`` naming the first argument of ``raw_env`` that is out of range."""
    if reward not in REWARD_MODES:
        raise ValueError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
    if isinstance(max_rounds, bool) or not isinstance(max_rounds, int) or max_rounds < 1:
        raise ValueError(f"max_rounds must be an int >= 1, got {max_rounds!r}")
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be None or one of {RENDER_MODES}, got {render_mode!r}")
    if illegal_action not in ILLEGAL_MODES:
        raise ValueError(f"illegal_action must be one of {ILLEGAL_MODES}, got {illegal_action!r}")


def forced_deals(seed: Any, options: Any) -> list[Any]:
    """The deals ``reset(seed, options)`` forces (none or one), once the seed and options
    are known to be well formed."""
    if seed is not None and (
        isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0
    ):
        raise ValueError(f"seed must be an int >= 0 or None, got {seed!r}")
    if options is not None and not isinstance(options, dict):
        raise TypeError(f"options must be a dict or None, got {type(options).__name__}")
    deals = []
    if options:
        unknown = set(options) - {"deal"}
        if unknown:  # Gymnasium convention: other wrappers' options pass through
            gymnasium.logger.warn(f"grove_v1 ignores reset options {sorted(unknown)}")
        if options.get("deal") is not None:
            deals.append(options["deal"])
    return deals


def deal_game(rule_set: RuleSet, num_players: int, seeder: random.Random, deals: list[Any]) -> Game:
    """A new game seeded from ``seeder``; a refused deal raises and leaves ``seeder`` as it was."""
    # Only a forced deal can be refused; the seeder's state (625 words) is saved for it.
    state = seeder.getstate() if deals else None
    try:
        return Game(rule_set, num_players, seed=seeder.getrandbits(64), deals=deals)
    except (ValueError, TypeError):
        if state is not None:
            seeder.setstate(state)
        raise
