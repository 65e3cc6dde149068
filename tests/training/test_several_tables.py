"""One network for several tables: the VecEnv over tables, its config and a smoke run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from grove_env.analysis import nash_conv
from grove_env.training.config import ALL_TABLES, ConfigError, config_from_dict
from grove_env.training.sb3.builders import build_env
from grove_env.training.sb3.vec_env import TablesVecEnv

pytestmark = pytest.mark.slow  # smoke training runs on several tables

ROOT = Path(__file__).resolve().parents[2]
SMALL = {
    "num_envs": 12,
    "n_steps": 8,
    "batch_size": 32,
    "tables": ["classic:2", "revised:3", "revised:5"],
    "opponents": {"random": 1.0, "live": 0.0, "pool": 0.0, "heuristic": 0.0, "greedy": 1.0},
}


def test_all_means_every_table_once() -> None:
    cfg = config_from_dict({"tables": ["all", "classic:4"]})
    assert [f"{r}:{n}" for r, n in cfg.table_list()] == list(ALL_TABLES)
    assert len(ALL_TABLES) == 7
    assert config_from_dict({}).table_list() == [("classic", 4)]


@pytest.mark.parametrize(
    ("tables", "message"),
    [
        (["classic:5"], r"tables\[0\]: rules 'classic' allow \[2, 3, 4\] players"),
        (["modern:4"], "a table is rules:players"),
        (["classic"], "a table is rules:players"),
    ],
)
def test_bad_tables_are_one_line_errors(tables: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        config_from_dict({"tables": tables})


def test_the_tables_share_opponents_and_step_as_one_vecenv() -> None:
    env = build_env(config_from_dict(SMALL), seed=0)
    assert isinstance(env, TablesVecEnv)
    assert env.num_envs == 12 and list(env.bounds) == [0, 4, 8, 12]
    assert all(sub.opponents is env.opponents for sub in env.envs)
    env.seed(0)
    obs = env.reset()
    assert obs.shape == (12, 125)
    players = obs[:, :4].argmax(axis=1) + 2
    assert players.tolist() == [2] * 4 + [3] * 4 + [5] * 4
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(200):
        masks = env.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = env.step(actions)
        ended += int(dones.sum())
        assert len(infos) == 12 and rewards.shape == (12,)
    results = env.pop_results()
    assert ended > 0 and sum(g for g, _ in results.values()) == ended
    assert {label.split("@")[1] for label in results} <= {"classic:2", "revised:3", "revised:5"}


def smoke_run(tmp_path: Path, *args: str) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """``train.py`` on the smoke config (a short final gauntlet, random the only quick
    evaluation) with ``args``: its run directory and the process."""
    args = (f"--set=runs_root={tmp_path}", "--set=eval_opponents=[random]", *args)
    proc = subprocess.run(
        [
            sys.executable,
            "train.py",
            "--config",
            "configs/smoke.yaml",
            "--set=final_eval_games=6",
            *args,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (run_dir,) = tmp_path.iterdir()
    return run_dir, proc


def test_a_smoke_run_on_several_tables_evaluates_each(tmp_path: Path) -> None:
    run_dir, _ = smoke_run(tmp_path, "--set=tables=[classic:2, revised:5]")
    final = json.loads((run_dir / "final_eval.json").read_text())
    assert set(final["tables"]) == {"classic:2", "revised:5"}
    for table in final["tables"].values():
        assert {c["opponent"] for c in table["cells"]} >= {"random", "greedy", "heuristic"}
    card = json.loads((run_dir / "best_policy.json").read_text())
    assert card["rules"] == ["classic", "revised"] and card["player_counts"] == [2, 5]
    header = (run_dir / "metrics.csv").read_text().splitlines()[0]
    assert "eval/win_share_vs_random@classic:2" in header
    assert "eval/win_share_vs_random@revised:5" in header
    assert (run_dir / "final_eval_classic2.png").is_file()


def test_the_final_table_gives_the_exact_nashconv_of_the_policy_as_it_plays(
    tmp_path: Path,
) -> None:
    table = ["--set=rules=revised", "--set=num_players=3"]
    run_dir, proc = smoke_run(tmp_path, *table, "--set=final_nashconv=true", "--set=play=sample")
    final = json.loads((run_dir / "final_eval.json").read_text())
    # The figure is the analysis's own for the saved policy as ppo: plays it (sampling).
    expected = nash_conv(f"ppo:{run_dir}", "revised", 3).nash_conv
    game = nash_conv(f"ppo:{run_dir}", "revised", 3, whole_game=True).nash_conv
    assert final["nash_conv"] == {  # the whole game too: exact at three players
        "round": pytest.approx(expected, abs=1e-9),
        "game": pytest.approx(game, abs=1e-9),
    }
    line = f"exact NashConv: one round {expected:.4f} markers"
    assert line in (run_dir / "final_eval.txt").read_text() and line in proc.stdout
    assert json.loads((run_dir / "best_policy.json").read_text())["play"] == "sample"
