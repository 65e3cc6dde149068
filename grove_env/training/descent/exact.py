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

**A table** (:class:`~.tree.TabularPolicy`). :func:`descend` also descends a tabular policy of the
round tree: free logits at every information set, started from a network's branch
probabilities, each a parameter of its own. It has none of the network's limits: at
classic 4 players with four floors the network's descent stalled near NashConv 0.20,
where a table started from it reached 0.06 with every floor held. A table covers one
round and plays nothing; :mod:`grove_env.training.descent.fit` fits the network to it
(``table: true`` in a stage of a config's ``descent:`` section).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from grove_env.agents.learned.actor import Actor
from grove_env.analysis.best_response import best_response, seat_counterfactual_values
from grove_env.analysis.measure import round_tree
from grove_env.analysis.round_tree import RoundTree
from grove_env.analysis.whole_game import at_state, public_states
from grove_env.rules import RuleSet
from grove_env.training.descent.loop import (
    check_gradient,
    check_settings,
    run_descent,
    under,
)
from grove_env.training.descent.tree import (
    DescentReport,
    Floors,
    Inputs,
    Measured,
    TabularPolicy,
    Targets,
    as_fixed,
    branch_probabilities,
    measured,
    opponents_on,
    play_loss,
    play_values,
    tree_inputs,
)


def descent_loss(
    tree: RoundTree, probs: list[torch.Tensor], gradient: str = "nashconv"
) -> torch.Tensor:
    """Steps 2 to 4 of the module docstring for branch probabilities ``probs``;
    ``gradient`` (:data:`~.loop.GRADIENTS`) values the leaves for seat ``j`` against the best
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
    actor: Actor | TabularPolicy,
    tree: RoundTree,
    iterations: int,
    lr: float,
    lr_end: float = 0.02,
    report_every: int = 25,
    on_report: Callable[[DescentReport], None] | None = None,
    also: Sequence[Later] = (),
    seed: int = 0,
    against: Targets = (),
    against_weight: float = 0.0,
    keep: str = "lowest",
    gradient: str = "nashconv",
    floors: Floors = (),
) -> list[DescentReport]:
    """Train ``actor`` by exploitability descent on ``tree`` (module docstring); leave it
    holding the weights of the lowest NashConv measured on ``tree``, among those that
    meet the ``floors`` where any does (``keep: last``: the final weights). Returns the
    measurements. ``gradient``: what the descent term follows (:data:`~.loop.GRADIENTS`,
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
    on_later = None
    if isinstance(actor, TabularPolicy):
        if also:
            raise ValueError("a table holds one round tree: it descends without other rounds")
        probabilities = actor.probabilities
    else:
        inputs = tree_inputs(actor, tree)  # after the checks: at 4 players it takes seconds
        probabilities = functools.partial(branch_probabilities, actor, inputs)
        on_later = functools.partial(branch_probabilities, actor)
    loss = DescentLoss(tree, probabilities, on_later, also, against, against_weight, gradient)
    loss.floors, loss.limits, loss.rng = floors, limits, np.random.default_rng(seed)

    def measure() -> Measured:
        with torch.no_grad():
            return measured(tree, probabilities(), [*against, *floors])

    every = ("report_every", report_every)
    return run_descent(actor, iterations, lr, lr_end, every, measure, loss, on_report, keep, limits)


@dataclass
class DescentLoss:
    """The loss of one iteration of :func:`descend`: the descent term (and the play term)
    on the tree and on one later round drawn from ``rng``, or under a floor the play
    term of the opponents below theirs alone (module docstring, "Floors")."""

    tree: RoundTree
    probabilities: Callable[[], list[torch.Tensor]]
    on_later: Callable[[Inputs], list[torch.Tensor]] | None
    also: Sequence[Later]
    against: Targets
    against_weight: float
    gradient: str
    floors: Floors = ()
    limits: Mapping[str, float] = dataclasses.field(default_factory=dict)
    rng: np.random.Generator = dataclasses.field(default_factory=np.random.default_rng)

    def term(self, on: RoundTree, probs: list[torch.Tensor], opponents: Targets) -> torch.Tensor:
        total = descent_loss(on, probs, self.gradient)
        if self.against_weight and opponents:
            total = total + self.against_weight * play_loss(on, probs, opponents)
        return total

    def __call__(self) -> torch.Tensor:
        probs = self.probabilities()
        if self.floors:
            low = under(play_values(self.tree, as_fixed(probs), self.floors), self.limits)
            short = [(s, 1.0, b) for s, _, b in self.floors if s in low]
            if short:
                return play_loss(self.tree, probs, short)
        total = self.term(self.tree, probs, self.against)
        if self.also:
            assert self.on_later is not None, "a table descends without other rounds"
            other = self.also[int(self.rng.integers(len(self.also)))]
            total = total + self.term(other.tree, self.on_later(other.inputs), other.against)
        return total


@dataclass(frozen=True)
class Later:
    """A round at a public state after the first, as :func:`descend` trains on it."""

    tree: RoundTree
    """Without observations (``inputs`` hold what the actor reads)."""
    inputs: Inputs
    against: Targets


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
