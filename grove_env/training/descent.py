"""Exploitability descent: a policy network trained on the exact round tree, not on samples.

Self-play PPO stops near one-round NashConv 0.16 at revised 2 players, whatever its loss,
reward, exploration or averaging (``docs/notes/measurements.md``). Where the round tree
fits in memory, the exploitability of a policy and the direction that lowers it can be
computed exactly instead, as Exploitability Descent does (Lockhart et al., IJCAI 2019,
"Computing approximate equilibria in sequential adversarial games by exploitability
descent"). One iteration of :func:`descend`:

1. the network's branch probabilities at every information set of the round tree, one
   forward pass per depth over the tree's observations (the input features made once);
2. for each seat ``s``, its exact best response to them
   (:func:`~grove_env.analysis.best_response.best_response`);
3. for every other seat ``j``, ``j``'s counterfactual values with ``s`` best-responding
   (:func:`~grove_env.analysis.best_response.seat_counterfactual_values`), the leaves
   valued at what the seats other than ``s`` keep together (``gradient: nashconv``, the
   default): the gradient of what the best responder is held to;
4. the loss ``-sum pi(b | I) cfv_j(I, b)`` over those sets and branches; one Adam step,
   the step size linear from ``lr`` to ``lr * lr_end``.

A round is zero-sum (its rewards are centred), so NashConv is the sum over seats of their
best-response values, and the seats other than ``s`` keep what ``s``'s best response
takes from them. With the best responses held fixed (their values' gradient, as
Danskin's theorem gives it), the loss's gradient is the gradient of NashConv itself, at
any number of seats. ``gradient: own`` values the leaves at ``j``'s own reward instead:
each seat pushed up for itself against each best responder. At two players the two are
the same; at more seats ``own`` is a heuristic that need not descend: from the same
policy at revised 4 players, 60 steps at lr 0.0005 of it raised NashConv from 0.661 to
0.780, and 60 of ``nashconv`` lowered it to 0.512 (``docs/notes/measurements.md``).
``own`` stays for the policies trained with it.

The network is one actor for every seat (the observation is the acting seat's), the
:class:`~grove_env.agents.learned.safe_policy.PolicyCard`'s, so the result plays as
``ppo:`` (sampling: an equilibrium is mixed). Every
``report_every`` iterations the exact NashConv is measured and the best weights so far
are kept: the best-response gradient jumps as the responses change, so the last
iterate is not always the lowest.

**Play against fixed opponents** (``against``, :func:`opponents_on`, :func:`play_loss`).
An equilibrium need not win much against weak players; the gauntlet measures that. With
``against_weight`` ``w`` and opponents (agent specs, each with a weight), each
iteration's loss also has ``-w * sum_b weight_b * sum_j value_j(b)``, where
``value_j(b)`` is seat ``j``'s exact expected markers in the round when every other seat
plays opponent ``b`` (the gauntlet's table: one agent against ``n - 1`` copies). Its
gradient is the counterfactual values of ``j`` against ``b``'s branch probabilities,
which are asked once per tree, as the analysis asks any agent
(:func:`~grove_env.analysis.policies.policy_of`). The descent term pulls towards an
equilibrium, this one towards the best response to the styles; ``keep: last`` (in
:func:`run_descent`) keeps the final weights instead of the lowest NashConv, since the
trade is the point.

**Floors** (``floors``, :func:`floors_on`). The play term trades NashConv for play at a
fixed rate; a floor asks for the play outright and spends everything else on NashConv.
With a floor (in markers) for an opponent, each iteration first measures the policy's
first-round markers against ``n - 1`` copies of it, exactly: while any is under its
floor the step follows the play term of those opponents alone, otherwise the usual
loss (the switching gradient of constrained optimisation). ``keep: lowest`` keeps the
lowest NashConv among the measurements that meet every floor (the lowest of all where
none does); ``keep: last`` keeps the final weights. ``descent.csv`` shows the markers of
each. The gauntlet's bars are
floors of this kind: at classic 4 players, from a policy at NashConv 0.255 that takes
+0.061 markers a round from 3 ``contrarian``, 30 steps at lr 0.002 with the floor
+0.045 against them lowered NashConv to 0.182, and 40 more to 0.131, while the markers
against the styles without a floor fell (``docs/notes/measurements.md``).

**A table** (:class:`Table`). :func:`descend` also descends a tabular policy of the
round tree: free logits at every information set, started from a network's branch
probabilities, each a parameter of its own. It has none of the network's limits: at
classic 4 players with four floors the network's descent stalled near NashConv 0.20,
where a table started from it reached 0.06 with every floor held. A table covers one
round and plays nothing; :mod:`grove_env.training.descent_fit` fits the network to it
(``table: true`` in a ``descent:`` section of ``scripts/descent.py``).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from grove_env.agents.learned.actor import MASKED_LOGIT, Actor
from grove_env.analysis.best_response import (
    best_response,
    exploitability_of,
    seat_counterfactual_values,
)
from grove_env.analysis.measure import round_tree
from grove_env.analysis.play import against_profile, value_against
from grove_env.analysis.policies import branches_of
from grove_env.analysis.round_tree import RoundTree
from grove_env.analysis.whole_game import at_state, public_states
from grove_env.rules import RuleSet


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

Opponents = Sequence[tuple[str, float, list[np.ndarray]]]
"""Per opponent: its spec, its weight (the weights sum to one) and its branch
probabilities at every depth of one round tree."""

KEEPS = ("lowest", "last")

GRADIENTS = ("nashconv", "own")
"""What :func:`descent_loss` follows (module docstring): the gradient of NashConv, or
each seat's own value against each best responder (the earlier form)."""

