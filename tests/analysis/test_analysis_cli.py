"""The analysis command line, run for real in a subprocess on the smallest table."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest


def run(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "grove_env.analysis", *args], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.slow
def test_nashconv_prints_nash_conv_and_gains():
    out = json.loads(run("nashconv", "--rules", "classic", "--players", "2", "--json"))
    assert out["nash_conv"] > 0 and len(out["gains"]) == 2
    assert abs(sum(out["gains"]) - out["nash_conv"]) < 1e-12
    assert "NashConv" in run("nashconv", "--agent", "random")


@pytest.mark.slow
def test_whole_game_nashconv_runs_with_a_round_limit():
    out = json.loads(run("nashconv", "--whole-game", "--max-rounds", "2", "--json"))
    assert out["unit"] == "outcome" and out["nash_conv"] >= 0
    args = ("nashconv", "--whole-game", "--max-rounds", "2", "--agent", "greedy", "--json")
    one, two = (json.loads(run(*args, "--workers", w)) for w in ("1", "2"))
    assert one["nash_conv"] == two["nash_conv"] and one["gains"] == two["gains"]
    assert (one["workers"], two["workers"]) == (1, 2)


@pytest.mark.slow
def test_solve_saves_a_strategy(tmp_path):
    path = tmp_path / "s.npz"
    out = run("solve", "--players", "2", "--seconds", "0.5", "--out", str(path))
    assert "saved" in out
    with np.load(path, allow_pickle=False) as f:
        assert f["probs"].shape[1] == 3 and str(f["table"]) == "classic 2"


@pytest.mark.slow
def test_solve_writes_to_the_current_folder_by_default_not_the_package(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "grove_env.analysis", "solve", "--seconds", "0.2"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "cfr_classic_2p.npz").is_file()


@pytest.mark.slow
def test_solve_whole_game_saves_what_cfr_plays_and_nashconv_measures(tmp_path):
    path = tmp_path / "g.npz"
    out = run("solve", "--whole-game", "--max-rounds", "3", "--out", str(path))
    assert "whole game to round 3: 23 states" in out and "saved" in out
    with np.load(path, allow_pickle=False) as f:
        assert f["probs"].shape[1:] == (len(f["keys"]), 3) and int(f["max_rounds"]) == 3
    measured = json.loads(
        run("nashconv", "--whole-game", "--max-rounds", "3", "--agent", f"cfr:{path}", "--json")
    )
    assert f"NashConv {measured['nash_conv']:.2e} outcome" in out


@pytest.mark.slow
def test_play_prints_each_opponents_cell_and_its_ceiling():
    out = json.loads(run("play", "--rules", "revised", "--agent", "heuristic", "--json"))
    cells = {c["opponent"]: c for c in out["cells"]}
    assert list(cells) == ["random", "greedy", "stack-avoider", "piler", "follower"] + [
        "contrarian",
        "bluffer",
        "heuristic",
    ]
    assert abs(cells["heuristic"]["value"]) < 1e-12  # against itself: a centred round
    assert all(c["value"] <= c["best"] + 1e-12 for c in cells.values())
    text = run("play", "--rules", "revised", "--players", "3", "--against", "random")
    assert "against 2 copies of each opponent" in text and text.count("\nrandom ") == 1


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["nashconv", "--agent", "nope"], 2, "unknown agent 'nope'"),
        (["nashconv", "--agent", "human"], 2, "'human': the analysis asks"),
        (["play", "--against", "random,nope"], 2, "unknown agent 'nope'"),
        (["play", "--against", "human"], 2, "'human': the analysis asks"),
        (["play", "--against", "random,,greedy"], 2, "a comma list of distinct agent specs"),
        (["play", "--against", "random,random"], 2, "a comma list of distinct agent specs"),
        (["play", "--players", "5"], 2, "allows num_players in (2, 3, 4), got 5"),
        (["nashconv", "--players", "7"], 2, "allows num_players in (2, 3, 4), got 7"),
        (["nashconv", "--players", "x"], 2, "'x' is not a whole number"),
        (["nashconv", "--whole-game", "--max-rounds", "0"], 2, "must be at least 1"),
        (["nashconv", "--max-rounds", "3"], 2, "--max-rounds is for --whole-game"),
        (["nashconv", "--workers", "2"], 2, "--workers is for --whole-game"),
        (["nashconv", "--whole-game", "--workers", "0"], 2, "must be at least 1"),
        (
            ["solve", "--whole-game", "--rules", "revised", "--players", "4"],
            2,
            "--whole-game is exact at 2 to 3 players, got --players 4",
        ),
        (
            ["nashconv", "--whole-game", "--rules", "classic", "--players", "4"],
            2,
            "--whole-game is exact at 2 to 3 players, got --players 4",
        ),
        (["solve", "--whole-game", "--out", "x.txt"], 2, "--out names a .npz file"),
        (["solve", "--small"], 2, "--small is for --whole-game"),
        (["nashconv", "--players", "4", "--agent", "cfr"], 1, "no solved strategy ships"),
        (["play", "--against", "random,zoo:revised-3p"], 1, "plays revised with 3 players"),
        (["nashconv", "--agent", "ppo:/nonexistent"], 1, "is not a policy"),
        (["solve", "--seconds", "nan"], 2, "must be a finite number > 0, got 'nan'"),
        (["solve", "--seconds", "-3"], 2, "must be a finite number > 0"),
        (["solve", "--target", "inf"], 2, "must be a finite number >= 0"),
        (["solve", "--out", "x.txt"], 2, "--out names a .npz file"),
        (["solve", "--out", "/nonexistent/dir/x.npz"], 1, "does not exist"),
    ],
)
def test_bad_input_is_one_line_and_no_work_is_done(tmp_path, args, code, message):
    done = subprocess.run(
        [sys.executable, "-m", "grove_env.analysis", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == code, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert done.stdout == "" and list(tmp_path.iterdir()) == []
