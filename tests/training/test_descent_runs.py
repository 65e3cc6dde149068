"""Exploitability descent as a training method: ``train.py`` on a config with a
``descent:`` section, its run directory, its refusals, and the old script's shim."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest
from command_lines import call
from descents import CONFIG, ROOT

from grove_env.analysis import nash_conv
from grove_env.analysis.whole_game import public_states
from grove_env.rules import get_rules
from grove_env.training.cli import main as train_main
from grove_env.training.config import config_from_dict, read_yaml
from grove_env.training.config.descent import DescentSection

RESULT_KEYS = {
    "rules",
    "num_players",
    "seed",
    *DescentSection.model_fields,
    "later_states",
    "init_steps",
    "kept_iteration",
    "nash_conv",
    "seconds",
}
"""``result.json``: the table, every field of the descent section, and what the run found."""
NO_EXPLOIT = ["exploit_every=null", "best_by=mean"]
"""Past 4 players or at several tables the config's PPO run measures no NashConv."""
CFR_AT_4 = "'cfr': cfr: no solved strategy ships for revised with 4 players"


def descent_run(
    config: Path, out: Path | str, *sets: str, cwd: Path = ROOT, timeout: float = 900
) -> subprocess.CompletedProcess:
    """``train.py --config config --set run_dir=out``, each of ``sets`` one more ``--set``."""
    more = [word for item in sets for word in ("--set", item)]
    command = [sys.executable, str(ROOT / "train.py"), "--config", str(config)]
    command += ["--set", f"run_dir={out}", *more]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def with_descent(tmp_path: Path, section: str, name: str = "descent.yaml") -> Path:
    """The descent tests' config with ``descent: <section>`` (YAML flow style) added."""
    config = tmp_path / name
    config.write_text(CONFIG.read_text() + f"descent: {section}\n")
    return config


def config_error(run: subprocess.CompletedProcess, says: str) -> None:
    """Exit 2 and one line on stderr, ``config error: ...`` saying ``says``."""
    assert run.returncode == 2 and run.stderr.count("\n") == 1, run.stderr
    assert run.stderr.startswith("config error: ") and says in run.stderr, run.stderr


def csv_rows(out: Path) -> tuple[list[str], list[list[str]]]:
    header, *rows = [row.split(",") for row in (out / "descent.csv").read_text().splitlines()]
    return header, rows


@pytest.mark.parametrize(
    "sets, says",
    [
        ([*NO_EXPLOIT, "num_players=5"], "a descent trains one table of 2 to 4 players"),
        ([*NO_EXPLOIT, "tables=[revised:2, revised:3]"], "a descent trains one table of 2 to 4"),
        (["play=greedy"], "set play=sample"),
        (["num_players=3", "descent.whole_game=true"], "whole_game is for two players"),
        (["descent.fit_epochs=4"], "fit_epochs and fit_lr are for a table stage"),
        (["descent.iterationz=4"], "did you mean 'descent.iterations'"),
        (["descent.start=warm"], "descent.start: must be one of 'random' or 'trained'"),
        (["descent.start=trained", "descent.init=x"], "both say where the descent starts"),
        (
            ["num_players=4", "descent={against: {cfr: 1}, against_weight: 1.0}"],
            f"descent against {CFR_AT_4}",
        ),
        (["num_players=4", "descent={floors: {cfr: 0.1}}"], f"descent floors {CFR_AT_4}"),
        (["descent={floors: {'ppo:nothing': 0.1}}"], "floors 'ppo:nothing'"),
        (["descent={against: {'ppo:nothing': 1}, against_weight: 1.0}"], "against 'ppo:nothing'"),
    ],
)
def test_a_bad_descent_config_is_one_line_before_any_work(tmp_path, sets, says) -> None:
    out = tmp_path / "out"
    argv = ["--config", str(CONFIG), "--set", f"run_dir={out}", "--set", "descent.iterations=1"]
    code, _, err = call(train_main, [*argv, *(w for item in sets for w in ("--set", item))])
    assert code == 2 and err.count("\n") == 1 and err.startswith("config error: "), err
    assert says in err, err
    assert not out.exists()