Measured = tuple[float, dict[str, float]]
"""What a descent's ``measure()`` gives: the NashConv and the play values
(:attr:`DescentReport.play`)."""


Floors = Sequence[tuple[str, float, list[np.ndarray]]]
"""Per opponent: its spec, the floor of the policy's expected first-round markers
against ``n - 1`` copies of it, and its branch probabilities on one round tree."""


def as_fixed(probs: Sequence[torch.Tensor]) -> list[np.ndarray]:
    """Branch probabilities as the analysis takes them: float64 arrays, no gradients."""
    return [p.detach().double().numpy() for p in probs]


class Table(torch.nn.Module):
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


def trained_parameters(policy: Actor | Table) -> list[torch.nn.Parameter]:
    """What a descent steps: an actor's body and head (its input features are fixed),
    a table's logits."""
    if isinstance(policy, Table):
        return list(policy.parameters())
    return [p for m in (policy.body, policy.head) for p in m.parameters()]


def opponents_on(tree: RoundTree, against: dict[str, float]) -> Opponents:
    """``against`` (agent spec -> weight > 0) on ``tree``: each opponent's branch
    probabilities at every information set (asked as the analysis asks any agent,
    :func:`~grove_env.analysis.policies.branches_of`), the weights made to sum to one."""
    total = float(sum(against.values()))
    return [(spec, weight / total, branches_of(tree, spec)) for spec, weight in against.items()]


def floors_on(tree: RoundTree, floors: dict[str, float]) -> Floors:
    """``floors`` (agent spec -> markers) on ``tree``, as :func:`descend` holds them."""
    return [(spec, float(floor), branches_of(tree, spec)) for spec, floor in floors.items()]


def play_values(tree: RoundTree, probs: list[np.ndarray], opponents: Opponents) -> dict[str, float]:
    """Per opponent: the policy's expected markers in one round against ``n - 1`` copies
    of it, the mean over the seats it can take
    (:func:`~grove_env.analysis.play.value_against`)."""
    return {spec: value_against(tree, probs, b) for spec, _, b in opponents}


def measured(tree: RoundTree, probs: Sequence[torch.Tensor], opponents: Opponents) -> Measured:
    """The one-round NashConv of ``probs`` (move probabilities per depth of ``tree``)
    and its :func:`play_values` against ``opponents``: what a descent reports."""
    fixed = as_fixed(probs)
    return exploitability_of(tree, fixed).nash_conv, play_values(tree, fixed, opponents)


def play_loss(tree: RoundTree, probs: list[torch.Tensor], opponents: Opponents) -> torch.Tensor:
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
        logits = actor.head(actor.body(rows)).masked_fill(~legal, MASKED_LOGIT)
        out.append(torch.softmax(logits, dim=1)[legal].reshape(len(legal), 3))
    return out


def descent_loss(
    tree: RoundTree, probs: list[torch.Tensor], gradient: str = "nashconv"
) -> torch.Tensor:
    """Steps 2 to 4 of the module docstring for branch probabilities ``probs``;
    ``gradient`` (:data:`GRADIENTS`) values the leaves for seat ``j`` against the best
    responder ``s``: ``nashconv``, the payoff of every seat but ``s``; ``own``, ``j``'s."""
    check_gradient(gradient)
    n = tree.num_players
    fixed = as_fixed(probs)
    loss = torch.zeros(())
    for s in range(n):
        _, profile = best_response(tree, fixed, s)
        coalition = None
        if gradient == "nashconv":
            coalition = np.add.reduce([tree.leaf_payoff(k) for k in range(n) if k != s])
        for j in range(n):
            if j == s:
                continue
            for t, cfv in seat_counterfactual_values(tree, profile, j, coalition).items():
                loss = loss - (probs[t] * torch.as_tensor(cfv, dtype=torch.float32)).sum()
    return loss


