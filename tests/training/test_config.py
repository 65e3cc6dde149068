"""The training config: every shipped YAML is valid; every mistake stops the run up front."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from grove_env.rules import MAX_PLAYERS, RULE_SETS
from grove_env.training.config import (
    ConfigError,
    OpponentMix,
    RLlibSettings,
    TrainConfig,
    apply_overrides,
    config_from_dict,
    dump_config,
    load_config,
)
from grove_env.training.config.descent import DescentSection, DescentStage

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = sorted((ROOT / "configs").glob("*.yaml"))


def test_the_shipped_configs_exist_and_are_valid() -> None:
    names = {p.stem for p in CONFIGS}
    assert {"default", "smoke", "revised_5p", "classic_3p", "long"} <= names
    for path in CONFIGS:
        cfg = load_config(path)
        assert cfg.rollout_size % cfg.batch_size == 0


def test_make_train_runs_the_batched_backend_and_ends_with_its_measures() -> None:
    # configs/default.yaml is make train's; the SB3 run it replaced stays beside it
    cfg = load_config(ROOT / "configs" / "default.yaml")
    assert (cfg.backend, cfg.learn_from, cfg.rules, cfg.num_players) == (
        "batched",
        "live_seats",
        "classic",
        4,
    )
    assert cfg.final_nashconv and cfg.final_eval_games == 2000 and cfg.exploit_every
    sb3 = load_config(ROOT / "configs" / "default_sb3.yaml")
    assert (sb3.backend, sb3.rules, sb3.num_players) == ("sb3", "classic", 4)
    assert sb3.final_nashconv and sb3.final_eval_games == 2000


DESCENT_TABLE = {"rules": "revised", "num_players": 2, "play": "sample"}
"""The least a config with a ``descent:`` section says: one table of 2 players, sampling."""


def test_a_descent_section_is_typed_and_chains_its_stages() -> None:
    section = yaml.safe_load(
        "{iterations: 3, start: trained, then: {iterations: 2, then: {iterations: 1, lr: 0.5}}}"
    )
    cfg = config_from_dict({**DESCENT_TABLE, "descent": section})
    assert isinstance(cfg.descent, DescentSection) and cfg.descent.start == "trained"
    stages = cfg.descent.stages()
    assert [s.iterations for s in stages] == [3, 2, 1]
    assert stages[2].lr == 0.5 and stages[1].lr == DescentStage.model_fields["lr"].default
    assert all(type(s) is DescentStage for s in stages[1:])  # start: the first stage's alone
    assert config_from_dict(DESCENT_TABLE).descent is None  # no section: PPO
    # the section round-trips through the run directory's config.yaml as typed fields
    assert config_from_dict(yaml.safe_load(dump_config(cfg))) == cfg


@pytest.mark.parametrize(
    "section,message",
    [
        (
            "{iterationz: 5}",
            "unknown key 'descent.iterationz' (did you mean 'descent.iterations'?)",
        ),
        (
            "{then: {lr_ed: 0.1}}",
            "unknown key 'descent.then.lr_ed' (did you mean 'descent.then.lr_end",
        ),
        ("{then: {then: {start: trained}}}", "unknown key 'descent.then.then.start'"),
        (
            "{then: {then: {iterations: x}}}",
            "descent.then.then.iterations: must be an int, got 'x'",
        ),
        ("{iterations: -1}", "descent.iterations: must be >= 0, got -1"),
        ("{lr: 0}", "descent.lr: must be > 0.0, got 0"),
        ("{lr: .nan}", "descent.lr: must be a finite number, got nan"),
        ("{lr_end: 2}", "descent.lr_end: must be <= 1.0, got 2"),
        ("{report_every: 0}", "descent.report_every: must be >= 1, got 0"),
        ("{keep: best}", "descent.keep: must be one of 'lowest' or 'last', got 'best'"),
        ("{gradient: best}", "descent.gradient: must be one of 'nashconv' or 'own', got 'best'"),
        ("{gradient: 1}", "descent.gradient: must be one of 'nashconv' or 'own', got 1"),
        ("{start: warm}", "descent.start: must be one of 'random' or 'trained', got 'warm'"),
        ("{start: trained, init: runs/x}", "init and start: trained both say where the descent"),
        ("{init: 5}", "descent.init: must be a string, got 5"),
        ("{then: 3}", "descent.then: must be a mapping, got 3"),
        ("{table: 1}", "descent.table: must be true or false, got 1"),
        ("{against: {greedy: 1}}", "against (spec: weight) and against_weight > 0 go together"),
        ("{against_weight: 1.0}", "against (spec: weight) and against_weight > 0 go together"),
        ("{against: {greedy: 0}, against_weight: 1}", "against's weights are finite and > 0"),
        ("{against: {greedy: .nan}, against_weight: 1}", "against.greedy: must be a finite number"),
        ("{against: {greedy: .inf}, against_weight: 1}", "against.greedy: must be a finite number"),
        ("{against: {greedy: 1}, against_weight: .nan}", "against_weight: must be a finite number"),
        ("{against: {greedy: 1}, against_weight: -1.0}", "descent.against_weight: must be >= 0.0"),
        (
            "{against: {greedy: true}, against_weight: 1}",
            "against.greedy: must be a number, got True",
        ),
        ("{against: {nobody: 1}, against_weight: 1.0}", "unknown agent 'nobody'"),
        ("{against: {human: 1}, against_weight: 1.0}", "a human cannot play"),
        ("{later_rounds: 2}", "later_rounds is a count for an other_states stage"),
        ("{round_weight: 0.5}", "round_weight is for a whole_game stage"),
        ("{whole_game: true, against: {greedy: 1}, against_weight: 1}", "against is for stages on"),
        (
            "{whole_game: true, floors: {greedy: 0.1}}",
            "floors is for stages on rounds, not whole_game",
        ),
        ("{then: {whole_game: true, other_states: true}}", "for two players, without other_states"),
        ("{floors: {greedy: .nan}}", "descent.floors.greedy: must be a finite number, got nan"),
        ("{floors: {greedy: -.inf}}", "descent.floors.greedy: must be a finite number, got -inf"),
        ("{floors: {greedy: true}}", "descent.floors.greedy: must be a number, got True"),
        ("{floors: {greedy: high}}", "descent.floors.greedy: must be a number, got 'high'"),
        ("{floors: {nobody: 0.1}}", "unknown agent 'nobody'"),
        ("{floors: {human: 0.1}}", "a human cannot play"),
        ("{floors: [greedy]}", "descent.floors: must be"),
        ("{table: true, whole_game: true}", "a table stage descends the first round"),
        ("{table: true, other_states: true}", "a table stage descends the first round"),
        ("{fit_epochs: 4}", "fit_epochs and fit_lr are for a table stage"),
        ("{fit_lr: 0.01}", "fit_epochs and fit_lr are for a table stage"),
        ("{table: true, fit_epochs: 0}", "descent.fit_epochs: must be >= 1, got 0"),
        ("{table: true, fit_lr: 0.0}", "descent.fit_lr: must be > 0.0, got 0.0"),
        ("{table: true, fit_lr: .nan}", "descent.fit_lr: must be a finite number, got nan"),
        ("[1]", "descent: must be a mapping, got [1]"),
    ],
)
def test_a_bad_descent_section_is_one_line(section: str, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        config_from_dict({**DESCENT_TABLE, "descent": yaml.safe_load(section)})
    assert message in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize(
    "table,message",
    [
        ({"play": "greedy"}, "a descent's policy plays by sampling"),
        ({"num_players": 5}, "a descent trains one table of 2 to 4 players"),
        ({"tables": ["revised:2", "revised:3"]}, "a descent trains one table of 2 to 4 players"),
        ({"num_players": 3, "descent": {"whole_game": True}}, "whole_game is for two players"),
        (
            {"num_players": 4, "descent": {"floors": {"cfr": 0.1}}},
            "descent floors 'cfr': cfr: no solved",
        ),
    ],
)
def test_a_descent_section_reads_one_table_that_it_can_descend(table: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        config_from_dict({**DESCENT_TABLE, "descent": {}, **table})


def test_a_then_chain_that_comes_back_is_refused_not_followed() -> None:
    looped = yaml.safe_load("&a {iterations: 1, then: {iterations: 2, then: *a}}")
    with pytest.raises(ConfigError, match="then: chain comes back to a stage before it"):
        config_from_dict({**DESCENT_TABLE, "descent": looped})


def test_defaults_are_valid_and_round_trip_through_yaml(tmp_path: Path) -> None:
    cfg = TrainConfig()
    path = tmp_path / "c.yaml"
    path.write_text(dump_config(cfg))
    assert load_config(path) == cfg


def test_every_field_has_a_docstring() -> None:
    # pydantic reads the attribute docstrings (use_attribute_docstrings) as descriptions
    for model in (TrainConfig, OpponentMix, RLlibSettings, DescentStage, DescentSection):
        for name, info in model.model_fields.items():
            assert info.description, f"{model.__name__}.{name} has no docstring"


def test_rule_sets_and_player_counts_come_from_the_registry() -> None:
    for rules in RULE_SETS.values():
        for n in range(MAX_PLAYERS + 2):
            data = {"rules": rules.name, "num_players": n}
            if n in rules.player_counts:
                assert config_from_dict(data).num_players == n
            else:
                with pytest.raises(ConfigError, match=f"num_players: rules '{rules.name}' allow"):
                    config_from_dict(data)


@pytest.mark.parametrize(
    "data,message",
    [
        ({"num_env": 8}, "unknown key 'num_env' (did you mean 'num_envs'?)"),
        ({"zzz": 1}, "unknown key 'zzz'; allowed keys: name, rules"),
        ({"opponents": {"self": 1.0}}, "unknown key 'opponents.self'"),
        ({"num_envz": 4, "gamma": 2}, "unknown key 'num_envz' (did you mean 'num_envs'?) (and 1"),
        ({"rules": "modern"}, "rules: must be one of 'classic', 'revised', got 'modern'"),
        ({"num_envs": "many"}, "num_envs: must be an int, got 'many'"),
        ({"num_envs": "8"}, "num_envs: must be an int, got '8'"),
        ({"num_envs": 0}, "num_envs: must be >= 1, got 0"),
        ({"num_envs": True}, "num_envs: must be an int, got True"),
        ({"num_envs": 1.5}, "num_envs: must be an int, got 1.5"),
        ({"learning_rate": 0}, "learning_rate: must be > 0.0, got 0"),
        ({"gamma": 1.5}, "gamma: must be <= 1.0, got 1.5"),
        ({"gamma": float("nan")}, "gamma: must be a finite number, got nan"),
        ({"learning_rate": "inf"}, "learning_rate: must be a finite number, got inf"),
        ({"net_arch": 64}, "net_arch: must be a list, got 64"),
        ({"net_arch": [64, -1]}, "net_arch[1]: must be >= 1, got -1"),
        ({"progress": "yes"}, "progress: must be true or false, got 'yes'"),
        ({"num_players": 5}, "num_players: rules 'classic' allow [2, 3, 4], got 5"),
        ({"batch_size": 1000}, "batch_size: must divide num_envs * n_steps = 16384, got 1000"),
        ({"opponents": {"live": 0, "pool": 0, "heuristic": 0, "random": 0}}, "opponents: weights"),
        ({"opponents": {"random": -1}}, "opponents.random: must be >= 0.0, got -1"),
        ({"opponents": 5}, "opponents: must be a mapping, got 5"),
        ({"eval_opponents": ["live"]}, "eval_opponents[0]: unknown agent 'live'"),
        ({"eval_opponents": ["human"]}, "eval_opponents[0]: a human cannot play"),
        ({"opponents": {"nobody": 1.0}}, "unknown key 'opponents.nobody'"),
        ({"eval_opponents": []}, "eval_opponents: must list at least 1 item(s), got []"),
        ({"target_kl": "off"}, "target_kl: must be a number, got 'off'"),
        ({"device": "tpu"}, "device: must be one of 'cpu', 'cuda' or 'auto', got 'tpu'"),
        ({"name": ""}, "name: must be a non-empty string, got ''"),
        ({"backend": "sb3", "magnet": "uniform"}, "magnet: read by the batched backend only"),
        ({"backend": "batched", "magnet": "uniform"}, "magnet and magnet_coef go together"),
        ({"magnet_in": "reward"}, "magnet_in reward needs a magnet"),
        ({"backend": "sb3", "magnet_in": "reward"}, "magnet_in: read by the batched backend"),
        ({"backend": "sb3", "learn_from": "live_seats"}, "learn_from: read by the batched backend"),
        (
            {"backend": "batched", "learn_from": "all"},
            "learn_from: must be one of 'learner' or 'live_seats', got 'all'",
        ),
        ({"backend": "batched", "kl_coef": -1}, "kl_coef: must be >= 0.0, got -1"),
        ({"best_by": "nashconv"}, "best_by nashconv needs exploit_every"),
        ({"rules": "revised", "num_players": 5, "exploit_every": 9}, "one table of 2 to 4"),
        ({"tables": ["all"], "exploit_every": 9}, "exploit_every measures one table"),
        ({"exploit_whole_game": True, "exploit_every": 9}, "whole game at 3 players"),
        ({"num_players": 3, "exploit_whole_game": True}, "it needs exploit_every"),
        ({"backend": "sb3", "max_seconds": 60}, "max_seconds: read by the batched backend"),
        ({"max_seconds": 0}, "max_seconds: must be > 0.0, got 0"),
        ({"truncation": "never"}, "truncation: must be one of 'bootstrap' or 'end'"),
        ({"rules": "revised", "num_players": 5, "final_nashconv": True}, "tables of 2 to 4"),
        ({"play": "mixed"}, "play: must be one of 'greedy' or 'sample', got 'mixed'"),
        ({"backend": "torch"}, "backend: must be one of 'sb3', 'batched' or 'rllib'"),
    ],
)
def test_bad_configs_name_the_key_and_what_is_allowed(data: dict, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        config_from_dict(data)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_numbers_in_yaml_spellings() -> None:
    cfg = config_from_dict(
        {"learning_rate": "3e-4", "total_timesteps": 1.0e6, "target_kl": None, "gamma": 1}
    )
    assert cfg.learning_rate == 3e-4 and cfg.total_timesteps == 1_000_000
    assert cfg.target_kl is None
    assert isinstance(cfg.gamma, float) and isinstance(cfg.total_timesteps, int)


def test_overrides_reach_nested_keys_and_parse_yaml() -> None:
    data = apply_overrides(
        {"opponents": {"live": 1.0}},
        ["opponents.random=0.5", "net_arch=[64, 64]", "rules=revised", "num_players=5"],
    )
    cfg = config_from_dict(data)
    assert cfg.opponents.live == 1.0 and cfg.opponents.random == 0.5
    assert cfg.net_arch == [64, 64] and cfg.rules == "revised"
    with pytest.raises(ConfigError, match="--set takes key=value"):
        apply_overrides({}, ["num_envs"])


def test_bad_config_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("num_envs: [1, 2\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(bad)
    bad.write_text("- 1\n- 2\n")
    with pytest.raises(ConfigError, match="must hold a mapping"):
        load_config(bad)


def test_train_py_stops_before_any_work_with_exit_code_2(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"runs_root: {tmp_path / 'runs'}\nnum_envz: 4\n")
    proc = subprocess.run(
        [sys.executable, "train.py", "--config", str(cfg), "--set", "gamma=2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert "config error: unknown key 'num_envz' (did you mean 'num_envs'?)" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "runs").exists()
    proc = subprocess.run(
        [sys.executable, "train.py", "--config", "configs/smoke.yaml", "--set", "gamma=2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2 and "gamma: must be <= 1.0, got 2" in proc.stderr


def test_config_module_imports_without_torch() -> None:
    code = (
        "import sys; import grove_env.training.config, grove_env.training.run.directory, grove_env;"
        "bad = [m for m in ('torch', 'stable_baselines3', 'sb3_contrib') if m in sys.modules];"
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=120)
