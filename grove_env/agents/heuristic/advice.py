"""The heuristic's search as input features: what each move is worth at each kind of table.

A policy network sees one round and the marker counts; what it cannot work out in a
forward pass is the search the heuristic (:mod:`grove_env.agents.heuristic.search`) does over
every deal its observation allows. :func:`advice` hands it that search, taken apart:
for each *model of the table* (every other seat plays one of the deterministic styles
of :data:`~grove_env.agents.heuristic.style_model.STYLES`, or accuses at random, or the
heuristic's mixture of those), the value of each of the seat's moves, and the
posterior over the tables given the moves already made this round. The network then
learns which model to follow when, which no fixed prior of the heuristic can: the
heuristic's values are one mixture, its posterior what one round shows.

=======  ====================================================================
index    content (``M = len(MODELS)`` models, ``T + 1 = len(STYLES) + 1`` tables)
=======  ====================================================================
0        ``7 * M`` values: model ``m``'s value of action ``a`` (``KEEP`` .. the last
         accusation, actions 3-9) at ``7 * m + a - 3``, minus the mean over the
         phase's legal moves; zero outside the swap and accuse phases and for
         moves not open (a swap of an unseen slot)
7 * M    ``T + 1`` posterior weights of the tables (the styles, then random), from
         the heuristic's prior and the earlier moves of the round; zero outside the
         accuse phase
=======  ====================================================================

A move's value is the heuristic's (:func:`~grove_env.agents.heuristic.search.table_values`):
the expected standing after the round, each other seat ``x`` markers behind counting
about ``tanh(x / spread)``; a swap is worth the best accusation after it. The look (the
slots are exchangeable before it) gets no advice. Advice depends on the observation
alone, so a policy that reads it is still a function of its observation.

>>> from grove_env.core import Game
>>> from grove_env.observation import ObservationEncoder
>>> g = Game("classic", 4, deals=[(2, 3, 4, 6, 5, 7, 8, 0)])
>>> g.apply_action(0); g.apply_action(3)  # slot 0 unseen (the 7 and 8 seen), keep
>>> a = advice(ObservationEncoder(g.rules, 4).encode(g, 0)[None])
>>> a.shape == (1, ADVICE_SIZE)
True
>>> m = MODELS.index("mixture")  # best: accuse the 7, a sure innocent, and be covered
>>> [round(float(v), 3) for v in a[0, 7 * m : 7 * m + 7]]  # keep, swaps, accusations of slots 0-2
[0.0, 0.0, 0.0, 0.0, -0.029, 0.114, -0.085]
"""

from __future__ import annotations

import numpy as np

from grove_env.actions import ACCUSE_0, KEEP, NUM_ACTIONS, Phase
from grove_env.rules import RuleSet

from ..views.rows import Rows, tables
from .search import HeuristicParams, ending_values, swap_variants, table_values
from .style_model import STYLES

MODELS: tuple[str, ...] = (*STYLES, "random", "mixture")
"""The models of the table whose move values are advised, in order."""

MOVES = NUM_ACTIONS - KEEP
"""Actions advised per model: keep, the three swaps and the three accusations."""

ADVICE_SIZE = MOVES * len(MODELS) + len(STYLES) + 1


def model_values(
    rows: Rows, rules: RuleSet, params: HeuristicParams, ends: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``(values[K, M, 3], posterior[K, T + 1])``: each model's value of accusing each
    slot, and the posterior over the tables, for rows at one position in the accuse phase
    (:func:`~grove_env.agents.heuristic.search.table_values`, with their mixture appended)."""
    table, posterior = table_values(rows, rules, params, ends)
    mixed = np.einsum("kt,ktc->kc", posterior, table)
    return np.concatenate([table, mixed[:, None]], axis=1), posterior


def advice(observations: np.ndarray, params: HeuristicParams | None = None) -> np.ndarray:
    """``float32[K, ADVICE_SIZE]``: the advice for ``K`` observation rows (module docstring)."""
    params = params or HeuristicParams()
    obs = np.asarray(observations, dtype=np.float64)
    values = np.zeros((len(obs), len(MODELS), MOVES))
    open_moves = np.zeros((len(obs), MOVES), dtype=bool)
    posterior = np.zeros((len(obs), len(STYLES) + 1))
    for rules, _, idx in tables(obs):
        rows = Rows.of(obs[idx])
        accusing = np.flatnonzero(rows.phase == int(Phase.ACCUSE))
        for position in np.unique(rows.position[accusing]):
            at = accusing[rows.position[accusing] == position]
            values[idx[at], :, ACCUSE_0 - KEEP :], posterior[idx[at]] = model_values(
                rows.take(at), rules, params
            )
            open_moves[idx[at], ACCUSE_0 - KEEP :] = True
        swapping = np.flatnonzero(rows.phase == int(Phase.SWAP))
        if swapping.size:
            first = rows.take(swapping)
            variants = swap_variants(first)  # keep, then a swap of each slot
            ends = ending_values(variants[0], rules, params)  # the same after any swap
            for move, variant in enumerate(variants):
                can = np.ones(len(first), bool) if move == 0 else first.seen[:, move - 1] >= 0
                at = np.flatnonzero(can)
                if not at.size:
                    continue
                after, _ = model_values(variant.take(at), rules, params, ends[at])
                values[idx[swapping[at]], :, move] = after.max(axis=2)  # the best accusation
                open_moves[idx[swapping[at]], move] = True
    count = np.maximum(open_moves.sum(axis=1), 1)[:, None, None]
    mean = (values * open_moves[:, None]).sum(axis=2, keepdims=True) / count
    centred = np.where(open_moves[:, None], values - mean, 0.0)
    flat = centred.reshape(len(obs), len(MODELS) * MOVES)
    return np.concatenate([flat, posterior], axis=1).astype(np.float32)


def advised(observations: np.ndarray) -> np.ndarray:
    """``float32[K, 125 + ADVICE_SIZE]``: the observation rows followed by their advice."""
    obs = np.asarray(observations, dtype=np.float32)
    return np.concatenate([obs, advice(obs)], axis=1)