def descend(
    actor: Actor | Table,
    tree: RoundTree,
    iterations: int,
    lr: float,
    lr_end: float = 0.02,
    report_every: int = 25,
    on_report: Callable[[DescentReport], None] | None = None,
    also: Sequence[Later] = (),
    seed: int = 0,
    against: Opponents = (),
    against_weight: float = 0.0,
    keep: str = "lowest",
    gradient: str = "nashconv",
    floors: Floors = (),
) -> list[DescentReport]:
    """Train ``actor`` by exploitability descent on ``tree`` (module docstring); leave it
    holding the weights of the lowest NashConv measured on ``tree``, among those that
    meet the ``floors`` where any does (``keep: last``: the final weights). Returns the
    measurements. ``gradient``: what the descent term follows (:data:`GRADIENTS`,
    module docstring).

    ``also``: rounds at other public states (:func:`other_states`), one of them drawn at
    random (``seed``) each iteration and descended on beside ``tree``, so that the
    policy is trained where later rounds are played too. ``against`` (opponents on
    ``tree``, :func:`opponents_on`) with ``against_weight`` > 0 adds the play term of
    the module docstring, on ``tree`` and on the drawn later round (its own opponents).

    ``floors`` (:func:`floors_on`) hold the policy's first-round markers against
    copies of each of those opponents at or above its floor: an iteration that starts
    below a floor steps on the play term of the opponents below theirs alone (each
    weighted 1), and any other iteration as above (module docstring, "Floors").
    """
    check_settings(iterations, lr, lr_end, ("report_every", report_every), keep, gradient)
    limits = {spec: floor for spec, floor, _ in floors}
    if isinstance(actor, Table):
        if also:
            raise ValueError("a table holds one round tree: it descends without other rounds")
        probabilities = actor.probabilities
    else:
        inputs = tree_inputs(actor, tree)  # after the checks: at 4 players it takes seconds
        probabilities = functools.partial(branch_probabilities, actor, inputs)
        on_later = functools.partial(branch_probabilities, actor)
    rng = np.random.default_rng(seed)

    def measure() -> Measured:
        with torch.no_grad():
            return measured(tree, probabilities(), [*against, *floors])

    def term(on: RoundTree, probs: list[torch.Tensor], opponents: Opponents) -> torch.Tensor:
        total = descent_loss(on, probs, gradient)
        if against_weight and opponents:
            total = total + against_weight * play_loss(on, probs, opponents)
        return total

    def loss() -> torch.Tensor:
        probs = probabilities()
        if floors:
            low = under(play_values(tree, as_fixed(probs), floors), limits)
            short = [(s, 1.0, b) for s, _, b in floors if s in low]
            if short:
                return play_loss(tree, probs, short)
        total = term(tree, probs, against)
        if also:
            other = also[int(rng.integers(len(also)))]
            total = total + term(other.tree, on_later(other.inputs), other.against)
        return total

    return run_descent(
        actor,
        iterations,
        lr,
        lr_end,
        ("report_every", report_every),
        measure,
        loss,
        on_report,
        keep=keep,
        floors=limits,
    )


def check_gradient(gradient: str) -> None:
    """A ``ValueError`` unless ``gradient`` is one of :data:`GRADIENTS`."""
    if gradient not in GRADIENTS:
        raise ValueError(f"gradient is {' or '.join(GRADIENTS)}, got {gradient!r}")


def check_settings(
    iterations: int,
    lr: float,
    lr_end: float,
    every: tuple[str, int],
    keep: str = "lowest",
    gradient: str = "nashconv",
) -> None:
    """A ``ValueError`` unless the settings of :func:`run_descent` (and the descent
    term's ``gradient``) make sense."""
    name, period = every
    if iterations < 0 or period < 1 or not 0 < lr < math.inf or not 0 <= lr_end <= 1:
        raise ValueError(f"need iterations >= 0, {name} >= 1, lr > 0, 0 <= lr_end <= 1")
    if keep not in KEEPS:
        raise ValueError(f"keep is {' or '.join(KEEPS)}, got {keep!r}")
    check_gradient(gradient)


