"""``grove-sweep``: the sweep file's checks, drawing settings, and a tiny sweep end to end."""

from __future__ import annotations

import json
import math
from pathlib import Path

import optuna
import pytest
import yaml
from optuna.trial import TrialState

from grove_env.training.config import ConfigError
from grove_env.training.measure.exploit import GAME, nashconv_column
from grove_env.training.sweep import cli
from grove_env.training.sweep.spec import load_sweep
from grove_env.training.sweep.study import (
    TrialError,
    draw,
    finished,
    open_study,
    restore,
    run_value,
    settings_key,
)

ROOT = Path(__file__).resolve().parents[2]

BASE = {
    "name": "tiny",
    "rules": "revised",
    "num_players": 2,
    "backend": "batched",
    "total_timesteps": 512,
    "num_envs": 64,
    "n_steps": 4,
    "batch_size": 128,
    "n_epochs": 1,
    "net_arch": [16],
    "opponents": {"live": 1.0, "pool": 0.0, "heuristic": 0.0, "random": 0.0},
    "eval_every": 512,
    "eval_games": 4,
    "eval_opponents": ["random"],
    "exploit_every": 512,
    "checkpoint_every": 256,
    "final_eval_games": 0,
    "play": "sample",
    "progress": False,
}


def write_sweep(tmp_path: Path, **changes) -> Path:
    (tmp_path / "base.yaml").write_text(yaml.safe_dump(BASE))
    sweep = {
        "name": "tiny",
        "base": "base.yaml",
        "set": {"seed": 0},
        "trials": 2,
        "seeds": [0],
        "fresh_seeds": [7],
        "top": 1,
        "startup_trials": 1,
        "folder": str(tmp_path / "out"),
        "space": {
            "learning_rate": {"low": 1e-4, "high": 1e-2, "log": True},
            "loss": {
                "choice": {
                    "ppo": {"magnet": "none"},
                    "mmd": {"magnet": "uniform", "magnet_coef": 0.05},
                }
            },
            "magnet_coef": {"low": 0.01, "high": 0.2, "when": {"loss": ["mmd"]}},
            "net_arch": {"choice": {"one": [16], "two": [16, 16]}},
        },
    }
    sweep.update(changes)
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump(sweep))
    return path


def test_the_shipped_sweeps_load() -> None:
    for path in sorted((ROOT / "configs" / "sweeps").glob("*.yaml")):
        sweep = load_sweep(path)
        assert sweep.spec.trials >= 1 and sweep.spec.space


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"space": {"learning_rat": {"low": 0.1, "high": 0.2}}}, "not a training config field"),
        ({"space": {"n_epochs": {"low": 0, "high": 3, "integer": True}}}, "space.n_epochs = 0"),
        ({"space": {"gamma": {"low": 0.5, "high": 0.4}}}, "low < high"),
        ({"space": {"ent_coef": {"low": 0.0, "high": 0.1, "log": True}}}, "log range"),
        ({"space": {"x": {"choice": {"a": {"nope": 1}}}}}, "'nope' is not a training"),
        ({"space": {"gamma": {"choice": [[1.0]]}}}, "plain values"),
        ({"space": {"gamma": {"low": 0.5, "high": 0.9, "when": {"loss": ["a"]}}}}, "earlier"),
        ({"fresh_seeds": [0]}, "must not repeat"),
        ({"objective": "best"}, "'last' or 'lowest'"),
        ({"base": "missing.yaml"}, "does not exist"),
    ],
)
def test_a_bad_sweep_file_is_one_line(tmp_path: Path, change: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as found:
        load_sweep(write_sweep(tmp_path, **change))
    assert "\n" not in str(found.value)


def test_bundles_and_conditions_set_their_fields(tmp_path: Path) -> None:
    sweep = load_sweep(write_sweep(tmp_path))
    ppo = sweep.trial_config({"learning_rate": 1e-3, "loss": "ppo", "net_arch": "two"}, 3,
                             tmp_path / "r")  # fmt: skip
    assert (ppo.magnet, ppo.magnet_coef, ppo.net_arch, ppo.seed) == ("none", 0.0, [16, 16], 3)
    mmd = sweep.trial_config(
        {"learning_rate": 1e-3, "loss": "mmd", "magnet_coef": 0.1, "net_arch": "one"}, 0,
        tmp_path / "r",
    )  # fmt: skip
    assert (mmd.magnet, mmd.magnet_coef, mmd.net_arch) == ("uniform", 0.1, [16])
    assert nashconv_column(mmd) == GAME  # two players: the whole game


def test_a_run_that_measured_nothing_fails_its_trial_in_one_line(tmp_path: Path) -> None:
    sweep = load_sweep(write_sweep(tmp_path))
    params = {"learning_rate": 1e-3, "loss": "ppo", "net_arch": "two"}
    cfg = sweep.trial_config(params, 0, tmp_path / "r")
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "metrics.csv").write_text(f"step,wall_time_s,{GAME}\n4096,1.0,\n")
    with pytest.raises(TrialError, match="measured no NashConv"):
        run_value(sweep, cfg)
    (tmp_path / "r" / "metrics.csv").write_text(f"step,wall_time_s,{GAME}\n4096,1.0,0.5\n")
    assert run_value(sweep, cfg) == 0.5


