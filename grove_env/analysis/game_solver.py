"""CFR+ over the whole game, by backward induction over the public marker states.

Between rounds only the public state carries over (the marker counts and the round;
see :mod:`~grove_env.analysis.whole_game`), so a profile that plays an equilibrium of
each round's stage game, whose payoffs are the values of the states the round leads to,
is an equilibrium of the whole game at two seats. At three a stage game has many
equilibria, and solving each with the values of the later ones gives a reference, not
a guarantee: its measured NashConv says how close it is. The solver walks the states
from the last round back to the first
(:func:`~grove_env.analysis.whole_game.whole_game_nash_conv`, which also measures the
result; states where the game cannot still be going are never listed) and solves each
stage with :func:`~grove_env.analysis.cfr.solve` to a NashConv
``target`` in ``outcome`` units. A stage is its first player's round tree, built once,
with the stage's payoffs (:func:`~grove_env.analysis.whole_game.stage_payoff`): the
``outcome`` reward where the game ends, 0 where the round limit cuts it off, else the
value of the next state under the strategies solved there.

Along a game the stages' shortfalls add up: a seat's whole-game gain is at most the
expected sum of its stage gains over the rounds its best response plays, so a game of
at most ``R`` rounds is within ``n R target`` of an equilibrium (revised two-player
games last at most 7 rounds; classic ones may reach the limit); the solver measures
the actual figure, which is far lower.

Shared between states:

- the round trees (one per first player); a stage only replaces the payoff array;
- a strategy: the same counts ``n`` rounds later (the same first player, payoffs that
  differ only by how near the round limit is) are tried first, and their strategy is
  kept where its NashConv in this stage is within ``target``. Far from the limit this
  covers most classic states, and the file stores each distinct strategy once.

A solved stage keeps CFR+'s average strategy, or the same with the actions it plays
under 1% of the time left out (:func:`snapped`) where that has the lower NashConv in the
stage: many stages of classic have a pure equilibrium that the average only nears.

Each stage's CFR+ starts from uniform: warm-starting it from a neighbouring state's
regrets was measured to be several times slower, as the regrets of another stage are
large and take long to unlearn.

Values are those of the strategies as saved (probabilities rounded to 1/65535, the
``cfr`` agent's file format, see :mod:`grove_env.agents.learned.cfr_agent`), so the NashConv the
solver reports is the file's.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from grove_env.agents.learned.cfr_agent import PROB_SCALE, prob_scale, strategy_key

from .best_response import exploitability_of
from .cfr import solve
from .round_tree import MarkerState, RoundTree, build_round_tree
from .whole_game import (
    Counts,
    PublicStates,
    WholeGameExploitability,
    public_states,
    whole_game_nash_conv,
)


@dataclass
class GameSolution:
    """A solved whole game: a strategy per public state, and how it got there."""

    states: PublicStates
    keys: list[bytes]
    """Every information set's :func:`strategy_key`, in the file's order."""
    rows: list[list[np.ndarray]]
    """Per first player, per depth: each information set's row of ``keys``."""
    strategies: list[np.ndarray] = field(default_factory=list)
    """Distinct stage strategies, ``uint16[len(keys), 3]`` out of :data:`PROB_SCALE` (or
    ``uint8`` out of 255, ``scale``)."""
    stage: dict[tuple[Counts, int], int] = field(default_factory=dict)
    """``(counts, round) -> index into strategies``."""
    iterations: int = 0
    kept: int = 0
    """States that kept the strategy of the same counts ``n`` rounds later."""
    snapped: int = 0
    """Solved stages whose strategy is :func:`snapped` (it had the lower NashConv)."""
    worst_stage: float = 0.0
    """The largest NashConv of a stage under its saved strategy (``outcome``)."""
    exploitability: WholeGameExploitability | None = None
    seconds: float = 0.0
    scale: int = PROB_SCALE
    """What the stored probabilities are out of: 65535 (``uint16``) or 255 (``uint8``)."""

    def store(self, probs: list[np.ndarray], first_player: int) -> int:
        """Round and keep branch probabilities per depth of a first player's tree; the index."""
        uniform = rounded([np.full((1, 3), 1 / 3)], self.scale)[0][0]  # sets never met
        strategy = np.full((len(self.keys), 3), uniform, uniform.dtype)
        for rows, p in zip(self.rows[first_player], rounded(probs, self.scale)):
            strategy[rows] = p
        self.strategies.append(strategy)
        return len(self.strategies) - 1

    def branches(self, index: int, first_player: int) -> list[np.ndarray]:
        """A stored strategy as branch probabilities per depth of a first player's tree."""
        probs = self.strategies[index].astype(np.float64) / self.scale
        return [probs[rows] for rows in self.rows[first_player]]


SNAP_BELOW = 0.01
"""A solved stage also tries its strategy without the actions played less often than this."""


def snapped(probs: list[np.ndarray], below: float = SNAP_BELOW) -> list[np.ndarray]:
    """Branch probabilities with those under ``below`` made 0 (rows renormalised).

    CFR+'s average keeps some weight on actions its early iterations tried; where the
    stage's equilibrium is (nearly) pure, leaving it out is closer to it.
    """
    out = []
    for p in probs:
        kept = np.where(p < below, 0.0, p)
        out.append(kept / kept.sum(axis=1, keepdims=True))
    return out


