"""Evaluation: quick and batched during training, the gauntlet at the end.

:class:`QuickEvaluator` plays the learner as the saved policy will play (``play``: its
most likely legal action, or a draw from the policy) against a table of one fixed
opponent kind on the batched engine, up to ``MAX_EVAL_SLOTS`` games side by side. Every
slot counts only its first ``quota`` games, so short games are not over-represented
(counting whatever finishes first in a fixed number of steps would favour them). The
learner's seat rotates.
:func:`eval_score` turns the win shares against the evaluation opponents into the one
number that picks the best policy, and :func:`metrics_row` into a ``metrics.csv`` row.

:func:`final_evaluation` runs :func:`grove_env.agents.arena.gauntlet.run_gauntlet` on the spec
``ppo:<path>``: the trained agent against ``n - 1`` of every style and reference agent,
played through ``grove_v1`` like any other agent, and writes ``final_eval.txt``,
``final_eval.json`` and ``final_eval.png`` into the run; with ``final_nashconv`` the
exact NashConv of the policy as it plays too (:func:`final_nash_conv`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from grove_env.agents.arena.gauntlet import run_gauntlet
from grove_env.agents.learned.actor import Actor
from grove_env.analysis import WHOLE_GAME_ROUTINE, nash_conv
from grove_env.training.config import TrainConfig
from grove_env.training.run.directory import SHARE_PREFIX, atomic_write_text, nash_conv_line
from grove_env.training.selfplay.games import SelfPlayGames
from grove_env.training.selfplay.opponents import Opponents

MAX_EVAL_SLOTS = 256


@dataclass(frozen=True)
class QuickEval:
    """Result of one quick evaluation against one opponent kind."""

    opponent: str
    games: int
    win_share: float
    mean_reward: float
    mean_rank: float


class QuickEvaluator:
    """Learner vs ``n - 1`` copies of one opponent kind, batched; reused across evaluations.

    ``name`` is the opponent, or ``opponent@rules:players`` for a run on several tables.
    """

    def __init__(
        self, cfg: TrainConfig, opponent: str, games: int, table: tuple[str, int] | None = None
    ) -> None:
        rules, n = table or (cfg.rules, cfg.num_players)
        self.opponent = opponent
        self.greedy = cfg.play == "greedy"
        self.name = eval_name(cfg, opponent, (rules, n))
        self.quota = math.ceil(games / MAX_EVAL_SLOTS)
        slots = math.ceil(games / self.quota)
        self.slots = math.ceil(slots / n) * n  # whole seat rotations
        self.games = SelfPlayGames(
            self.slots,
            Opponents({opponent: 1.0}, seed=cfg.seed),
            rules=rules,
            num_players=n,
            reward=cfg.reward,
            max_rounds=cfg.max_rounds,
            learner_seat="rotate",
            seed=cfg.seed,
        )

    def run(self, actor: Actor, seed: int) -> QuickEval:
        games = self.games
        obs = games.restart(seed)
        draws = torch.Generator().manual_seed(seed)  # play: sample draws, the same per seed
        counted = np.zeros(self.slots, dtype=np.int64)
        points, rewards, ranks = [], [], []
        while (counted < self.quota).any():
            actions = actor.act(obs, games.action_masks(), self.greedy, draws)
            _, dones, infos = games.advance(actions)
            obs = games.observe()
            for b in np.flatnonzero(dones & (counted < self.quota)):
                info = infos[b]
                points.append(info["win_points"])
                rewards.append(info["episode"]["r"])
                ranks.append(info["rank"])
                counted[b] += 1
        games.pop_results()
        return QuickEval(
            opponent=self.name,
            games=len(points),
            win_share=float(np.mean(points)),
            mean_reward=float(np.mean(rewards)),
            mean_rank=float(np.mean(ranks)),
        )


def eval_score(shares: dict[str, float], best_by: str) -> float:
    """The score of one quick evaluation (``best_by``: ``mean`` or ``mean_and_worst``).

    >>> shares = {"random": 0.6, "piler": 0.2}
    >>> round(eval_score(shares, "mean"), 3), round(eval_score(shares, "mean_and_worst"), 3)
    (0.4, 0.3)
    """
    mean = sum(shares.values()) / len(shares)
    return mean if best_by == "mean" else (mean + min(shares.values())) / 2.0


def metrics_row(
    step: int,
    wall: float,
    shares: dict[str, float],
    score: float | None,
    **more: float | int | None,
) -> dict[str, float | int | str | None]:
    """One ``metrics.csv`` row (:func:`~grove_env.training.run.directory.metrics_columns`)."""
    row: dict[str, float | int | str | None] = {"step": step, "wall_time_s": round(wall, 1)}
    row.update({f"{SHARE_PREFIX}{name}": share for name, share in shares.items()})
    row["eval/score"] = score
    row.update(more)
    return row


def evaluators(cfg: TrainConfig) -> list[QuickEvaluator]:
    """One quick evaluator per table and evaluation opponent."""
    return [
        QuickEvaluator(cfg, opponent, cfg.eval_games, table)
        for table in cfg.table_list()
        for opponent in cfg.eval_opponents
    ]


def eval_name(cfg: TrainConfig, opponent: str, table: tuple[str, int]) -> str:
    """A quick evaluation's name: the opponent, or ``opponent@rules:players`` for a run
    on several tables."""
    rules, n = table
    return f"{opponent}@{rules}:{n}" if len(cfg.table_list()) > 1 else opponent


def eval_names(cfg: TrainConfig) -> list[str]:
    """The names of :func:`evaluators`' results (the ``metrics.csv`` columns)."""
    return [eval_name(cfg, o, table) for table in cfg.table_list() for o in cfg.eval_opponents]