def test_a_condition_draws_its_entry_only_on_its_branch(tmp_path: Path) -> None:
    sweep = load_sweep(write_sweep(tmp_path))
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    seen = set()
    for _ in range(12):
        trial = study.ask()
        params = draw(trial, sweep)
        assert ("magnet_coef" in params) == (params["loss"] == "mmd")
        seen.add(params["loss"])
        study.tell(trial, 0.0)
    assert seen == {"ppo", "mmd"}
    assert settings_key({"a": 1, "b": "x"}) == settings_key({"b": "x", "a": 1})


@pytest.mark.slow
def test_a_tiny_sweep_runs_resumes_and_writes_its_table(tmp_path: Path) -> None:
    path = write_sweep(tmp_path)
    out = tmp_path / "out"
    assert cli.main([str(path), "--trials", "1", "--json", str(tmp_path / "a.json")]) == 0
    first = json.loads((tmp_path / "a.json").read_text())
    assert len(first["trials"]) == 1
    value = first["trials"][0]["nash_conv"]
    assert math.isfinite(value) and value > 0  # an exact whole-game NashConv, measured
    # Run again: one trial is missing; the first one is not trained again.
    assert cli.main([str(path), "--fresh", "--json", str(tmp_path / "b.json")]) == 0
    second = json.loads((tmp_path / "b.json").read_text())
    assert len(second["trials"]) == 2
    assert value in [t["nash_conv"] for t in second["trials"]]
    assert len(list((out / "runs").iterdir())) == 2
    (label, fresh), = second["fresh"].items()  # fmt: skip
    assert label.startswith("#1") and list(fresh["runs"]) == ["7"]
    assert fresh["runs"]["7"] and (out / "fresh.png").is_file()
    best = yaml.safe_load((out / "best-1.yaml").read_text())
    assert best["name"] == "tiny-best1" and "run_dir" not in best
    assert "| 1 |" in (out / "sweep.md").read_text()
    # Another budget would not compare with the trials done: refused in one line.
    changed = write_sweep(tmp_path, set={"seed": 0, "total_timesteps": 1024})
    with pytest.raises(ConfigError, match="changed since the study"):
        open_study(load_sweep(changed))
    path = write_sweep(tmp_path)
    # A trial cut off is drawn again with the same settings (its runs then resume).
    study = open_study(load_sweep(path))
    done = finished(study)[0]
    cut = {**done.params, "learning_rate": done.params["learning_rate"] / 2}
    study.add_trial(optuna.trial.create_trial(state=optuna.trial.TrialState.FAIL, params=cut,
                                              distributions=done.distributions))  # fmt: skip
    assert cli.main([str(path), "--trials", "0"]) == 0
    waiting = study.get_trials(states=(optuna.trial.TrialState.WAITING,))
    assert [t.system_attrs["fixed_params"] for t in waiting] == [cut]


