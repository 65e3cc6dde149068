"""The front door (:mod:`grove_env.training.front`): one backend table, loaded lazily, and
the resume rules every learner shares."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest

from grove_env.training import front
from grove_env.training.config import ConfigError, TrainConfig, config_from_dict, dump_config
from grove_env.training.config.learning import PPOFields


def test_the_table_names_every_backend_and_the_descent() -> None:
    (backends,) = [typing.get_args(PPOFields.model_fields["backend"].annotation)]
    assert set(front.BACKENDS) == {*backends, "descent"}
    for backend in front.BACKENDS.values():
        assert backend.module.startswith("grove_env.training.")


def test_the_method_is_the_backend_or_the_descent() -> None:
    assert front.method_of(TrainConfig()) == "batched"
    assert front.method_of(TrainConfig(backend="sb3")) == "sb3"
    descent = config_from_dict({"play": "sample", "descent": {"iterations": 1}})
    assert front.method_of(descent) == "descent"


def test_a_missing_library_is_one_line_naming_the_extra() -> None:
    missing = front.Backend("no_such_library_for_grove.module", "Learner", "rllib")
    with pytest.raises(front.BackendMissingError) as caught:
        missing.load()
    message = str(caught.value)
    assert "no_such_library_for_grove" in message and "grove-env[rllib]" in message
    assert "\n" not in message


def test_a_learner_loads_and_keeps_the_protocol() -> None:
    learner = front.BACKENDS["batched"].load()
    for name in ("check", "latest_checkpoint", "learn", "finish", "complete", "close", "step"):
        assert hasattr(learner, name), name


def test_a_resume_may_change_only_what_the_checkpoint_does_not_depend_on(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.yaml").write_text(dump_config(TrainConfig(num_envs=8, batch_size=64)))
    assert front.resumed_config(run, ["total_timesteps=5000"]).total_timesteps == 5000
    with pytest.raises(ConfigError, match="cannot change num_envs"):
        front.resumed_config(run, ["num_envs=16"])
    with pytest.raises(ConfigError, match="is not a run directory"):
        front.resumed_config(tmp_path / "nowhere", [])
