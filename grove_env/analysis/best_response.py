"""Exact best response and NashConv of one round, in NumPy over deals x histories.

For a seat ``i`` against fixed policies of the others, the best response is found by
backward induction over ``i``'s information sets: going up the tree, at a depth where
``i`` acts, the counterfactual value of each action in an information set ``I`` is
``sum over (deal, history) in I of chance x others' reach x value below``, and ``i``
takes the best (perfect recall makes this exact). Elsewhere the value is the policy's
expectation. NashConv is ``sum_i (best-response value_i - policy value_i)`` in
markers (the env's ``markers`` reward), as OpenSpiel's ``nash_conv`` defines it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .policies import Policy, branch_probabilities
from .round_tree import RoundTree


@dataclass(frozen=True)
class Exploitability:
    """NashConv of a policy profile in one round, and each seat's parts."""

    nash_conv: float
    values: tuple[float, ...]
    """Each seat's expected markers reward under the profile."""
    best_response_values: tuple[float, ...]
    """Each seat's value when it alone best-responds."""

    @property
    def gains(self) -> tuple[float, ...]:
        """Each seat's best-response gain (``best_response_values - values``)."""
        return tuple(b - v for b, v in zip(self.best_response_values, self.values))


def node_policy(tree: RoundTree, probs: list[np.ndarray], t: int) -> np.ndarray:
    """``float64[deals, 3**t, 3]``: branch probabilities at each depth-``t`` node."""
    return probs[t][tree.depths[t].infoset]


def policy_values(tree: RoundTree, probs: list[np.ndarray]) -> np.ndarray:
    """Each seat's expected reward when every seat follows ``probs``."""
    reach = tree.chance[:, None]
    for t in range(tree.num_decisions):
        reach = (reach[:, :, None] * node_policy(tree, probs, t)).reshape(len(tree.deals), -1)
    return np.array([float((reach * tree.leaf_payoff(s)).sum()) for s in range(tree.num_players)])


def node_policies(tree: RoundTree, probs: list[np.ndarray]) -> list[np.ndarray]:
    """:func:`node_policy` of every depth, gathered once for the passes that share them."""
    return [node_policy(tree, probs, t) for t in range(tree.num_decisions)]


def others_reach(
    tree: RoundTree, probs: list[np.ndarray], seat: int, nodes: list[np.ndarray] | None = None
) -> list[np.ndarray]:
    """Per depth, chance x the other seats' reach of each node (``seat``'s own left out).

    ``nodes`` are :func:`node_policies` of ``probs`` where the caller has them."""
    reach = [tree.chance[:, None]]
    for t in range(tree.num_decisions - 1):
        step = reach[-1][:, :, None]
        if tree.depths[t].seat != seat:
            step = step * (node_policy(tree, probs, t) if nodes is None else nodes[t])
        else:
            step = np.repeat(step, 3, axis=2)
        reach.append(step.reshape(len(tree.deals), -1))
    return reach


def counterfactual_values(
    infoset: np.ndarray, reach: np.ndarray, below: np.ndarray, size: int
) -> np.ndarray:
    """``[size, 3]``: per information set, each action's value ``below`` summed over the
    nodes of the set, weighed by the others' ``reach`` of each node."""
    weighted = reach[:, :, None] * below
    ids = infoset.ravel()
    return np.stack(
        [np.bincount(ids, weights=weighted[:, :, b].ravel(), minlength=size) for b in range(3)],
        axis=1,
    )


def best_response_value(tree: RoundTree, probs: list[np.ndarray], seat: int) -> float:
    """``seat``'s expected reward when it best-responds to the others' ``probs``."""
    return best_response(tree, probs, seat)[0]


