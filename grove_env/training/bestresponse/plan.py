"""What a learned best response is asked, checked before anything trains, and its config.

:class:`Plan` holds the table, the policy under test (an agent spec), what is measured
(the whole game, or one round from the start of a game) and the budget. :func:`check`
refuses, in one line, what cannot be done: a table the rules lack, an agent that does
not exist or cannot play the table, an exact figure the analysis cannot compute.
:func:`best_response_config` is the training config of the run: :data:`SETTINGS`,
then the plan's table, opponents and budget, then the caller's ``--set`` overrides.

========================  ==========================================================
measured                  the training games
========================  ==========================================================
the whole game            ``reward: outcome`` to the game's end (``max_rounds: 100``)
one round                 ``reward: markers``, ``max_rounds: 1``, ``truncation: end``
========================  ==========================================================

>>> plan = Plan("revised", 3, "random", whole_game=True, steps=10_000, seconds=None)
>>> cfg = best_response_config(plan, runs_root="runs")
>>> {k: w for k, w in cfg.opponents.weights().items() if w}
{'random': 1.0}
>>> cfg.reward, cfg.learner_seat, cfg.total_timesteps
('outcome', 'rotate', 10000)
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grove_env.agents.base import parse_spec, table_refusal
from grove_env.rules import RULE_SETS, get_rules
from grove_env.training.config import (
    ConfigError,
    OpponentMix,
    TrainConfig,
    apply_overrides,
    config_from_dict,
)

EXACT_WHOLE_GAME = (2, 3)
"""Seats at which the analysis computes the whole game's NashConv exactly."""
EXACT_ROUND = (2, 3, 4)
"""Seats at which it computes one round's."""

SETTINGS: dict[str, Any] = {
    "backend": "batched",
    "num_envs": 2048,
    "n_steps": 16,
    "batch_size": 2048,
    "n_epochs": 4,
    "learning_rate": 0.003,
    "lr_schedule": "linear",
    "gamma": 1.0,
    "gae_lambda": 0.95,
    "ent_coef": 0.01,
    "ent_coef_end": 0.0,
    "net_arch": [128, 128],
    "activation": "relu",
    "features": "culprit_odds",
    "learner_seat": "rotate",
    "snapshot_every": 10**12,
    "eval_every": 2_000_000,
    "eval_games": 400,
    "checkpoint_every": 10**12,
    "keep_checkpoints": 1,
    "final_eval_games": 0,
    "play": "greedy",
    "torch_threads": 1,
    "overlap": True,
}
"""The best response's training settings, before the plan's and the caller's: PPO on the
batched engine, one network for every seat (the seat rotates), a step size falling
from 3e-3 and an entropy bonus from 0.01 to 0 (a best response need not mix: it plays
its most likely move, ``play: greedy``), the network reading the culprit odds. Its
quick evaluations (every 2M steps) are its win share against the policy. The steps are
larger than self-play's (a best response to a fixed policy is one agent's problem):
against the heuristic, 3e-3 over 2048-row minibatches recovered clearly more of the
exact NashConv in the same minutes than 1e-3 over 4096 rows (issue 51's note). The games
and the policy under test play in a second process while the network learns (``overlap``):
without it the learner and the games take turns on one core, and against
``zoo:revised-3p`` the overlap took the bound from 0.822 to 0.856 in 300 s (whole game,
with ``features: advice``)."""


@dataclass(frozen=True)
class Plan:
    """One learned best response: against ``agent`` at ``rules`` with ``players`` seats."""

    rules: str
    players: int
    agent: str
    """The policy under test, an agent spec (``random``, ``heuristic``, ``zoo:revised-3p``)."""
    whole_game: bool
    """The whole game (``outcome``), else one round from the start of a game (``markers``)."""
    steps: int
    """Learner decisions to train for, over all seats."""
    seconds: float | None
    """Wall seconds of training at most (``None``: the steps alone)."""
    eval_games: int = 20_000
    """Fresh games per seat for each value: the best response's and the policy's own."""
    seed: int = 0
    exact: bool = False
    """Also compute the exact NashConv (2 to 3 seats for the whole game, 2 to 4 for a round)."""

    @property
    def unit(self) -> str:
        """The reward the values are in."""
        return "outcome" if self.whole_game else "markers"

    @property
    def max_rounds(self) -> int:
        return 100 if self.whole_game else 1


def check(plan: Plan) -> None:
    """A :class:`ConfigError` of one line for a plan that cannot run (module docstring)."""
    if plan.rules not in RULE_SETS:
        raise ConfigError(f"--rules: must be one of {', '.join(map(repr, RULE_SETS))}")
    try:
        get_rules(plan.rules).check_players(plan.players)
    except ValueError as e:
        raise ConfigError(f"--players: {e}") from None
    try:
        name, _ = parse_spec(plan.agent)
    except ValueError as e:
        raise ConfigError(f"--agent: {e}") from None
    if name == "human":
        raise ConfigError("--agent: a human cannot be the frozen policy")
    refusal = table_refusal(plan.agent, plan.rules, plan.players)
    if refusal is not None:
        raise ConfigError(f"--agent: {refusal}")
    seats = EXACT_WHOLE_GAME if plan.whole_game else EXACT_ROUND
    if plan.exact and plan.players not in seats:
        what = "the whole game" if plan.whole_game else "one round"
        raise ConfigError(
            f"--exact: the exact NashConv of {what} is computed at {seats[0]} to {seats[-1]} "
            f"players, not {plan.players}; leave out --exact for the lower bound alone"
        )
    if plan.steps < 1 or plan.eval_games < 1 or (plan.seconds is not None and plan.seconds <= 0):
        raise ConfigError("--steps, --eval-games and --seconds must be positive")


def run_name(plan: Plan) -> str:
    """The run's name: ``br-<rules><n>p-<agent>`` with the spec made a plain folder name.

    >>> run_name(Plan("revised", 3, "zoo:revised-3p", True, 1, None))
    'br-revised3p-zoo-revised-3p'
    """
    agent = re.sub(r"[^A-Za-z0-9._-]+", "-", plan.agent).strip("-.")[:40] or "agent"
    return f"br-{plan.rules}{plan.players}p-{agent}"


def only(agent: str) -> dict[str, Any]:
    """The opponent mix of ``agent`` alone: under its own key if the mix has one, else
    under ``agents``.

    >>> only("random")["random"], only("zoo:revised-3p")["agents"]
    (1.0, {'zoo:revised-3p': 1.0})
    """
    mix: dict[str, Any] = {kind: 0.0 for kind in OpponentMix().weights()}
    if agent in mix:
        mix[agent] = 1.0
    else:
        mix["agents"] = {agent: 1.0}
    return mix


def best_response_config(
    plan: Plan, runs_root: str, overrides: list[str] | None = None
) -> TrainConfig:
    """The training config of the plan's best response (module docstring), checked."""
    data: dict[str, Any] = {
        **SETTINGS,
        "name": run_name(plan),
        "rules": plan.rules,
        "num_players": plan.players,
        "reward": plan.unit,
        "max_rounds": plan.max_rounds,
        "truncation": "bootstrap" if plan.whole_game else "end",
        "total_timesteps": plan.steps,
        "max_seconds": plan.seconds,
        "seed": plan.seed,
        "opponents": only(plan.agent),
        "eval_opponents": [plan.agent],
        "runs_root": runs_root,
    }
    data = apply_overrides(data, overrides or [])
    data.setdefault("run_dir", None)
    if data["run_dir"] is None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        data["run_dir"] = str(Path(runs_root) / f"{data['name']}-s{data['seed']}-{stamp}")
    return config_from_dict(data)