def test_a_then_chain_that_loops_is_refused_by_the_command(tmp_path) -> None:
    config = tmp_path / "looped.yaml"
    looped = "descent: &a {iterations: 1, then: {iterations: 2, then: *a}}\n"
    config.write_text(CONFIG.read_text() + looped)
    code, _, err = call(train_main, ["--config", str(config), "--set", f"run_dir={tmp_path / 'o'}"])
    assert code == 2 and err.count("\n") == 1, err
    assert "then: chain comes back to a stage before it" in err
    assert not (tmp_path / "o").exists()


@pytest.mark.slow
def test_the_run_writes_a_policy_that_plays_as_ppo_and_resumes_as_complete(tmp_path) -> None:
    out = tmp_path / "descent"
    run = descent_run(CONFIG, out, "descent.iterations=6", "descent.report_every=3")
    assert run.returncode == 0, run.stderr
    assert (out / "run.json").is_file() and (out / "versions.json").is_file()
    used = config_from_dict(read_yaml(out / "config.yaml"))  # the section as typed fields
    assert used.descent == DescentSection(iterations=6, report_every=3)
    result = json.loads((out / "result.json").read_text())
    assert set(result) == RESULT_KEYS
    assert result["iterations"] == 6 and result["then"] is None and result["start"] == "random"
    rows = (out / "descent.csv").read_text().splitlines()
    assert rows[0] == "iteration,nash_conv,seconds,measure" and len(rows) == 4
    assert all(row.endswith(",round") for row in rows[1:])
    kept = min(rows[1:], key=lambda r: float(r.split(",")[1]))
    assert result["kept_iteration"] == int(kept.split(",")[0])
    measured = nash_conv(f"ppo:{out}", "revised", 2).nash_conv
    assert result["nash_conv"]["round"] == pytest.approx(measured, abs=1e-9)
    assert measured == pytest.approx(float(kept.split(",")[1]), abs=1e-5)
    assert "game" in result["nash_conv"]
    # --resume of the finished run: nothing left to do, nothing rewritten
    written = {name: (out / name).read_text() for name in ("result.json", "descent.csv")}
    resumed = subprocess.run(
        [sys.executable, "train.py", "--resume", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert f"run already complete at step {result['kept_iteration']}" in resumed.stdout
    assert {name: (out / name).read_text() for name in written} == written
    # descent.init (the old --init) starts from that policy
    started = descent_run(
        CONFIG, tmp_path / "from", f"descent.init={out}", "descent.iterations=0", timeout=600
    )
    assert started.returncode == 0, started.stderr
    again_result = json.loads((tmp_path / "from" / "result.json").read_text())
    assert again_result["nash_conv"] == pytest.approx(result["nash_conv"], abs=1e-9)
    assert again_result["init"] == str(out)
    missing = descent_run(CONFIG, tmp_path / "m", f"descent.init={tmp_path / 'nothing'}")
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1, missing.stderr
    assert missing.stderr.startswith("config error: descent.init: ")
    assert str(tmp_path / "nothing") in missing.stderr
    assert not (tmp_path / "m").exists()
    five = ROOT / "configs" / "zoo" / "revised_5p.yaml"
    too_big = descent_run(five, tmp_path / "5", "descent.iterations=1", "play=sample")
    config_error(too_big, "a descent trains one table of 2 to 4 players")
    assert not (tmp_path / "5").exists()
    again = descent_run(CONFIG, out, "descent.iterations=6")
    assert again.returncode == 1 and again.stderr.count("\n") == 1, again.stderr
    assert again.stderr.startswith("error: ") and "exists and is not empty" in again.stderr


@pytest.mark.slow
def test_the_old_script_says_it_moved_and_runs_the_descent(tmp_path) -> None:
    config = with_descent(tmp_path, "{iterations: 1, report_every: 1}")
    out = tmp_path / "out"
    command = [sys.executable, "scripts/descent.py", "--config", str(config), "--out", str(out)]
    shim = subprocess.run(
        [*command, "--set", "descent.iterations=2", "--set", "max_rounds=3"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert shim.returncode == 0, shim.stderr
    assert shim.stderr.startswith("scripts/descent.py moved: grove-train --config ")
    assert f"--set run_dir={out}" in shim.stderr and "--set descent.iterations=2" in shim.stderr
    assert (out / "run.json").is_file() and (out / "best_policy.json").is_file()
    result = json.loads((out / "result.json").read_text())
    assert result["iterations"] == 2  # its --set passed on
    assert [int(r[0]) for r in csv_rows(out)[1]] == [0, 1, 2]


@pytest.mark.slow
def test_the_run_holds_floors_and_logs_their_markers(tmp_path) -> None:
    stages = "{iterations: 2, report_every: 1, floors: {greedy: -0.1}, keep: last}"
    config = with_descent(tmp_path, stages)
    out = tmp_path / "out"
    run = descent_run(config, out)
    assert run.returncode == 0, run.stderr
    header, rows = csv_rows(out)
    assert header[4:] == ["markers_vs_greedy"] and len(rows) == 3
    assert "markers vs greedy" in run.stdout
    assert json.loads((out / "result.json").read_text())["floors"] == {"greedy": -0.1}
    assert read_yaml(out / "config.yaml")["descent"]["floors"] == {"greedy": -0.1}


@pytest.mark.slow
def test_the_run_descends_against_opponents_on_later_rounds_and_keeps_the_last(
    tmp_path,
) -> None:
    play = "other_states: true, against: {greedy: 2, random: 1}, against_weight: 5.0"
    then = f"then: {{iterations: 2, report_every: 1, {play}, later_rounds: 2}}"
    config = with_descent(tmp_path, f"{{{play}, later_rounds: 1, keep: last, {then}}}")
    out = tmp_path / "out"
    run = descent_run(config, out, "descent.iterations=4", "descent.report_every=2")
    assert run.returncode == 0, run.stderr
    result = json.loads((out / "result.json").read_text())
    layers = public_states(get_rules("revised"), 2, max_rounds=100).layers
    second, third = len(layers[1]), len(layers[2])
    assert f"{second} later public states" in run.stdout  # round 2 for the first stage
    assert result["later_states"] == second + third  # rounds 2 and 3 for the second
    assert result["against"] == {"greedy": 2, "random": 1} and result["keep"] == "last"
    assert result["iterations"] == 4 and result["then"]["iterations"] == 2  # the --set's stage
    header, rows = csv_rows(out)
    assert header[4:] == ["markers_vs_greedy", "markers_vs_random"]
    assert [int(r[0]) for r in rows] == [0, 2, 4, 4, 5, 6]
    assert all(math.isfinite(float(v)) for r in rows for v in r[4:])  # every row has both
    printed = re.findall(r"markers vs greedy (\S+), random (\S+) ", run.stdout)
    assert len(printed) == len(rows)  # the progress line shows them too
    assert [float(v) for v in printed[-1]] == pytest.approx(
        [float(v) for v in rows[-1][4:]], abs=1e-4
    )
    kept = min(rows[3:], key=lambda r: (float(r[1]), int(r[0])))  # the second stage's
    assert result["kept_iteration"] == int(kept[0])  # lowest: keep is per stage (default)
    assert result["nash_conv"]["round"] == pytest.approx(float(kept[1]), abs=1e-5)


@pytest.mark.slow
def test_a_then_stage_descends_the_whole_game_from_the_first_stages_weights(tmp_path) -> None:
    stages = "{iterations: 4, report_every: 2, then: {whole_game: true, iterations: 2, "
    config = with_descent(tmp_path, stages + "report_every: 1}}")
    out = tmp_path / "out"
    run = descent_run(config, out)
    assert run.returncode == 0, run.stderr
    rows = csv_rows(out)[1]
    assert [(int(r[0]), r[3]) for r in rows] == [
        (0, "round"), (2, "round"), (4, "round"), (4, "game"), (5, "game"), (6, "game")
    ]  # fmt: skip
    game = {int(r[0]): float(r[1]) for r in rows if r[3] == "game"}
    result = json.loads((out / "result.json").read_text())
    assert result["then"]["whole_game"] and result["then"]["iterations"] == 2
    assert result["kept_iteration"] == min(game, key=lambda k: (game[k], k))
    assert result["nash_conv"]["game"] == pytest.approx(min(game.values()), abs=1e-5)
    every = ("descent.iterations=4", "descent.report_every=2")
    alone = descent_run(CONFIG, tmp_path / "alone", *every)
    assert alone.returncode == 0, alone.stderr
    first = json.loads((tmp_path / "alone" / "result.json").read_text())["nash_conv"]["game"]
    assert game[4] == pytest.approx(first, abs=1e-5)  # stage 2 began where stage 1 kept
    for bad, says in [
        ("{round_weight: 0.5}", "round_weight is for a whole_game stage"),
        ("{then: {then: {start: trained}}}", "unknown key 'descent.then.then.start'"),
        ("{then: {whole_game: true, other_states: true}}", "without other_states"),
    ]:
        refused = descent_run(with_descent(tmp_path, bad, "bad.yaml"), tmp_path / "bad")
        config_error(refused, says)
        assert not (tmp_path / "bad").exists()


@pytest.mark.slow
def test_start_trained_trains_the_config_first_and_descends_from_its_policy(tmp_path) -> None:
    config = tmp_path / "trained.yaml"
    smoke = (ROOT / "configs" / "smoke.yaml").read_text()
    ppo = smoke.replace("rules: classic", "rules: revised").replace("num_players: 4", "")
    table = "num_players: 2\nbackend: batched\nplay: sample\n"
    config.write_text(ppo + table + "descent: {start: trained, iterations: 2, report_every: 1}\n")
    out = tmp_path / "out"
    run = descent_run(config, "out", cwd=tmp_path)  # a run_dir relative to where it runs
    assert run.returncode == 0, run.stderr
    trained = out / "trained"  # the PPO run: a run directory of its own
    assert (trained / "best_policy.json").is_file() and (trained / "metrics.csv").is_file()
    assert (trained / "run.json").is_file() and not (out / "trained.yaml").exists()
    ppo_used, used = read_yaml(trained / "config.yaml"), read_yaml(out / "config.yaml")
    assert ppo_used["descent"] is None and used["descent"]["start"] == "trained"  # PPO alone
    assert {k: v for k, v in ppo_used.items() if k not in ("descent", "run_dir")} == {
        k: v for k, v in used.items() if k not in ("descent", "run_dir")
    }
    started = nash_conv(f"ppo:{trained}", "revised", 2).nash_conv
    rows = csv_rows(out)[1]
    assert float(rows[0][1]) == pytest.approx(started, abs=1e-5)  # it began there
    result = json.loads((out / "result.json").read_text())
    steps = json.loads((trained / "best_policy.json").read_text())["step"]
    assert result["start"] == "trained" and result["init_steps"] == steps
    assert json.loads((out / "best_policy.json").read_text())["step"] == steps
    assert (out / "versions.json").read_text() == (trained / "versions.json").read_text()
    again = descent_run(config, out)
    assert again.returncode == 1 and again.stderr.count("\n") == 1, again.stderr
    assert "exists and is not empty" in again.stderr
    both = descent_run(config, tmp_path / "both", f"descent.init={trained}")
    config_error(both, "both say where the descent starts")
    config.write_text(ppo + table + "descent: {start: warm}\n")
    bad = descent_run(config, tmp_path / "bad")
    config_error(bad, "descent.start: must be one of 'random' or 'trained'")
    assert not (tmp_path / "bad").exists() and not (tmp_path / "both").exists()