def best_response(
    tree: RoundTree,
    probs: list[np.ndarray],
    seat: int,
    nodes: list[np.ndarray] | None = None,
    leaves: np.ndarray | None = None,
) -> tuple[float, list[np.ndarray]]:
    """``seat``'s best-response value against the others' ``probs``, and the profile in
    which it plays that response: ``probs`` with ``seat``'s depths replaced by one-hot
    branch choices (the first best branch where several tie).

    ``nodes`` (:func:`node_policies`) and ``leaves`` (``seat``'s payoff per leaf, default
    :meth:`~RoundTree.leaf_payoff`) save a caller that has them the work."""
    nodes = node_policies(tree, probs) if nodes is None else nodes
    reach = others_reach(tree, probs, seat, nodes)
    value = tree.leaf_payoff(seat) if leaves is None else leaves
    profile = list(probs)
    for t in range(tree.num_decisions - 1, -1, -1):
        below = value.reshape(len(tree.deals), 3**t, 3)
        depth = tree.depths[t]
        if depth.seat != seat:
            value = (nodes[t] * below).sum(axis=2)
            continue
        q = counterfactual_values(depth.infoset, reach[t], below, len(probs[t]))
        best = q.argmax(axis=1)
        profile[t] = np.eye(3)[best]
        value = np.take_along_axis(below, best[depth.infoset][:, :, None], axis=2)[:, :, 0]
    return float((tree.chance * value[:, 0]).sum()), profile


def stage_values(
    tree: RoundTree, probs: list[np.ndarray], on: np.ndarray, best: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each seat's value when every seat follows ``probs``, with the leaves valued by the
    payoff array ``on``, and its best-response value with them valued by ``best`` (both
    shaped as :attr:`RoundTree.payoff`): :func:`policy_values` and
    :func:`best_response_value` of the tree with those payoffs, sharing one gather of the
    node policies and of the leaf payoffs."""
    nodes = node_policies(tree, probs)
    reach = tree.chance[:, None]
    for node in nodes:
        reach = (reach[:, :, None] * node).reshape(len(tree.deals), -1)
    culprit = tree.culprit.astype(np.intp)
    shape = (len(tree.deals), -1, tree.num_players)
    leaves = on[culprit].reshape(shape)
    # Summed as policy_values sums (pairwise): einsum's running sum drifts by 1e-12 here.
    values = np.array([(reach * leaves[:, :, s]).sum() for s in range(tree.num_players)])
    leaves = best[culprit].reshape(shape)
    responses = [
        best_response(tree, probs, s, nodes, leaves[:, :, s])[0] for s in range(tree.num_players)
    ]
    return values, np.array(responses)


def seat_counterfactual_values(
    tree: RoundTree, probs: list[np.ndarray], seat: int, payoff: np.ndarray | None = None
) -> dict[int, np.ndarray]:
    """Per depth ``t`` where ``seat`` acts, ``[infosets, 3]``: each branch's value to
    ``seat`` weighed by chance and the others' reach, everyone playing ``probs``. The
    gradient of ``seat``'s expected reward with respect to its branch probabilities.
    ``payoff`` (shaped as :meth:`~RoundTree.leaf_payoff`) values the leaves instead of
    ``seat``'s own reward: the gradient of that payoff's expectation."""
    reach = others_reach(tree, probs, seat)
    value = tree.leaf_payoff(seat) if payoff is None else payoff
    out = {}
    for t in range(tree.num_decisions - 1, -1, -1):
        below = value.reshape(len(tree.deals), 3**t, 3)
        depth = tree.depths[t]
        if depth.seat == seat:
            out[t] = counterfactual_values(depth.infoset, reach[t], below, len(probs[t]))
        value = (node_policy(tree, probs, t) * below).sum(axis=2)
    return out


def exploitability(tree: RoundTree, policies: list[Policy] | Policy) -> Exploitability:
    """NashConv of ``policies`` (one per seat, or one for every seat) in ``tree``'s round."""
    if callable(policies):
        policies = [policies] * tree.num_players
    if len(policies) != tree.num_players:
        raise ValueError(f"give one policy or {tree.num_players}, got {len(policies)}")
    probs = branch_probabilities(tree, policies)
    return exploitability_of(tree, probs)


def exploitability_of(tree: RoundTree, probs: list[np.ndarray]) -> Exploitability:
    """NashConv of branch probabilities per depth (as :func:`branch_probabilities` gives)."""
    values = policy_values(tree, probs)
    best = [best_response_value(tree, probs, s) for s in range(tree.num_players)]
    return Exploitability(
        nash_conv=float(sum(best) - values.sum()),
        values=tuple(float(v) for v in values),
        best_response_values=tuple(best),
    )
