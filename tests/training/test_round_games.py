"""``round_games``: a share of the games plays the first round alone, and teaches it.

The run's games split into whole games and games of one round (``reward: markers``,
the round's end their end, against ``round_opponents``); a whole game's first-round
decisions are kept out of the update, every round game's decision is learnt from, and a
round game's end is never bootstrapped. Read back from the rollouts the collector
fills, in one process and with the overlap.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import torch

from grove_env.observation import OFF_ROUND
from grove_env.training.batched.lanes import LaneCollector, LaneRollout
from grove_env.training.batched.trainer import BatchedTrainer
from grove_env.training.config import ConfigError, TrainConfig, config_from_dict, load_config
from grove_env.training.run.checkpoint import policy_card
from grove_env.training.run.network import ActorCritic
from grove_env.training.selfplay.opponents import Opponents
from grove_env.training.selfplay.tables import build_opponents, training_games

torch.set_num_threads(1)


def round_config(**extra: object) -> TrainConfig:
    smoke = load_config("configs/smoke.yaml")
    return smoke.model_copy(
        update={
            "backend": "batched",
            "learn_from": "live_seats",
            "rules": "classic",
            "num_players": 4,
            "num_envs": 8,
            "n_steps": 60,
            "batch_size": 480,
            "features": "observation",
            "round_games": 0.5,
            "torch_threads": 1,
            **extra,
        }
    )


def test_the_games_split_into_whole_games_and_games_of_one_round() -> None:
    cfg = round_config(num_envs=12, round_games=0.25)
    games, rounds = training_games(cfg, load_opponents(cfg), cfg.seed, "live")
    whole, one = games
    assert rounds == 1 and (whole.num_games, one.num_games) == (9, 3)
    assert (whole.game.max_rounds, whole.game.reward) == (cfg.max_rounds, "outcome")
    assert (one.game.max_rounds, one.game.reward) == (1, "markers")
    # round_opponents: the live weights in every seat unless it says otherwise
    mine, theirs = one.opponents, whole.opponents
    assert isinstance(mine, Opponents) and isinstance(theirs, Opponents)
    assert mine.weights[0] == 1.0 and mine.live is theirs.live
    alone = cfg.model_copy(update={"round_games": 0.0})
    assert training_games(alone, load_opponents(alone), 0, "live")[1] == 0


def load_opponents(cfg: TrainConfig) -> Opponents:
    opponents = build_opponents(cfg, cfg.seed + 1)
    opponents.live = ActorCritic(policy_card(cfg, 0), cfg.shared_trunk).actor
    return opponents


def test_a_whole_games_first_round_is_not_learnt_and_a_round_game_ends_unbootstrapped(
    tmp_path: Path,
) -> None:
    trainer = BatchedTrainer(round_config(), tmp_path)
    try:
        collector, rollout = trainer.collector, trainer.rollout
        assert isinstance(collector, LaneCollector) and isinstance(rollout, LaneRollout)
        # A value of 100 everywhere: a bootstrapped round game would show it in its rewards.
        last = trainer.model.critic[-1]
        assert isinstance(last, torch.nn.Linear)
        with torch.no_grad():
            last.weight.zero_()
            last.bias.fill_(100.0)
        assert float(trainer.model.value(rollout.inputs[-1:]).item()) == pytest.approx(100.0)
        stats = collector.collect(rollout, lambda n: True)
        assert stats is not None
        b, c, half = rollout.games, rollout.carried, rollout.games // 2
        rows = c + np.arange(rollout.steps * b)
        game = (rows - c) % b
        first = rollout.inputs[rows, OFF_ROUND].numpy() == 0
        whole_rows, round_rows = rows[game < half], rows[game >= half]
        assert first[game >= half].all()  # a round game never reaches a second round
        # whole games: round 1 kept out, later rounds learnt; round games: all learnt
        assert not rollout.learnt[whole_rows[first[game < half]]].any()
        later = whole_rows[~first[game < half]]
        assert len(later) > 0 and rollout.learnt[later].all()
        assert rollout.learnt[round_rows].all()
        # each round game pays markers, zero-sum over its seats, with no value added
        ended = rows[(game >= half) & rollout.dones[rows]]
        assert len(ended) >= half
        assert np.abs(rollout.rewards[round_rows]).max() < 20
        samples = rollout.samples(1.0, 0.95)
        waiting = rollout.open[rollout.open >= 0]
        assert len(samples.actions) == int((rollout.filled & rollout.learnt).sum()) - int(
            rollout.learnt[waiting].sum()
        )
        assert any(k.endswith("@first-round") for k in stats.results)
        # the log's overall win share is the whole games'; each label keeps its own
        logged = trainer.rollout_share({"live": (10, 0.3), "live@first-round": (30, 0.9)})
        assert logged["rollout/win_share"] == pytest.approx(0.3)
        assert logged["rollout/win_share_vs_live@first-round"] == pytest.approx(0.9)
        # the next rollout carries each seat's last decision with its learnt flag
        lanes = np.flatnonzero(rollout.open.ravel() >= 0)
        kept = rollout.learnt[rollout.open.ravel()[lanes]].copy()
        assert not kept.all()  # some whole game waits in its first round
        rollout.carry_over()
        assert np.array_equal(rollout.learnt[lanes], kept)
    finally:
        trainer.writer.close()


@pytest.mark.slow
def test_round_games_train_with_the_overlap(tmp_path: Path) -> None:
    trainer = BatchedTrainer(round_config(overlap=True), tmp_path)
    try:
        assert trainer.iterate() and trainer.iterate()
        assert trainer.pending is not None
        assert any(k.endswith("@first-round") for k in trainer.pending.results)
    finally:
        trainer.close()
        trainer.writer.close()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"backend": "sb3", "learn_from": "learner"}, "round_games: the batched backend"),
        ({"learn_from": "learner"}, "learn_from live_seats"),
        ({"tables": ["classic:4", "revised:3"]}, "one table"),
        ({"max_rounds": 1}, "max_rounds above 1"),
        ({"round_opponents": {"live": 1.0, "pool": 0.5}}, "round_opponents: pool"),
        ({"num_envs": 4, "round_games": 0.1}, "leaves no game of one kind"),
        ({"round_games": 1.0}, "round_games"),
    ],
)
def test_round_games_refuse_what_they_cannot_play(extra: dict, message: str) -> None:
    base = {"backend": "batched", "learn_from": "live_seats", "round_games": 0.5}
    with pytest.raises(ConfigError, match=message):
        config_from_dict({**base, **extra})


def test_a_kind_round_opponents_leaves_out_gets_no_weight() -> None:
    cfg = config_from_dict(
        {
            "backend": "batched",
            "learn_from": "live_seats",
            "round_games": 0.5,
            "round_opponents": {"heuristic": 0.2, "stack_avoider": 0.1},
        }
    )
    weights = cfg.round_opponents.weights()
    assert (weights["heuristic"], weights["stack-avoider"]) == (0.2, 0.1)
    assert sum(weights.values()) == pytest.approx(0.3)
    assert cfg.opponents.weights()["live"] == 0.5  # opponents keeps its defaults


def test_the_throughput_benchmark_compares_whole_games_only() -> None:
    """``configs/default.yaml`` has round games, SB3 none: the benchmark plays whole games
    on both backends, so its ratios compare the same games."""
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "train_throughput.py"
    spec = importlib.util.spec_from_file_location("train_throughput", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    cfg = load_config("configs/default.yaml")
    assert cfg.round_games > 0
    for backend in ("sb3", "batched"):
        for name in bench.SETTINGS:
            assert bench.setting(cfg, name, backend, 1, (64, 8)).round_games == 0.0
