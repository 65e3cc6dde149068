"""``follow_worst``: the opponent mix moved towards the kinds the learner does worst against.

What it promises (:func:`grove_env.training.selfplay.opponents.follow_worst` and the
config field): the kinds both the mix and the quick evaluation name share out the weight
the config gave them, more of it to a lower win share; ``live``, ``pool`` and the kinds
not evaluated keep theirs; the new weights seat the games started after an evaluation,
in the trainer's own process and in the collector process (``overlap``); a config that
cannot follow is refused in one line.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import torch
from training_runs import ROOT

from grove_env.training.batched.trainer import BatchedTrainer
from grove_env.training.config import ConfigError, config_from_dict, load_config
from grove_env.training.schedule import RunSchedule
from grove_env.training.selfplay.opponents import Opponents, follow_worst
from grove_env.training.selfplay.tables import build_opponents

BASE = {"live": 1.0, "pool": 0.5, "heuristic": 0.3, "greedy": 0.2, "random": 0.1, "piler": 0.0}


def test_the_followed_kinds_keep_their_total_and_the_worst_gains() -> None:
    shares = {"heuristic": 0.30, "greedy": 0.45, "random": 0.70, "piler": 0.1, "live": 0.0}
    moved = follow_worst(BASE, shares, 3.0, 3)
    assert sorted(moved) == ["greedy", "heuristic", "random"]  # weight > 0 and evaluated
    assert math.isclose(sum(moved.values()), 0.6)
    fair = 1 / 3
    raw = {k: BASE[k] * math.exp(3.0 * (fair - shares[k]) / fair) for k in moved}
    for k in moved:  # the formula of the docstring, rescaled to the total
        assert math.isclose(moved[k], raw[k] * 0.6 / sum(raw.values()))
    # Per unit of its own weight, the lower the share the larger the gain.
    gain = {k: moved[k] / BASE[k] for k in moved}
    assert gain["heuristic"] > 1.0 > gain["greedy"] > gain["random"]


def test_strength_zero_or_equal_shares_leave_the_mix_as_written() -> None:
    shares = {"heuristic": 0.2, "greedy": 0.5, "random": 0.9}
    for moved in (
        follow_worst(BASE, shares, 0.0, 2),
        follow_worst(BASE, dict.fromkeys(shares, 0.4), 5.0, 2),
    ):
        assert moved == pytest.approx({k: BASE[k] for k in shares})
    assert follow_worst(BASE, {"bluffer": 0.1}, 3.0, 2) == {}  # nothing both name
    # Any strength stays finite: all the weight goes to the worst kind.
    huge = follow_worst(BASE, shares, 1e6, 5)
    assert huge == pytest.approx({"heuristic": 0.6, "greedy": 0.0, "random": 0.0})


def test_set_weights_reseats_new_games_and_refuses_what_it_cannot_use() -> None:
    opponents = Opponents({"live": 0.5, "random": 0.25, "greedy": 0.25}, seed=0)
    seats = np.zeros(20_000, dtype=np.int64)
    before = np.bincount(opponents.sample(seats, 2)[:, 1], minlength=3)
    assert before[1] > 4_000  # random: about a quarter
    opponents.set_weights({"live": 0.5, "random": 0.0, "greedy": 1.0})
    assert opponents.weights.tolist() == pytest.approx([1 / 3, 0.0, 2 / 3, 0.0])
    after = np.bincount(opponents.sample(seats, 2)[:, 1], minlength=3)
    assert after[1] == 0 and after[2] > 12_000
    for bad, says in (({"bluffer": 1.0}, "'bluffer' is not a kind"), ({"live": -1.0}, ">= 0")):
        with pytest.raises(ValueError, match=says):
            opponents.set_weights(bad)
        assert opponents.weights.tolist() == pytest.approx([1 / 3, 0.0, 2 / 3, 0.0])


def test_following_again_and_again_keeps_live_and_pool_as_written() -> None:
    cfg = config_from_dict(
        {
            "backend": "batched",
            "follow_worst": 3.0,
            "opponents": {"live": 1.0, "pool": 0.5, "heuristic": 0.3, "random": 0.2},
            "eval_opponents": ["random", "heuristic", "greedy"],
        }
    )
    run = RunSchedule.__new__(RunSchedule)  # the schedule's part alone
    run.cfg, run.opponents = cfg, build_opponents(cfg, seed=0)
    logged: list[dict[str, float]] = []
    run.log = lambda scalars, step: logged.append(scalars)  # type: ignore[method-assign]
    shares = {"random": 0.8, "heuristic": 0.2, "greedy": 0.1}
    for _ in range(3):
        run.follow(shares, 0)
        weights = dict(zip([*run.opponents.names, "pool"], run.opponents.weights.tolist()))
        assert weights["live"] == pytest.approx(1.0 / 2.0)  # of the total 2.0, every time
        assert weights["pool"] == pytest.approx(0.5 / 2.0)
        assert weights["heuristic"] + weights["random"] == pytest.approx(0.5 / 2.0)
        assert weights["heuristic"] > 0.3 / 2.0 > 0.2 / 2.0 > weights["random"]
        assert logged[-1] == {f"opponents/weight_{k}": w for k, w in weights.items() if w > 0}
    assert run.mix_to_send is not None and run.mix_to_send["live"] == 1.0


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"backend": "sb3"}, "follow_worst: the batched backend on one table"),
        ({"tables": ["classic:4", "revised:4"]}, "follow_worst: the batched backend on one"),
        ({"eval_opponents": ["bluffer"]}, "no kind of eval_opponents has a weight"),
        ({"follow_worst": -1.0}, "follow_worst"),
    ],
)
def test_a_config_that_cannot_follow_is_refused_in_one_line(change: dict, says: str) -> None:
    data = {
        "backend": "batched",
        "follow_worst": 2.0,
        "opponents": {"live": 1.0, "random": 0.5},
        "eval_opponents": ["random", "heuristic"],
        **change,
    }
    with pytest.raises(ConfigError, match=says) as error:
        config_from_dict(data)
    assert "\n" not in str(error.value)


def games_per_kind(run: BatchedTrainer, rollouts: int) -> dict[str, int]:
    """Games finished against each kind over the next ``rollouts`` iterations."""
    counted: dict[str, int] = {}
    share = run.rollout_share

    def count(results: dict[str, tuple[int, float]]) -> dict[str, float]:
        for label, (games, _) in results.items():
            counted[label] = counted.get(label, 0) + games
        return share(results)

    run.rollout_share = count  # type: ignore[method-assign]
    try:
        for _ in range(rollouts):
            assert run.iterate()
    finally:
        del run.rollout_share
    return counted


@pytest.mark.slow  # a batched run, with a collector process where overlap is on
@pytest.mark.parametrize("overlap", [False, True])
def test_the_moved_mix_seats_the_next_games(tmp_path: Path, overlap: bool) -> None:
    torch.set_num_threads(1)
    cfg = load_config(ROOT / "configs" / "smoke.yaml").model_copy(
        update={"backend": "batched", "overlap": overlap, "max_rounds": 1, "follow_worst": 50.0}
    )
    run = BatchedTrainer(cfg, tmp_path)
    try:
        assert games_per_kind(run, 4).get("random", 0) > 0
        run.follow({"random": 1.0, "heuristic": 0.0}, run.step)  # random: weight ~ 0
        games_per_kind(run, 6)  # the games seated before the change (and, with the
        # overlap, the rollout collected during the update) finish
        later = games_per_kind(run, 4)
        assert later.get("random", 0) == 0 and later.get("heuristic", 0) > 0
    finally:
        run.close()
        run.writer.close()


@pytest.mark.slow  # a batched run and its resume
def test_a_resumed_run_follows_its_last_evaluation(tmp_path: Path) -> None:
    torch.set_num_threads(1)
    cfg = load_config(ROOT / "configs" / "smoke.yaml").model_copy(
        update={"backend": "batched", "follow_worst": 3.0}
    )
    run = BatchedTrainer(cfg, tmp_path)
    try:
        assert run.iterate()
        run.latest_eval = {"random": 0.9, "heuristic": 0.05}  # as an evaluation leaves it
        run.follow(run.latest_eval, run.step)
        moved = run.opponents.weights.copy()
        ckpt = run.save_checkpoint()
    finally:
        run.close()
        run.writer.close()
    assert not np.allclose(moved, Opponents(cfg.opponents.weights()).weights)
    resumed = BatchedTrainer(cfg, tmp_path, ckpt=ckpt)
    try:
        assert resumed.opponents.weights.tolist() == pytest.approx(moved.tolist())
    finally:
        resumed.close()
        resumed.writer.close()