def run_descent(
    actor: Actor | Table,
    iterations: int,
    lr: float,
    lr_end: float,
    every: tuple[str, int],
    measure: Callable[[], Measured],
    loss: Callable[[], torch.Tensor],
    on_report: Callable[[DescentReport], None] | None = None,
    keep: str = "lowest",
    floors: Mapping[str, float] | None = None,
) -> list[DescentReport]:
    """The loop of every descent: ``measure()`` (a NashConv and the play values) at
    iteration 0, every ``every`` iterations (named, for the error) and at the end,
    keeping the weights that :func:`kept` picks with ``keep`` and ``floors``; between,
    one Adam step on ``loss()`` over the policy's :func:`trained_parameters`, the step
    size linear from ``lr`` to ``lr * lr_end``.
    Leaves ``actor`` with the kept weights; returns the measurements."""
    check_settings(iterations, lr, lr_end, every, keep)
    period = every[1]
    params = trained_parameters(actor)
    optimizer = torch.optim.Adam(params, lr=lr)
    began = time.perf_counter()
    reports: list[DescentReport] = []
    best: dict | None = None
    for k in range(iterations + 1):
        if k % period == 0 or k == iterations:
            nash_conv, play = measure()
            report = DescentReport(k, nash_conv, time.perf_counter() - began, play)
            reports.append(report)
            if on_report is not None:
                on_report(report)
            if kept(reports, keep, floors) is report:  # the kept weights so far: these
                best = copy.deepcopy(actor.state_dict())
        if k == iterations:
            break
        for group in optimizer.param_groups:
            group["lr"] = lr * (1.0 - (1.0 - lr_end) * k / max(iterations, 1))
        step = loss()
        optimizer.zero_grad(set_to_none=True)
        step.backward()
        optimizer.step()
    assert best is not None
    actor.load_state_dict(best)
    return reports


@dataclass(frozen=True)
class Later:
    """A round at a public state after the first, as :func:`descend` trains on it."""

    tree: RoundTree
    """Without observations (``inputs`` hold what the actor reads)."""
    inputs: Inputs
    against: Opponents


def other_states(
    actor: Actor,
    rules: RuleSet,
    num_players: int,
    max_rounds: int,
    rounds: int = 0,
    against: dict[str, float] | None = None,
) -> list[Later]:
    """The round at every public state a game can reach after its first round (by
    ``max_rounds``; ``rounds`` > 0: only in the ``rounds`` rounds after the first),
    each with the actor's inputs and the opponents ``against`` on it; the trees keep no
    observations, so the list costs about 16 MB a state at 2 players (116 states at
    revised; 13 states in round 2 at revised 3 players, 60 in round 3)."""
    states = public_states(rules, num_players, max_rounds)
    out = []
    for k, layer in enumerate(states.layers):
        round_number = states.round_of(k)
        if k == 0 or (rounds and round_number > 1 + rounds):
            continue  # the start (the tree descent measures), or a round not asked for
        first = states.first(round_number)
        for counts in sorted(layer):
            tree = at_state(round_tree(rules, num_players, first), counts, round_number)
            inputs = tree_inputs(actor, tree)
            opponents = opponents_on(tree, against) if against else []
            bare = [dataclasses.replace(d, observations=d.observations[:0]) for d in tree.depths]
            out.append(Later(dataclasses.replace(tree, depths=bare), inputs, opponents))
    return out


def lowest(reports: list[DescentReport]) -> DescentReport:
    """The lowest NashConv measured (the first of equals): whose weights
    :func:`run_descent` keeps by default."""
    return min(reports, key=lambda r: (r.nash_conv, r.iteration))


def under(values: Mapping[str, float], floors: Mapping[str, float]) -> list[str]:
    """The opponents of ``floors`` (spec -> markers) whose ``values`` are under their
    floor: what a descent step climbs, and what rules a measurement out of ``kept``."""
    return [spec for spec, floor in floors.items() if values[spec] < floor]


def kept(
    reports: list[DescentReport],
    keep: str = "lowest",
    floors: Mapping[str, float] | None = None,
) -> DescentReport:
    """The measurement whose weights :func:`run_descent` kept with ``keep``: the last,
    or the lowest NashConv among those whose play values meet every one of ``floors``
    (opponent spec -> markers), of all where none does."""
    if keep == "last":
        return reports[-1]
    held = [r for r in reports if not under(r.play, floors or {})]
    return lowest(held or reports)


__all__ = [
    "GRADIENTS",
    "DescentReport",
    "Floors",
    "Later",
    "Table",
    "as_fixed",
    "descend",
    "descent_loss",
    "floors_on",
    "kept",
    "lowest",
    "measured",
    "opponents_on",
    "play_loss",
    "play_values",
    "tree_inputs",
]
