"""The hints panel: each legal move's expected penalty markers this round, the move they
recommend, and the shipped policies' move probabilities.

Computed from the person's observation vector only (their information state), never
from the game's hidden tiles:

- ``penalty``: the penalty markers the person expects to take this round after the move,
  by the heuristic's search (:func:`grove_env.agents.heuristic.hints.move_hints`); fewer
  is better. ``value`` is the same search's score of the standing the move leaves (a
  tie-break, not shown);
- ``recommended``: the move with the fewest expected penalty markers (ties: the higher
  value), so the mark and the column the person reads agree;
- ``policies``: the move probabilities of each policy the package ships for the table
  (:func:`table_policies`): the zoo's network wherever one ships (its distribution, even
  where it plays its likeliest move), and ``cfr``, the solved two-player round.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grove_env.actions import Phase
from grove_env.agents.base import make_agent, table_refusal
from grove_env.agents.heuristic.hints import move_hints
from grove_env.agents.learned.policy_files import zoo_shipped

from .views import View, action_mask
from .words import move_words

UNIT = "expected penalty markers (fewer is better)"
"""What the ``penalty`` column counts, in the page's words."""


def table_policies(rules: str, num_players: int) -> list[str]:
    """The agent specs of the shipped policies that play this table: its zoo policy where
    one ships, then ``cfr`` where it plays."""
    table = f"{rules}-{num_players}p"
    specs = [f"zoo:{table}"] if table in zoo_shipped() else []
    return specs + [s for s in ("cfr",) if table_refusal(s, rules, num_players) is None]


def _probabilities(spec: str, observation: np.ndarray, mask: np.ndarray) -> list[float] | None:
    """``spec``'s move probabilities here, or ``None`` where it has no entry for it."""
    options = {"deterministic": False} if spec.startswith("zoo:") else {}
    agent: Any = make_agent(spec, seed=0, **options)
    try:
        return [float(p) for p in agent.action_probabilities(observation[None], mask[None])[0]]
    except ValueError:  # no entry for this observation: the panel goes without it
        return None


def recommended(moves: list[View]) -> int | None:
    """The move with the fewest expected penalty markers (ties: the higher value)."""
    scored = [m for m in moves if m["penalty"] is not None]
    if not scored:
        return None
    best = min(scored, key=lambda m: (round(m["penalty"], 9), -m["value"], m["action"]))
    return int(best["action"])


def seat_hints(game: Any, seat: int, encoder: Any) -> View:
    """The hints of ``seat``, which is to act (else an empty list of moves)."""
    rules, n = game.rules.name, game.num_players
    mask = np.array(action_mask(game, seat), dtype=np.int8)
    if not mask.any():
        return {
            "moves": [],
            "policies": [],
            "recommended": None,
            "unit": UNIT,
            "note": "Hints are shown on your turn.",
        }
    observation = encoder.encode(game, seat)
    heuristic = move_hints(observation)
    probabilities = {s: _probabilities(s, observation, mask) for s in table_policies(rules, n)}
    policies = {s: p for s, p in probabilities.items() if p is not None}
    note = (
        "Before anyone looks, the three suspects are alike: leaving any one unseen is as good."
        if game.phase is Phase.LOOK
        else "The penalty markers you can expect to take this round after each move, by the "
        "heuristic's search over every deal you cannot rule out; ★ marks the move with the "
        "fewest."
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
                "policies": {s: p[action] for s, p in policies.items()},
            }
        )
    return {
        "moves": moves,
        "policies": list(policies),
        "recommended": recommended(moves),
        "unit": UNIT,
        "note": note,
    }
