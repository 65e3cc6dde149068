"""The learned best response (``python -m grove_env.training.bestresponse``): its plan, its
evaluation seat by seat against the exact values, its bound below the exact NashConv."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from grove_env.agents.base import make_agent
from grove_env.analysis import nash_conv
from grove_env.training.batched.rollout import bootstrap_gamma
from grove_env.training.bestresponse.cli import main
from grove_env.training.bestresponse.evaluate import profile_values, response_values
from grove_env.training.bestresponse.plan import Plan, best_response_config
from grove_env.training.config import ConfigError, config_from_dict
from grove_env.training.front import train

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--set", "num_envs=256", "--set", "n_steps=16", "--set", "batch_size=1024"]
TINY += ["--set", "eval_games=64", "--set", "progress=false"]


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (["--players", "7"], "--players: rule set 'revised' allows num_players in (2, 3, 4, 5)"),
        (["--agent", "nobody"], "--agent: unknown agent 'nobody'"),
        (["--agent", "human"], "--agent: a human cannot be the frozen policy"),
        (["--agent", "zoo:classic-4p"], "zoo:classic-4p plays classic with 4 players"),
        (["--players", "4", "--whole-game", "--exact"], "computed at 2 to 3 players, not 4"),
        (["--players", "5", "--exact"], "one round is computed at 2 to 4 players, not 5"),
        (["--steps", "0"], "--steps: must be a whole number of at least 1"),
        (["--set", "learning_rate=-1"], "learning_rate: must be > 0.0, got -1"),
    ],
)
def test_a_bad_request_is_one_line_before_anything_trains(
    args: list[str], problem: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*args, "--runs-root", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert problem in err and err.count("\n") == 1, err
    assert not any(tmp_path.iterdir())


def test_any_agent_is_an_opponent_by_its_spec_and_must_play_the_table() -> None:
    cfg = config_from_dict(
        {
            "rules": "revised",
            "num_players": 3,
            "opponents": {"live": 0, "agents": {"zoo:revised-3p": 2.0}},
        }
    )
    assert cfg.opponents.weights()["zoo:revised-3p"] == 2.0
    for bad, problem in [
        ({"agents": {"random": 1.0}}, "'random' has its own key: set opponents.random"),
        ({"agents": {"zoo:revised-2p": 1.0}}, "zoo:revised-2p plays revised with 2 players"),
        ({"agents": {"heuristic": -1.0}}, "must be >= 0.0"),
    ]:
        with pytest.raises(ConfigError, match=problem):
            config_from_dict({"rules": "revised", "num_players": 3, "opponents": bad})


def test_a_one_round_response_ends_its_games_at_the_cut() -> None:
    round_cfg = best_response_config(Plan("revised", 2, "random", False, 1, None), "runs")
    game_cfg = best_response_config(Plan("revised", 2, "random", True, 1, None), "runs")
    assert (round_cfg.max_rounds, round_cfg.reward, bootstrap_gamma(round_cfg)) == (
        1,
        "markers",
        0.0,
    )
    assert (game_cfg.max_rounds, game_cfg.reward, bootstrap_gamma(game_cfg)) == (
        100,
        "outcome",
        1.0,
    )
    with pytest.raises(ConfigError, match="truncation: read by the batched backend only"):
        config_from_dict({"backend": "sb3", "truncation": "end"})


def test_max_seconds_ends_a_run_before_its_steps(tmp_path: Path) -> None:
    cfg = config_from_dict(
        {
            "rules": "revised",
            "num_players": 2,
            "num_envs": 64,
            "n_steps": 8,
            "batch_size": 256,
            "total_timesteps": 10**9,
            "max_seconds": 2.0,
            "eval_every": 10**9,
            "final_eval_games": 0,
            "progress": False,
            "run_dir": str(tmp_path / "run"),
        }
    )
    assert train(cfg) == 0
    state = json.loads(next((tmp_path / "run" / "checkpoints").glob("*/state.json")).read_text())
    assert 0 < state["step"] < 10**7


@pytest.mark.parametrize("whole_game", [True, False])
def test_the_values_seat_by_seat_match_the_exact_ones(whole_game: bool) -> None:
    """Random against random, as the responder and as the profile: each seat's sampled
    value within 4 standard errors of the exact one (seat 0 and seat 1 differ, so a
    seat mislabelled fails)."""
    exact = nash_conv("random", "revised", 2, whole_game=whole_game)
    unit, rounds = ("outcome", 100) if whole_game else ("markers", 1)
    responder = make_agent("random", seed=3)
    for found in (
        response_values(responder, "random", "revised", 2, unit, rounds, 3000, seed=11),
        profile_values("random", "revised", 2, unit, rounds, 3000, seed=12),
    ):
        assert found.games >= 3000
        for mean, error, value in zip(found.means, found.errors, exact.values):
            assert abs(mean - value) < 4 * error, (found, exact.values)


def test_the_bound_against_random_is_positive_and_below_the_exact(tmp_path: Path) -> None:
    """The real script, a tiny budget: the JSON says it is a lower bound, its fields agree
    with each other, the bound is positive and its interval starts below the exact."""
    cmd = [
        sys.executable,
        "-m",
        "grove_env.training.bestresponse",
        "--rules",
        "revised",
        "--players",
        "2",
        "--agent",
        "random",
        "--whole-game",
        "--steps",
        "32768",
        "--eval-games",
        "1200",
        "--exact",
        "--json",
        "--runs-root",
        str(tmp_path),
        *TINY,
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["kind"] == "lower bound" and out["unit"] == "outcome"
    assert out["steps"] >= 32768 and out["eval_games"] >= 1200
    gains = [s["gain"] for s in out["seats"]]
    assert math.isclose(sum(gains), out["lower_bound"], abs_tol=1e-9)
    for s in out["seats"]:
        lo, hi = s["gain_interval"]
        assert lo < s["gain"] < hi and math.isclose(s["gain"], s["response"] - s["profile"])
    lo, hi = out["lower_bound_interval"]
    exact = out["exact"]["nash_conv"]
    assert 0 < lo < out["lower_bound"] < hi
    assert lo < exact, "a learned response cannot gain more than the best one"
    assert math.isclose(out["exact"]["ratio"], out["lower_bound"] / exact)
    assert json.loads((Path(out["run_dir"]) / "best_response.json").read_text()) == out
