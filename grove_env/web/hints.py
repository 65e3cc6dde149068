"""The hints panel: each legal move's expected penalty markers this round, and more.

Computed from the person's observation vector only (their information state), never
from the game's hidden tiles:

- ``penalty`` and ``value``: the heuristic's search, :func:`grove_env.agents.heuristic.
  hints.move_hints` (its advice, with the penalty markers as a second payoff);
- ``policy``: the move probabilities of the strongest policy the package ships for the
  table, where one ships (:data:`SHIPPED_POLICIES`, in order of strength, each asked
  through the registry's :func:`~grove_env.agents.base.table_refusal` whether it plays
  this table). Today that is ``cfr``, the solved two-player game; at other tables the
  panel has the heuristic's figures alone.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grove_env.actions import Phase
from grove_env.agents.base import make_agent, table_refusal
from grove_env.agents.heuristic.hints import move_hints

from .views import View, action_mask
from .words import move_words

SHIPPED_POLICIES = ("cfr",)
"""Agent specs of policies shipped inside the package that give move probabilities,
strongest first."""


def shipped_policy(rules: str, num_players: int) -> str | None:
    """The strongest shipped policy that plays this table, or ``None``."""
    return next((s for s in SHIPPED_POLICIES if table_refusal(s, rules, num_players) is None), None)


def _policy(spec: str, observation: np.ndarray, mask: np.ndarray) -> np.ndarray | None:
    agent: Any = make_agent(spec, seed=0)
    try:
        return np.asarray(agent.action_probabilities(observation[None], mask[None])[0])
    except ValueError:  # no entry for this observation: the panel goes without it
        return None


def seat_hints(game: Any, seat: int, encoder: Any) -> View:
    """The hints of ``seat``, which is to act (else an empty list of moves)."""
    rules, n = game.rules.name, game.num_players
    mask = np.array(action_mask(game, seat), dtype=np.int8)
    if not mask.any():
        return {"moves": [], "policy": None, "note": "Hints are shown on your turn."}
    observation = encoder.encode(game, seat)
    heuristic = move_hints(observation)
    spec = shipped_policy(rules, n)
    probs = _policy(spec, observation, mask) if spec is not None else None
    note = (
        "Before anyone looks, the three suspects are alike: leaving any one unseen is as good."
        if game.phase is Phase.LOOK
        else "Expected penalty markers you take this round, by the heuristic's search over "
        "every deal you cannot rule out; value: how much better than the average move it "
        "leaves your standing."
    )
    moves = []
    for action in np.flatnonzero(mask).tolist():
        h = heuristic.get(action, {})
        moves.append(
            {
                "action": action,
                "name": move_words(action),
                "penalty": h.get("penalty"),
                "value": h.get("value"),
                "policy": None if probs is None else float(probs[action]),
            }
        )
    return {"moves": moves, "policy": spec if probs is not None else None, "note": note}
