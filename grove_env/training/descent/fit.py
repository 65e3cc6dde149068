"""A network fitted to a table: how a descent on free logits comes back into the policy.

At classic 4 players the network's own exploitability descent stalls near NashConv 0.20
with the gauntlet's floors held, where a :class:`~grove_env.training.descent.exact.Table` (free
logits at each of the round's 609,896 information sets) started from the same policy
descends to 0.06 with every floor held (``docs/notes/measurements.md``, "Classic 4p").
The table covers one round; the network plays whole games. :func:`fit` moves the network
towards the table by minibatch Adam on the KL divergence from the table's branch
probabilities to the network's, each information set weighted by :func:`fit_weights`.

The weights matter because a round's information sets are reached very unevenly: at
classic 4 players, the last accusation's 1% most reached sets (under the table, counting
chance and the other seats) carry 76% of the reach. Uniform weights spend the network on
sets no one reaches; reach under the table alone neglects the sets that the floors'
opponents lead to. So each set's weight is ``(1 - reach_share) / sets`` plus
``reach_share`` shared equally among the profiles given: the table's own, and each
opponent's (every other seat playing it), each as the set's counterfactual reach
(:func:`~grove_env.analysis.best_response.others_reach`) over that profile's total at the
depth. The depths weigh the same.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from grove_env.agents.learned.actor import Actor
from grove_env.analysis.best_response import others_reach
from grove_env.analysis.round_tree import RoundTree
from grove_env.training.descent.tree import Inputs, branch_probabilities, trained_parameters

REACH_SHARE = 0.8
"""The part of each depth's weight given by reach (module docstring); the rest is uniform."""

SMALLEST = 1e-7
"""Table probabilities are taken at least this, so that the KL stays finite."""


def fit_weights(
    tree: RoundTree,
    profiles: Sequence[list[np.ndarray]],
    reach_share: float = REACH_SHARE,
) -> list[np.ndarray]:
    """Per depth, ``float64[infosets]``: each information set's weight in :func:`fit`
    (module docstring), from the branch probabilities of each of ``profiles`` (the
    table, an opponent: every seat plays them). Each depth's weights sum to 1."""
    if not 0 <= reach_share <= 1:
        raise ValueError(f"reach_share is in [0, 1], got {reach_share}")
    if not profiles and reach_share:
        raise ValueError("reach weights need at least one profile")
    reach = {
        seat: [others_reach(tree, probs, seat) for probs in profiles]
        for seat in {d.seat for d in tree.depths}
    }
    out = []
    for t, depth in enumerate(tree.depths):
        size = len(depth.representative)
        w = np.full(size, (1.0 - reach_share) / size)
        ids = depth.infoset.ravel()
        for seat_reach in reach[depth.seat]:
            at = np.bincount(ids, weights=seat_reach[t].ravel(), minlength=size)
            w += reach_share / len(profiles) * at / at.sum()
        out.append(w)
    return out


def fit(
    actor: Actor,
    inputs: Inputs,
    target: Sequence[np.ndarray],
    weights: Sequence[np.ndarray],
    epochs: int,
    lr: float,
    batch_size: int = 4096,
    seed: int = 0,
) -> list[float]:
    """Fit ``actor`` (its body and head) to the branch probabilities ``target`` on the
    information sets of ``inputs`` (:func:`~grove_env.training.descent.exact.tree_inputs`):
    ``epochs`` passes of minibatch Adam over every set, in an order drawn from ``seed``,
    on ``sum_I w(I) KL(target(I) || actor(I))`` with the depths' ``weights``
    (:func:`fit_weights`) divided by the number of depths; the step size linear from
    ``lr`` to 0. Returns that loss over every set before the first epoch and after each."""
    if epochs < 1 or not 0 < lr < np.inf or batch_size < 1:
        got = f"{epochs}, {lr}, {batch_size}"
        raise ValueError(f"need epochs >= 1, lr > 0, batch_size >= 1; got {got}")
    if not len(inputs) == len(target) == len(weights):
        raise ValueError("inputs, target and weights need one entry per depth")
    rows = torch.cat([x for x, _ in inputs])
    legal = torch.cat([m for _, m in inputs])
    goal = torch.cat([torch.as_tensor(p, dtype=torch.float32) for p in target]).clamp_min(SMALLEST)
    goal = goal / goal.sum(1, keepdim=True)
    w = torch.cat([torch.as_tensor(x, dtype=torch.float32) for x in weights]) / len(weights)
    if not len(rows) == len(goal) == len(w):
        raise ValueError("target and weights need one row per information set of inputs")
    own = (goal * goal.log()).sum(1)  # the target's negative entropy: KL = own - cross

    def loss_on(idx: torch.Tensor) -> torch.Tensor:
        probs = branch_probabilities(actor, [(rows[idx], legal[idx])])[0]
        kl = own[idx] - (goal[idx] * probs.clamp_min(1e-9).log()).sum(1)
        return (w[idx] * kl).sum()

    def total() -> float:
        with torch.no_grad():
            return float(sum(loss_on(i) for i in torch.arange(len(rows)).split(65536)))

    optimizer = torch.optim.Adam(trained_parameters(actor), lr=lr)
    order = torch.Generator().manual_seed(seed)
    scale = len(rows) / batch_size  # a batch's loss estimates the whole sum
    steps = epochs * -(-len(rows) // batch_size)
    losses = [total()]
    k = 0
    for _ in range(epochs):
        for idx in torch.randperm(len(rows), generator=order).split(batch_size):
            for group in optimizer.param_groups:
                group["lr"] = lr * (1.0 - k / steps)
            loss = loss_on(idx) * scale
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            k += 1
        losses.append(total())
    return losses


__all__ = ["REACH_SHARE", "fit", "fit_weights"]
