"""Evaluation: quick and batched during training, a full tournament at the end.

:class:`QuickEvaluator` plays the learner (deterministic, its most likely legal
action) against a table of one fixed opponent kind on the batched engine, up to
``MAX_EVAL_SLOTS`` games side by side. Every slot counts only its first ``quota`` games,
so short games are not over-represented (counting whatever finishes first in a
fixed number of steps would favour them). The learner's seat rotates.

:func:`final_evaluation` runs :func:`grove_env.agents.tournament.run_tournament` with the
spec ``ppo:<path>``: the trained agent against ``n - 1`` heuristic and against
``n - 1`` random opponents, played game by game through ``grove_v1`` like any
other agent, and writes ``final_eval.txt`` / ``final_eval.json`` into the run.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from grove_env.agents.actor import Actor
from grove_env.agents.tournament import run_tournament
from grove_env.training.config import TrainConfig
from grove_env.training.opponents import Opponents
from grove_env.training.run_dir import atomic_write_text
from grove_env.training.vec_env import GroveSelfPlayVecEnv

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
    """Learner vs ``n - 1`` copies of one opponent kind, batched; reused across evaluations."""

    def __init__(self, cfg: TrainConfig, opponent: str, games: int) -> None:
        n = cfg.num_players
        self.opponent = opponent
        self.quota = math.ceil(games / MAX_EVAL_SLOTS)
        slots = math.ceil(games / self.quota)
        self.slots = math.ceil(slots / n) * n  # whole seat rotations
        self.env = GroveSelfPlayVecEnv(
            self.slots,
            Opponents({opponent: 1.0}, seed=cfg.seed),
            rules=cfg.rules,
            num_players=n,
            reward=cfg.reward,
            max_rounds=cfg.max_rounds,
            learner_seat="rotate",
            seed=cfg.seed,
        )

    def run(self, actor: Actor, seed: int) -> QuickEval:
        env = self.env
        env.seed(seed)
        obs = np.asarray(env.reset())
        counted = np.zeros(self.slots, dtype=np.int64)
        points, rewards, ranks = [], [], []
        while (counted < self.quota).any():
            actions = actor.act(obs, env.action_masks(), deterministic=True)
            stepped, _, dones, infos = env.step(actions)
            obs = np.asarray(stepped)
            for b in np.flatnonzero(dones & (counted < self.quota)):
                info = infos[b]
                points.append(info["win_points"])
                rewards.append(info["episode"]["r"])
                ranks.append(info["rank"])
                counted[b] += 1
        env.pop_results()
        return QuickEval(
            opponent=self.opponent,
            games=len(points),
            win_share=float(np.mean(points)),
            mean_reward=float(np.mean(rewards)),
            mean_rank=float(np.mean(ranks)),
        )


def final_evaluation(cfg: TrainConfig, run_dir: Path, model_path: Path) -> str:
    """Tournament tables of the trained agent vs each baseline; saved and returned as text."""
    n = cfg.num_players
    spec = f"ppo:{model_path}"
    tables, results = [], {}
    for opponent in ("heuristic", "random"):
        result = run_tournament(
            [spec] + [opponent] * (n - 1),
            rules=cfg.rules,
            num_players=n,
            games=cfg.final_eval_games,
            seed=cfg.seed + 1,
            workers=cfg.final_eval_workers,
            max_rounds=cfg.max_rounds,
            progress=cfg.progress,
        )
        tables.append(f"== trained agent vs {n - 1} x {opponent} ==\n{result.table()}")
        learner = result.entries[0]
        results[f"vs_{opponent}"] = {
            "learner": {
                "win_share": learner.win_share,
                "ci_low": learner.ci_low,
                "ci_high": learner.ci_high,
                "games": learner.games,
            },
            "fair_share": result.fair_share,
            "tournament": result.to_dict(),
        }
    text = "\n\n".join(tables) + "\n"
    atomic_write_text(run_dir / "final_eval.txt", text)
    summary = {"model": str(model_path), "spec": spec, **results}
    atomic_write_text(run_dir / "final_eval.json", json.dumps(summary, indent=2) + "\n")
    return text


def finish_run(cfg: TrainConfig, run_dir: Path, policy: Path) -> str | None:
    """The final tournament on ``policy`` (skipped with ``final_eval_games: 0``), printed."""
    if cfg.final_eval_games <= 0:
        return None
    print(f"final evaluation: {cfg.final_eval_games} games per table ...", flush=True)
    text = final_evaluation(cfg, run_dir, policy)
    print(text, flush=True)
    return text
