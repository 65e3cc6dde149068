"""Hints for a person: each move's expected penalty markers this round, by the heuristic's search.

The search of :mod:`grove_env.agents.heuristic.search` weighs every deal the seat's
observation allows and every style of table by how well they explain the moves made so
far, and scores every way the round can end. Scored by the standing it leaves, that is
the heuristic's value of a move (the mixture row of :func:`~grove_env.agents.heuristic.
advice.advice`); scored instead by the penalty markers the seat takes in that ending,
it is the *expected penalty* of the move: the same weights, another payoff
(:func:`ending_penalties`). A keep or a swap is followed by the accusation the
heuristic would then make. The look gets no hint: before anyone looks the suspects are
alike. Everything comes from the observation alone, the seat's information state.

>>> from grove_env.core import Game
>>> from grove_env.observation import ObservationEncoder
>>> g = Game("classic", 4, deals=[(2, 3, 4, 6, 5, 7, 8, 0)])
>>> g.apply_action(0); g.apply_action(3)  # suspect 0 unseen (the 7 and 8 seen), keep
>>> h = move_hints(ObservationEncoder(g.rules, 4).encode(g, 0))
>>> [round(h[a]["penalty"], 2) for a in (7, 8, 9)]  # the 8 is guilty unless suspect 0 is the 5
[0.39, 0.31, 0.06]
"""

from __future__ import annotations

import numpy as np

from grove_env.actions import ACCUSE_0, KEEP, SWAP_0, Phase
from grove_env.rules import CulpritMarkers, RuleSet

from ..views.rows import Rows, rules_of
from .advice import MODELS, advice
from .search import (
    HeuristicParams,
    accusation_values,
    ending_values,
    round_changes,
    swap_variants,
)

MIXTURE = MODELS.index("mixture")


def ending_penalties(rows: Rows, rules: RuleSet) -> np.ndarray:
    """``float[K, 3 own slot, 3**later, 3 culprit]``: the penalty markers the seat takes in
    every way the round can end (the layout of :func:`~.search.ending_values`)."""
    n, position = rows.num_players, int(rows.position[0])
    returned = rules.culprit_markers is CulpritMarkers.RETURN
    changes, index = round_changes(n, position, returned)
    prefix = (rows.accused[:, :position] * 3 ** np.arange(position)).sum(axis=1)
    taken = changes[prefix][:, :, 1, 0].astype(np.float64)  # [K, U]: relative seat 0 is the seat
    at = index[prefix]
    return np.take_along_axis(taken, at.reshape(len(at), -1), axis=1).reshape(at.shape)


def _accuse_penalties(rows: Rows, rules: RuleSet, params: HeuristicParams) -> np.ndarray:
    return accusation_values(rows, rules, params, ending_penalties(rows, rules))


def move_hints(
    observation: np.ndarray, params: HeuristicParams | None = None
) -> dict[int, dict[str, float]]:
    """``{action: {"penalty": expected penalty markers this round, "value": the heuristic's
    value relative to the mean of the legal moves}}`` for one observation (module doc)."""
    params = params or HeuristicParams()
    obs = np.asarray(observation, dtype=np.float64)[None]
    rules, rows = rules_of(obs[0]), Rows.of(obs)
    values = advice(obs, params)[0, 7 * MIXTURE : 7 * MIXTURE + 7]
    phase = int(rows.phase[0])
    if phase == int(Phase.ACCUSE):
        penalties = _accuse_penalties(rows, rules, params)[0]
        return {
            ACCUSE_0 + s: {
                "penalty": float(penalties[s]),
                "value": float(values[ACCUSE_0 - KEEP + s]),
            }
            for s in range(3)
        }
    if phase != int(Phase.SWAP):
        return {}
    variants = swap_variants(rows)
    ends = ending_values(variants[0], rules, params)
    out = {}
    for move, variant in enumerate(variants):  # keep, then a swap of each slot
        if move and rows.seen[0, move - 1] < 0:
            continue  # the unseen suspect cannot be swapped
        best = int(accusation_values(variant, rules, params, ends)[0].argmax())
        penalty = float(_accuse_penalties(variant, rules, params)[0, best])
        action = KEEP if move == 0 else SWAP_0 + move - 1
        out[action] = {"penalty": penalty, "value": float(values[action - KEEP])}
    return out
