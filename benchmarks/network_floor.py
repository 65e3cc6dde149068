"""How low a whole-game NashConv the trainer's network can hold: fit it to a solved game.

    python benchmarks/network_floor.py [--rules revised] [--players 2] [--policy PATH]
        [--start policy|fresh] [--epochs 10] [--rounds 4] [--lr 0.001]
        [--max-rounds 100] [--json PATH]

A diagnostic, not a way to make a policy. The network of ``--policy`` (a policy saved by
``train.py``, default the zoo's for the table: its layers and its input features),
started from its weights or from fresh ones (``--start fresh``), is fitted by supervised
learning to the shipped whole-game CFR solution (the ``cfr`` agent) at every information
set of every public state the game walks: minibatch Adam on the KL divergence from the
solution's move probabilities, each round's sets weighted by their reach under the
solution (:func:`~grove_env.training.descent.fit.fit`, as the descent fits a table).
After every ``--epochs`` passes, ``--rounds`` times, it measures the network's exact
whole-game NashConv; within each round of passes the step size falls linearly from
``--lr`` to 0, so each round is a warm restart. The figure is what the network can
represent, from above (a better fit can only go lower): if it lies under what training
reaches, the network is not the limit, the training is.

It prints one line per measurement and writes ``--json``: the table, the solution's own
NashConv, the rows fitted, and ``points`` (epochs, fit loss, NashConv, seconds).
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from grove_env.agents.learned.actor import Actor
from grove_env.agents.learned.cfr_agent import data_file
from grove_env.agents.learned.policy_files import ZOO_POLICY, zoo_dir
from grove_env.agents.learned.ppo import load_actor
from grove_env.analysis.measure import round_tree
from grove_env.analysis.policies import policy_of
from grove_env.analysis.round_tree import RoundTree
from grove_env.analysis.whole_game import (
    Counts,
    PublicStates,
    at_state,
    fixed_strategy,
    public_states,
    whole_game_nash_conv,
)
from grove_env.rules import get_rules
from grove_env.training.descent.fit import fit, fit_weights
from grove_env.training.descent.tree import Inputs, as_fixed, branch_probabilities, tree_inputs

State = tuple[Counts, int]


def solution(
    states: PublicStates, trees: list[RoundTree], n: int
) -> tuple[float, dict[State, list[np.ndarray]]]:
    """The CFR solution's whole-game NashConv and its move probabilities at each state."""
    policy = policy_of("cfr", seed=0)
    inner = fixed_strategy(states, trees, [policy] * n)
    probs: dict[State, list[np.ndarray]] = {}

    def keep(counts: Counts, r: int, stage: RoundTree) -> list[np.ndarray]:
        probs[(counts, r)] = inner(counts, r, stage)
        return probs[(counts, r)]

    return whole_game_nash_conv(states, trees, keep).nash_conv, probs


def network(policy: str, start: str) -> Actor:
    """A trainable copy of the policy's network, its weights or fresh ones."""
    actor = copy.deepcopy(load_actor(policy)[0])
    for p in actor.parameters():
        p.requires_grad_(True)
    if start == "fresh":
        for m in actor.modules():
            if isinstance(m, torch.nn.Linear):
                m.reset_parameters()
    return actor


def measure(
    actor: Actor, states: PublicStates, trees: list[RoundTree], inputs: dict[State, Inputs]
) -> float:
    """The actor's exact whole-game NashConv."""
    with torch.no_grad():
        probs = {key: as_fixed(branch_probabilities(actor, x)) for key, x in inputs.items()}
    return whole_game_nash_conv(states, trees, lambda c, r, _: probs[(c, r)]).nash_conv


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Fit and measure (module docstring); the JSON result."""
    began = time.perf_counter()
    rules, n = get_rules(args.rules), args.players
    solved_file = data_file(args.rules, n)
    if not solved_file.is_file():
        shipped = sorted(p.name for p in solved_file.parent.glob("cfr_*_game.npz"))
        raise ValueError(f"no whole-game CFR solution ships for {args.rules} {n}p: {shipped}")
    policy = args.policy or str(zoo_dir(f"{args.rules}-{n}p") / ZOO_POLICY)
    actor = network(policy, args.start)
    states = public_states(rules, n, args.max_rounds)
    trees = [round_tree(rules, n, f) for f in range(n)]
    solved, targets = solution(states, trees, n)
    inputs: dict[State, Inputs] = {}
    rows: Inputs = []
    goal: list[np.ndarray] = []
    weights: list[np.ndarray] = []
    for (counts, r), probs in sorted(targets.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        tree = at_state(trees[states.first(r)], counts, r)
        inputs[(counts, r)] = tree_inputs(actor, tree)
        rows += inputs[(counts, r)]
        goal += probs
        weights += fit_weights(tree, [probs])
    size = sum(len(x) for x, _ in rows)
    print(f"{args.rules} {n}p: cfr {solved:.4f}, {len(inputs)} states, {size:,} rows", flush=True)

    def point(epochs: int, loss: float | None) -> dict[str, Any]:
        nash_conv = measure(actor, states, trees, inputs)
        seconds = round(time.perf_counter() - began, 1)
        print(f"epochs {epochs}: loss {loss}, NashConv {nash_conv:.4f} ({seconds} s)", flush=True)
        return {"epochs": epochs, "loss": loss, "nash_conv": nash_conv, "seconds": seconds}

    points = [point(0, None)]
    for k in range(1, args.rounds + 1):
        losses = fit(actor, rows, goal, weights, args.epochs, args.lr, args.batch_size, seed=k)
        points.append(point(k * args.epochs, losses[-1]))
    return {
        **{key: getattr(args, key) for key in ("rules", "players", "max_rounds", "start", "lr")},
        "batch_size": args.batch_size,
        "policy": policy,
        "cfr_nash_conv": solved,
        "states": len(inputs),
        "rows": size,
        "points": points,
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rules", default="revised")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--policy", default=None, help="a policy saved by train.py (default: zoo)")
    p.add_argument("--start", choices=["policy", "fresh"], default="policy")
    p.add_argument("--epochs", type=int, default=10, help="passes between measurements")
    p.add_argument("--rounds", type=int, default=4, help="measurements after the first")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--batch-size", type=int, default=1024)
    p.add_argument("--max-rounds", type=int, default=100)
    p.add_argument("--json", type=Path, default=None)
    args = p.parse_args(argv)
    if args.epochs < 1 or args.rounds < 1 or args.max_rounds < 1:
        p.error("--epochs, --rounds and --max-rounds must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        result = run(args)
        if args.json:
            args.json.write_text(json.dumps(result, indent=1) + "\n")
    except (ValueError, OSError) as e:  # no solution for the table, a missing file
        print(f"error: {' '.join(str(e).split())}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
