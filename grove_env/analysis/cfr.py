"""CFR+ for one round, vectorised over deals x histories like the best response.

Regret matching+ on every information set of :class:`RoundTree`, alternating updates
(one seat per pass, in seat order), linear averaging of the strategy. A pass for seat
``i`` walks the tree once down (the others' reach, and ``i``'s own reach for the
average) and once up (counterfactual values of ``i``'s actions, summed per information
set with ``np.bincount``). :func:`solve` stops at a time limit, an iteration count or a
NashConv target, measuring the average strategy's NashConv as it goes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from grove_env.agents.learned.cfr_agent import CfrAgent, strategy_key

from .best_response import (
    Exploitability,
    counterfactual_values,
    exploitability_of,
    node_policy,
    others_reach,
)
from .round_tree import RoundTree


def normalised(weights: np.ndarray) -> np.ndarray:
    """Each row of non-negative ``weights`` over its sum (uniform where the sum is 0)."""
    total = weights.sum(axis=1, keepdims=True)
    return np.where(total > 0, weights / np.where(total > 0, total, 1.0), 1.0 / 3.0)


@dataclass
class CfrSolver:
    """Regrets and average-strategy sums per depth (``float64[infosets, 3]`` each)."""

    tree: RoundTree
    regrets: list[np.ndarray] = field(default_factory=list)
    totals: list[np.ndarray] = field(default_factory=list)
    iterations: int = 0

    def __post_init__(self) -> None:
        sizes = [len(d.observations) for d in self.tree.depths]
        self.regrets = [np.zeros((m, 3)) for m in sizes]
        self.totals = [np.zeros((m, 3)) for m in sizes]

    def current(self) -> list[np.ndarray]:
        """The regret-matching+ strategy per depth."""
        return [normalised(r) for r in self.regrets]

    def average(self) -> list[np.ndarray]:
        """The average strategy per depth (uniform where an information set was never reached)."""
        return [normalised(s) for s in self.totals]

    def iterate(self) -> None:
        """One CFR+ iteration: a pass per seat."""
        self.iterations += 1
        for seat in range(self.tree.num_players):
            self._pass(seat, self.current())

    def _pass(self, seat: int, probs: list[np.ndarray]) -> None:
        tree, n_deals = self.tree, len(self.tree.deals)
        reach = others_reach(tree, probs, seat)
        own = np.ones((n_deals, 1))
        for t, depth in enumerate(tree.depths):
            if depth.seat == seat:
                flat = own.ravel()[depth.representative]
                self.totals[t] += self.iterations * flat[:, None] * probs[t]
                own = (own[:, :, None] * node_policy(tree, probs, t)).reshape(n_deals, -1)
            else:
                own = np.repeat(own, 3, axis=1)
        value = tree.leaf_payoff(seat)
        for t in range(tree.num_decisions - 1, -1, -1):
            below = value.reshape(n_deals, 3**t, 3)
            policy = node_policy(tree, probs, t)
            depth = tree.depths[t]
            if depth.seat == seat:
                cf = counterfactual_values(depth.infoset, reach[t], below, len(probs[t]))
                expected = (cf * probs[t]).sum(axis=1, keepdims=True)
                np.maximum(self.regrets[t] + cf - expected, 0.0, out=self.regrets[t])
            value = (policy * below).sum(axis=2)


@dataclass(frozen=True)
class Solution:
    """A solved round: the average strategy per depth, its NashConv, and how it got there."""

    probs: list[np.ndarray]
    exploitability: Exploitability
    iterations: int
    seconds: float
    trace: list[tuple[int, float, float]]
    """``(iterations, seconds, NashConv)`` at each measurement."""


def solve(
    tree: RoundTree,
    seconds: float = 60.0,
    max_iterations: int | None = None,
    target: float = 0.0,
    check_every: int = 50,
) -> Solution:
    """Run CFR+ until ``seconds`` pass, ``max_iterations`` are done or NashConv <= ``target``."""
    solver = CfrSolver(tree)
    start = time.perf_counter()
    trace: list[tuple[int, float, float]] = []
    result = exploitability_of(tree, solver.average())
    while True:
        solver.iterate()
        elapsed = time.perf_counter() - start
        done = elapsed >= seconds or (
            max_iterations is not None and solver.iterations >= max_iterations
        )
        if done or solver.iterations % check_every == 0:
            result = exploitability_of(tree, solver.average())
            trace.append((solver.iterations, elapsed, result.nash_conv))
            if done or result.nash_conv <= target:
                break
    return Solution(
        probs=solver.average(),
        exploitability=result,
        iterations=solver.iterations,
        seconds=time.perf_counter() - start,
        trace=trace,
    )


def save_strategy(path: str | Path, tree: RoundTree, probs: list[np.ndarray], note: str) -> Path:
    """Write a round strategy in the ``cfr`` agent's file format (no pickle)."""
    keys = [strategy_key(o) for depth in tree.depths for o in depth.observations]
    if len(set(keys)) != len(keys):
        raise ValueError("two information sets share a strategy key")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        path,
        keys=np.frombuffer(b"".join(keys), np.uint8).reshape(len(keys), -1),
        probs=np.concatenate(probs).astype(np.float32),
        table=np.array(f"{tree.rules.name} {tree.num_players}"),
        note=np.array(note),
    )
    return path


def strategy_probs(tree: RoundTree, agent: CfrAgent) -> list[np.ndarray]:
    """Per depth, the branch probabilities a ``cfr`` agent gives ``tree``'s information sets."""
    return [
        agent.action_probabilities(d.observations, d.masks)[d.masks.astype(bool)].reshape(-1, 3)
        for d in tree.depths
    ]
