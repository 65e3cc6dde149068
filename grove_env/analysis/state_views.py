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
a few thousand rows made the policy's own overhead the cost. Where a policy gives some
branches probability 0 (the heuristic, the styles, a solved strategy), most information
sets that no profile NashConv values can reach are not asked at all (:func:`needed`: a
quarter of the heuristic's at revised 3p).

:class:`PolicyAnswers` asks it from worker processes where the policy says it may be
(a true ``fork_safe`` attribute, as the row agents' policies have:
:func:`~grove_env.analysis.policies.policy_of`), each a part of a batch, a batch ahead
of the walk that uses the answers.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence

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
    size = len(tree.depths[t].observations)
    rows = np.repeat(np.arange(len(states)), size), np.tile(np.arange(size), len(states))
    return rewritten(tree, t, states, *rows).reshape(len(states), size, -1)


def rewritten(
    tree: RoundTree, t: int, states: Sequence[State], state: np.ndarray, infoset: np.ndarray
) -> np.ndarray:
    """``float32[K, 125]``: the observation of information set ``infoset[k]`` of depth
    ``t`` at ``states[state[k]]``, for each row ``k``."""
    n = tree.num_players
    depth = tree.depths[t]
    was = np.array(tree.state.counts(tree.rules, n))
    order = (depth.seat + np.arange(n)) % n
    shift = (np.array([counts for counts, _ in states]) - was[None])[:, :, order]
    obs = depth.observations[infoset]
    for part, offset in enumerate((OFF_COLOURED, OFF_PENALTY)):
        held = np.rint(obs[:, offset : offset + n] * COUNT_SCALE)
        obs[:, offset : offset + n] = (held + shift[state, part]) / COUNT_SCALE
    rounds = np.array([r for _, r in states], dtype=np.float64)
    obs[:, OFF_ROUND] = (rounds[state] - 1) / ROUND_SCALE
    return obs


def needed(tree: RoundTree, t: int, off: np.ndarray) -> np.ndarray:
    """``bool[S, infosets]``: the information sets of depth ``t`` whose answer can change
    a value, per state, given ``off[S, deals, 3**t]``: one bit per seat that took a
    branch of probability 0 on the way to each node.

    NashConv needs a seat's policy where no seat left it (the on-policy values) and where
    one other seat did (that seat's best response); anywhere else the node's reach
    under every profile it is valued in is exactly 0, whatever is played there."""
    depth = tree.depths[t]
    size = len(depth.observations)
    bit = np.uint8(1 << depth.seat)
    ok = ((off & bit) == 0) & ((off & (off - np.uint8(1))) == 0)  # not its own, one at most
    nodes = ok[0].size
    at = np.flatnonzero(ok)
    flat = (at // nodes) * size + depth.infoset.ravel()[at % nodes]
    out = np.zeros(len(off) * size, dtype=bool)
    out[flat] = True
    return out.reshape(len(off), size)


def branches_at(
    tree: RoundTree, policies: Sequence[Policy], states: Sequence[State], batch: int | None = None
) -> list[list[np.ndarray]]:
    """Per state, per depth, ``float64[infosets, 3]``: the branch probabilities of
    ``policies`` (one per absolute seat) in ``tree`` rewritten to that state, as
    :func:`~grove_env.analysis.policies.branch_probabilities` gives them one state at a
    time, asked ``batch`` rows at a time over all the states together (default: the
    policy's own ``batch``, else :data:`BATCH`).

    Only the information sets that can change NashConv are asked (:func:`needed`: where
    the policies give some branches probability 0, most of the rest are never reached by
    the profiles NashConv values); the others get 1/3 a branch, which changes no value."""
    per_depth = []
    off: np.ndarray | None = None  # None: no branch of probability 0 on any path yet
    for t, depth in enumerate(tree.depths):
        size = len(depth.observations)
        if off is not None:
            state, infoset = np.nonzero(needed(tree, t, off))
        else:  # every set may be reached
            state, infoset = np.divmod(np.arange(len(states) * size), size)
        probs = np.full((len(states), size, 3), 1.0 / 3.0)
        if len(state):
            policy = policies[depth.seat]
            rows = batch if batch is not None else int(getattr(policy, "batch", BATCH))
            obs = rewritten(tree, t, states, state, infoset)
            probs[state, infoset] = legal_branches(policy, obs, depth.masks[infoset], rows)
        per_depth.append(probs)
        zero = probs <= 0
        if t + 1 < tree.num_decisions and (off is not None or zero.any()):
            if off is None:
                off = np.zeros((len(states), *depth.infoset.shape), dtype=np.uint8)
            bits = zero[:, depth.infoset].astype(np.uint8) << np.uint8(depth.seat)
            off = (off[:, :, :, None] | bits).reshape(len(states), len(tree.deals), -1)
    return [[p[s] for p in per_depth] for s in range(len(states))]


_ASKED: tuple[Sequence[RoundTree], Sequence[Policy]] | None = None
"""The trees and policies forked workers answer about (set before the fork)."""


def _answer(job: tuple[int, list[State]]) -> list[list[np.ndarray]]:
    assert _ASKED is not None, "a worker forked without the trees and policies"
    trees, policies = _ASKED
    return branches_at(trees[job[0]], policies, job[1])


def forkable(policies: Sequence[Policy]) -> bool:
    """Whether every policy may be asked from a forked process (``fork_safe``), and this
    platform forks."""
    fork = "fork" in multiprocessing.get_all_start_methods()
    return fork and all(getattr(p, "fork_safe", False) for p in policies)


class PolicyAnswers:
    """:func:`branches_at` of ``trees[f]`` for batches of states, over ``workers``
    forked processes (in this process where ``workers`` is 1 or a policy is not
    :func:`forkable`). :meth:`submit` starts a batch and returns the call that waits for
    it; use it as a context manager, which ends the workers."""

    def __init__(
        self, trees: Sequence[RoundTree], policies: Sequence[Policy], workers: int = 1
    ) -> None:
        global _ASKED
        self.trees, self.policies = trees, policies
        self.workers = workers if workers > 1 and forkable(policies) else 1
        self.pool = None
        if self.workers > 1:
            _ASKED = (trees, policies)
            self.pool = multiprocessing.get_context("fork").Pool(self.workers)
            _ASKED = None

    def submit(self, f: int, states: list[State]) -> Callable[[], list[list[np.ndarray]]]:
        if self.pool is None:
            return lambda: branches_at(self.trees[f], self.policies, states)
        parts = [states[i :: self.workers] for i in range(self.workers)]
        pending = [self.pool.apply_async(_answer, ((f, part),)) for part in parts if part]

        def wait() -> list[list[np.ndarray]]:
            got = [p.get() for p in pending]
            return [got[i % self.workers][i // self.workers] for i in range(len(states))]

        return wait

    def __enter__(self) -> PolicyAnswers:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.terminate()
            self.pool.join()
