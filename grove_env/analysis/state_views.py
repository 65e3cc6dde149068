"""A round tree's information sets as seen from other public states, many at once.

Between public states a round's observations differ only in the marker counts and the
round number, so the whole game builds each first player's round tree once and
rewrites those entries per state (a test checks them against the encoder). Counts seen
mid-round already lack the markers placed so far, so each is moved by the difference
between the two states' starting counts.

:func:`observations_at` rewrites one depth for a batch of states in one NumPy step, and
:func:`branches_at` asks a fixed profile for its branch probabilities there in large
batches: the whole game asks a policy about every information set of every public state
(revised 3p: 564 states x 32,802 information sets), and one call per state per depth of
a few thousand rows made the policy's own overhead the cost.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from grove_env.observation import COUNT_SCALE, OFF_COLOURED, OFF_PENALTY, OFF_ROUND, ROUND_SCALE

from .policies import Policy, legal_branches
from .round_tree import RoundTree

Counts = tuple[tuple[int, ...], tuple[int, ...]]
"""A public state's marker counts: coloured then penalty, per absolute seat."""

State = tuple[Counts, int]
"""A public state: its counts and the round number."""

BATCH = 1 << 15
"""Rows per policy call when many states are asked at once, unless the policy names its
own (a ``batch`` attribute, as :func:`~grove_env.analysis.policies.policy_of` gives row
agents): the zoo's revised 3p network takes 5 times less time per row than in batches
of 4,096 state by state (measured at revised 3p)."""


def observations_at(tree: RoundTree, t: int, states: Sequence[State]) -> np.ndarray:
    """``float32[S, infosets, 125]``: depth ``t``'s observations at each of ``states``."""
    n = tree.num_players
    depth = tree.depths[t]
    was = np.array(tree.state.counts(tree.rules, n))
    order = (depth.seat + np.arange(n)) % n
    shift = (np.array([counts for counts, _ in states]) - was[None])[:, :, order]
    obs = np.repeat(depth.observations[None], len(states), axis=0)
    for part, offset in enumerate((OFF_COLOURED, OFF_PENALTY)):
        held = np.rint(depth.observations[:, offset : offset + n] * COUNT_SCALE)
        obs[:, :, offset : offset + n] = (held[None] + shift[:, part, None, :]) / COUNT_SCALE
    rounds = np.array([r for _, r in states], dtype=np.float64)
    obs[:, :, OFF_ROUND] = ((rounds - 1) / ROUND_SCALE)[:, None]
    return obs


def branches_at(
    tree: RoundTree, policies: Sequence[Policy], states: Sequence[State], batch: int | None = None
) -> list[list[np.ndarray]]:
    """Per state, per depth, ``float64[infosets, 3]``: the branch probabilities of
    ``policies`` (one per absolute seat) in ``tree`` rewritten to that state, as
    :func:`~grove_env.analysis.policies.branch_probabilities` gives them one state at a
    time, asked ``batch`` rows at a time over all the states together (default: the
    policy's own ``batch``, else :data:`BATCH`)."""
    per_depth = []
    for t, depth in enumerate(tree.depths):
        obs = observations_at(tree, t, states).reshape(-1, depth.observations.shape[1])
        masks = np.tile(depth.masks, (len(states), 1))
        policy = policies[depth.seat]
        size = batch if batch is not None else int(getattr(policy, "batch", BATCH))
        probs = legal_branches(policy, obs, masks, size)
        per_depth.append(probs.reshape(len(states), -1, 3))
    return [[p[s] for p in per_depth] for s in range(len(states))]
