"""Quick evaluation while training (:mod:`grove_env.training.measure.evaluate`): it plays the
learner on the self-play core directly, counts each slot's first games only, and repeats
itself: a fresh evaluator at the same seed plays the same games (an evaluator's opponents
keep their own generators across its runs, as in training)."""

from __future__ import annotations

import torch

from grove_env.training.config import TrainConfig
from grove_env.training.measure.evaluate import QuickEvaluator, eval_score
from grove_env.training.run import checkpoint


def test_an_evaluation_counts_its_games_and_repeats_at_a_seed() -> None:
    cfg = TrainConfig(num_envs=8, batch_size=64, num_players=3)
    torch.manual_seed(0)
    actor = checkpoint.policy_card(cfg, 0).build()
    evaluator = QuickEvaluator(cfg, "random", games=60)
    first = evaluator.run(actor, seed=3)
    assert QuickEvaluator(cfg, "random", games=60).run(actor, seed=3) == first
    assert first.games >= 60 and first.games % evaluator.quota == 0
    assert 0.0 <= first.win_share <= 1.0 and 1.0 <= first.mean_rank <= 3.0
    assert evaluator.run(actor, seed=4) != first


def test_the_score_weighs_the_worst_case_when_asked() -> None:
    assert eval_score({"a": 0.2, "b": 0.6}, "mean") == 0.4
    assert eval_score({"a": 0.2, "b": 0.6}, "mean_and_worst") == 0.30000000000000004