def rounded(probs: list[np.ndarray], scale: int = PROB_SCALE) -> list[np.ndarray]:
    """Branch probabilities as integers out of ``scale`` (65535: ``uint16``, 255:
    ``uint8``), each row summing to it (largest remainders)."""
    dtype = np.uint16 if scale == PROB_SCALE else np.uint8
    if prob_scale(np.dtype(dtype)) != scale:
        raise ValueError(f"probabilities are stored out of 65535 or 255, not {scale}")
    out = []
    for p in probs:
        scaled = p / p.sum(axis=1, keepdims=True) * scale
        base = np.floor(scaled)
        short = scale - base.sum(axis=1, keepdims=True)
        rank = np.argsort(np.argsort(base - scaled, axis=1), axis=1)
        out.append((base + (rank < short)).astype(dtype))
    return out


def key_rows(trees: list[RoundTree]) -> tuple[list[bytes], list[list[np.ndarray]]]:
    """Every information set's key over the trees, and each tree's rows among them.

    Keys are egocentric, so over a shuffle every first player's tree has the same
    information sets; rigged deals may give each tree some of its own.
    """
    index: dict[bytes, int] = {}
    rows = []
    for tree in trees:
        keys = [[strategy_key(o) for o in depth.observations] for depth in tree.depths]
        if len({k for depth in keys for k in depth}) != sum(map(len, keys)):
            raise ValueError("two information sets share a strategy key")
        rows.append(
            [np.array([index.setdefault(k, len(index)) for k in depth], np.intp) for depth in keys]
        )
    return list(index), rows


def solve_game(
    rules: str,
    num_players: int = 2,
    target: float = 3e-4,
    seconds: float = 60.0,
    max_rounds: int = 100,
    start: MarkerState | None = None,
    deals: Sequence[Sequence[int]] | None = None,
    progress: Callable[[str], None] | None = None,
    scale: int = PROB_SCALE,
) -> GameSolution:
    """Solve every public state from ``start`` (default: the game's beginning).

    Each stage runs CFR+ until its NashConv is at most ``target`` or ``seconds`` pass.
    ``deals`` rigs every round's deal (uniform over the list; default: a shuffle).
    ``progress`` is told of each round as it is done. ``scale`` is what the stored
    probabilities are out of (255 halves the file; the values measured are the stored
    ones either way).
    """
    begun = time.perf_counter()
    states = public_states(rules, num_players, max_rounds, start)
    n = states.num_players
    trees = [
        build_round_tree(states.rules, n, MarkerState(first_player=f), deals) for f in range(n)
    ]
    solution = GameSolution(states, *key_rows(trees), scale=scale)
    last_round = [states.round_of(len(states.layers))]

    def strategy(counts: Counts, r: int, stage: RoundTree) -> list[np.ndarray]:
        f = states.first(r)
        if progress is not None and r < last_round[0]:
            last_round[0] = r
            progress(f"round {r}: {len(solution.strategies)} strategies so far")
        later = solution.stage.get((counts, r + n))
        if later is not None:
            probs = solution.branches(later, f)
            reached = exploitability_of(stage, probs).nash_conv
            if reached <= target:
                solution.stage[(counts, r)] = later
                solution.kept += 1
                solution.worst_stage = max(solution.worst_stage, reached)
                return probs
        found = solve(stage, seconds=seconds, target=target, check_every=10)
        solution.iterations += found.iterations
        cleaned = snapped(found.probs)
        if exploitability_of(stage, cleaned).nash_conv < found.exploitability.nash_conv:
            solution.snapped += 1
            found = dataclasses.replace(found, probs=cleaned)
        index = solution.stage[(counts, r)] = solution.store(found.probs, f)
        probs = solution.branches(index, f)
        reached = exploitability_of(stage, probs).nash_conv
        solution.worst_stage = max(solution.worst_stage, reached)
        return probs

    solution.exploitability = whole_game_nash_conv(states, trees, strategy)
    solution.seconds = time.perf_counter() - begun
    return solution


def save_game_strategy(path: str | Path, solution: GameSolution, note: str) -> Path:
    """Write a whole-game strategy in the ``cfr`` agent's file format (no pickle)."""
    states = solution.states
    n = states.num_players
    order = sorted(solution.stage, key=lambda s: (s[1], s[0]))
    rel = [[(states.first(r) + k) % n for k in range(n)] for _, r in order]
    coloured = [[counts[0][s] for s in seats] for (counts, _), seats in zip(order, rel)]
    penalty = [[counts[1][s] for s in seats] for (counts, _), seats in zip(order, rel)]
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        path,
        keys=np.frombuffer(b"".join(solution.keys), np.uint8).reshape(len(solution.keys), -1),
        probs=np.stack(solution.strategies),
        coloured=np.array(coloured, np.int8).reshape(-1, n),
        penalty=np.array(penalty, np.int8).reshape(-1, n),
        round=np.array([r for _, r in order], np.int16),
        stage=np.array([solution.stage[s] for s in order], np.int32),
        max_rounds=np.array(states.max_rounds, np.int16),
        table=np.array(f"{states.rules.name} {n}"),
        note=np.array(note),
    )
    return path