def test_a_missing_sweep_file_is_one_line(tmp_path: Path, capsys) -> None:
    assert cli.main([str(tmp_path / "none.yaml")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not exist" in err


def recorded(**changes) -> dict:
    """A result as ``grove-sweep --json`` writes it, for the tiny sweep: trials 0 and 2."""
    one = {"learning_rate": 1e-3, "loss": "ppo", "net_arch": "two"}
    two = {"learning_rate": 2e-3, "loss": "mmd", "magnet_coef": 0.1, "net_arch": "one"}
    trials = [
        {"trial": 2, "nash_conv": 0.4, "seeds": {"0": 0.4}, "seconds": 9.0, "params": two},
        {"trial": 0, "nash_conv": 0.6, "seeds": {"0": 0.6}, "seconds": 8.0, "params": one},
    ]
    return {"sweep": "tiny", "budget": 512, "seeds": [0], "trials": trials, **changes}


def test_a_study_is_rebuilt_from_its_record(tmp_path: Path) -> None:
    sweep = load_sweep(write_sweep(tmp_path))
    study = open_study(sweep)
    assert restore(sweep, study, recorded()) == 2
    states = [t.state for t in study.get_trials()]
    assert states == [TrialState.COMPLETE, TrialState.FAIL, TrialState.COMPLETE]
    best, other = finished(study)
    assert (best.number, best.value, other.number, other.value) == (2, 0.4, 0, 0.6)
    assert best.params == recorded()["trials"][0]["params"]
    assert best.user_attrs == {"key": settings_key(best.params), "seeds": {"0": 0.4},
                               "seconds": 9.0}  # fmt: skip
    with pytest.raises(ConfigError, match="already holds trials"):
        restore(sweep, study, recorded())


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"budget": 1024}, "at 1024 steps"),
        ({"sweep": "other"}, "of sweep 'other'"),
        ({"trials": [{"trial": 0}]}, "each trial needs"),
        ({"trials": [recorded()["trials"][1]] * 2}, "numbers must be distinct"),
    ],
)
def test_a_record_of_another_sweep_is_refused(tmp_path: Path, changes: dict, message: str) -> None:
    sweep = load_sweep(write_sweep(tmp_path))
    with pytest.raises(ConfigError, match=message) as found:
        restore(sweep, open_study(sweep), recorded(**changes))
    assert "\n" not in str(found.value)


@pytest.mark.parametrize(
    ("setting", "message"),
    [({"learning_rate": 0.5}, "does not fit the sweep's space"),
     ({"gamma": 0.9}, "sets gamma, which the sweep's space does not hold")],
)  # fmt: skip
def test_a_trial_outside_the_space_is_refused(tmp_path: Path, setting: dict, message: str) -> None:
    sweep = load_sweep(write_sweep(tmp_path))
    result = recorded()
    result["trials"][0]["params"] = {**result["trials"][0]["params"], **setting}  # trial 2
    study = open_study(sweep)
    with pytest.raises(ConfigError, match=message):
        restore(sweep, study, result)
    assert not study.get_trials()  # nothing added: the record can be mended and read again


def test_from_record_on_the_command_line(tmp_path: Path, capsys) -> None:
    path = write_sweep(tmp_path)
    record = tmp_path / "record.json"
    record.write_text(json.dumps({"kind": "sweeps", "result": recorded()}))
    out = tmp_path / "table.json"
    assert cli.main([str(path), "--trials", "0", "--from-record", str(record),
                     "--json", str(out)]) == 0  # fmt: skip
    assert "restored 2 trials" in capsys.readouterr().out
    table = json.loads(out.read_text())
    assert [(t["trial"], t["nash_conv"]) for t in table["trials"]] == [(2, 0.4), (0, 0.6)]
    # The same command again goes on: the study is left as it is, and it says so.
    assert cli.main([str(path), "--trials", "0", "--from-record", str(record)]) == 0
    assert "already holds 3 trials" in capsys.readouterr().err
    (tmp_path / "out" / "study.db").unlink()
    record.write_text("{not json")
    assert cli.main([str(path), "--from-record", str(record)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not JSON" in err
