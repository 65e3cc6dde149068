"""What a descent reads off one round tree: the policy's branch probabilities at every
information set (a network's, or a :class:`TabularPolicy`'s free logits), the fixed
opponents of the play term and the floors, and the exact values a descent reports.

The descent itself, and what its terms are, is :mod:`grove_env.training.descent.exact`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from grove_env.agents.learned.actor import MASKED_LOGIT, Actor
from grove_env.analysis.best_response import exploitability_of, seat_counterfactual_values
from grove_env.analysis.play import against_profile, value_against
from grove_env.analysis.policies import branches_of
from grove_env.analysis.round_tree import RoundTree


@dataclass(frozen=True)
class DescentReport:
    """One measurement of a descent: its iteration, exact NashConv and wall time."""

    iteration: int
    nash_conv: float
    seconds: float
    play: dict[str, float] = dataclasses.field(default_factory=dict)
    """Per opponent of the play term (``against``): the policy's expected markers in the
    first round against ``n - 1`` copies of it (:func:`play_values`); empty without."""


Inputs = list[tuple[torch.Tensor, torch.Tensor]]
"""Per depth of a round tree: the actor's inputs and the legal-move masks."""

Targets = Sequence[tuple[str, float, list[np.ndarray]]]
"""Per opponent: its spec, its weight (the weights sum to one) and its branch
probabilities at every depth of one round tree."""

Measured = tuple[float, dict[str, float]]
"""What a descent's ``measure()`` gives: the NashConv and the play values
(:attr:`DescentReport.play`)."""


Floors = Sequence[tuple[str, float, list[np.ndarray]]]
"""Per opponent: its spec, the floor of the policy's expected first-round markers
against ``n - 1`` copies of it, and its branch probabilities on one round tree."""


def as_fixed(probs: Sequence[torch.Tensor]) -> list[np.ndarray]:
    """Branch probabilities as the analysis takes them: float64 arrays, no gradients."""
    return [p.detach().double().numpy() for p in probs]


class TabularPolicy(torch.nn.Module):
    """A tabular policy of one round tree: free logits at every information set, one
    ``[infosets, 3]`` parameter per depth, started from branch probabilities ``start``
    (:func:`branch_probabilities`' layout). :func:`descend` descends it as it descends a
    network, without the network's limits (module docstring, "A table")."""

    def __init__(self, start: Sequence[np.ndarray | torch.Tensor]) -> None:
        super().__init__()
        self.logits = torch.nn.ParameterList(
            torch.nn.Parameter(torch.as_tensor(p, dtype=torch.float32).clamp_min(1e-9).log())
            for p in start
        )

    def probabilities(self) -> list[torch.Tensor]:
        """Per depth, ``[infosets, 3]``: the table's branch probabilities, with gradients."""
        return [torch.softmax(z, dim=1) for z in self.logits]

    def fixed(self) -> list[np.ndarray]:
        """The branch probabilities as the analysis takes them (float64, no gradients)."""
        with torch.no_grad():
            return as_fixed(self.probabilities())


def trained_parameters(policy: Actor | TabularPolicy) -> list[torch.nn.Parameter]:
    """What a descent steps: an actor's body and head (its input features are fixed),
    a table's logits."""
    if isinstance(policy, TabularPolicy):
        return list(policy.parameters())
    return [p for m in (policy.body, policy.head) for p in m.parameters()]


def opponents_on(tree: RoundTree, against: dict[str, float]) -> Targets:
    """``against`` (agent spec -> weight > 0) on ``tree``: each opponent's branch
    probabilities at every information set (asked as the analysis asks any agent,
    :func:`~grove_env.analysis.policies.branches_of`), the weights made to sum to one."""
    total = float(sum(against.values()))
    return [(spec, weight / total, branches_of(tree, spec)) for spec, weight in against.items()]


def floors_on(tree: RoundTree, floors: dict[str, float]) -> Floors:
    """``floors`` (agent spec -> markers) on ``tree``, as :func:`descend` holds them."""
    return [(spec, float(floor), branches_of(tree, spec)) for spec, floor in floors.items()]


def play_values(tree: RoundTree, probs: list[np.ndarray], opponents: Targets) -> dict[str, float]:
    """Per opponent: the policy's expected markers in one round against ``n - 1`` copies
    of it, the mean over the seats it can take
    (:func:`~grove_env.analysis.play.value_against`)."""
    return {spec: value_against(tree, probs, b) for spec, _, b in opponents}


def measured(tree: RoundTree, probs: Sequence[torch.Tensor], opponents: Targets) -> Measured:
    """The one-round NashConv of ``probs`` (move probabilities per depth of ``tree``)
    and its :func:`play_values` against ``opponents``: what a descent reports."""
    fixed = as_fixed(probs)
    return exploitability_of(tree, fixed).nash_conv, play_values(tree, fixed, opponents)


def play_loss(tree: RoundTree, probs: list[torch.Tensor], opponents: Targets) -> torch.Tensor:
    """Minus the weighted sum over opponents and seats of the seat's value against
    ``n - 1`` copies of the opponent (module docstring), as a loss whose gradient is
    the seat's counterfactual values there."""
    fixed = as_fixed(probs)
    loss = torch.zeros(())
    for _, weight, branches in opponents:
        for j in range(tree.num_players):
            profile = against_profile(tree, fixed, branches, j)
            for t, cfv in seat_counterfactual_values(tree, profile, j).items():
                loss = loss - weight * (probs[t] * torch.as_tensor(cfv, dtype=torch.float32)).sum()
    return loss


def tree_inputs(actor: Actor, tree: RoundTree) -> Inputs:
    """Per depth: the network's inputs (observations through the input features, as
    :meth:`Actor.masked_logits <grove_env.agents.learned.actor.Actor.masked_logits>`
    makes them) and the legal-move masks of every information set."""
    out = []
    prepare = getattr(actor.features, "prepare", None)
    for depth in tree.depths:
        rows = depth.observations if prepare is None else prepare(depth.observations)
        with torch.no_grad():
            inputs = actor.features(torch.as_tensor(rows, dtype=torch.float32))
        out.append((inputs, torch.as_tensor(depth.masks.astype(bool))))
    return out


def branch_probabilities(actor: Actor, inputs: Inputs) -> list[torch.Tensor]:
    """Per depth, ``[infosets, 3]``: the actor's probability of each legal move, in the
    order of the tree's branches (the sorted legal actions), with gradients."""
    out = []
    for rows, legal in inputs:
        logits = actor.from_features(rows).masked_fill(~legal, MASKED_LOGIT)
        out.append(torch.softmax(logits, dim=1)[legal].reshape(len(legal), 3))
    return out