def final_evaluation(cfg: TrainConfig, run_dir: Path, model_path: Path) -> str:
    """The gauntlet of the trained agent on each table; saved (text, JSON, PNG per
    table) and returned as text."""
    spec = f"ppo:{model_path}"
    texts, tables, measured = [], {}, {}
    several = len(cfg.table_list()) > 1
    for rules, n in cfg.table_list():
        result = run_gauntlet(
            spec,
            rules=rules,
            num_players=n,
            games=cfg.final_eval_games,
            seed=cfg.seed + 1,
            workers=cfg.final_eval_workers,
        )
        text = result.table()
        if cfg.final_nashconv and n <= 4:
            measured[f"{rules}:{n}"] = final_nash_conv(spec, rules, n, cfg.max_rounds)
            text += "\n" + nash_conv_line(measured[f"{rules}:{n}"])
        texts.append(text)
        tables[f"{rules}:{n}"] = result
        suffix = f"_{rules}{n}" if several else ""
        result.plot(str(run_dir / f"final_eval{suffix}.png"))
    text = "\n\n".join(texts) + "\n"
    atomic_write_text(run_dir / "final_eval.txt", text)
    summary: dict = {"model": str(model_path), "spec": spec}
    if several:
        summary["tables"] = {name: r.to_dict() for name, r in tables.items()}
        for name, nash in measured.items():
            summary["tables"][name]["nash_conv"] = nash
    else:
        (result,) = tables.values()
        summary["gauntlet"] = result.to_dict()
        if measured:
            (summary["nash_conv"],) = measured.values()
        for opponent in ("random", "heuristic"):  # the two tables of the first evaluations
            cell = result.cell(opponent)
            summary[f"vs_{opponent}"] = {
                "learner": {
                    "win_share": cell.win_share,
                    "ci_low": cell.ci_low,
                    "ci_high": cell.ci_high,
                    "games": cell.games,
                },
                "fair_share": result.fair_share,
            }
    atomic_write_text(run_dir / "final_eval.json", json.dumps(summary, indent=2) + "\n")
    return text


def final_nash_conv(agent: Any, rules: str, n: int, max_rounds: int = 100) -> dict[str, float]:
    """``{"round": markers, "game": outcome}`` NashConv of ``agent`` (an agent or a spec) as
    it plays: one round from the start of a game, and the whole game where it takes
    minutes (2 players, and revised at 3: :data:`~grove_env.analysis.WHOLE_GAME_ROUTINE`)."""
    out = {"round": nash_conv(agent, rules, n).nash_conv}
    if n <= WHOLE_GAME_ROUTINE[rules]:
        out["game"] = nash_conv(agent, rules, n, whole_game=True, max_rounds=max_rounds).nash_conv
    return out


def finish_run(cfg: TrainConfig, run_dir: Path, policy: Path) -> str | None:
    """The final tournament on ``policy`` (skipped with ``final_eval_games: 0``), printed."""
    if cfg.final_eval_games <= 0:
        return None
    print(
        f"final evaluation: the gauntlet, {cfg.final_eval_games} games per opponent ...", flush=True
    )
    text = final_evaluation(cfg, run_dir, policy)
    print(text, flush=True)
    return text
