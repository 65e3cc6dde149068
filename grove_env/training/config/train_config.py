"""The training configuration: one typed pydantic model, read from YAML, checked before any work.

Every field carries its docstring below (pydantic reads it as the field's description);
YAML keys are the field names, the opponent mix is a nested mapping, and ``--set
key=value`` overrides any key (``opponents.random=0`` reaches into the mix; the value is
parsed as YAML). Values are taken as YAML writes them: ``true``/``false`` for a flag, a
number for a number (``1.0e6`` for a whole count, ``3e-4`` although YAML 1.1 reads it as
a string), never a string for a count. An unknown key, a wrong type or a bad value
raises :class:`ConfigError`, one line naming the key, the value and what is allowed:

>>> cfg = config_from_dict({"num_envs": 8, "batch_size": 64, "opponents": {"random": 1.0}})
>>> cfg.num_envs, cfg.opponents.random
(8, 1.0)
>>> for bad in ({"num_env": 8}, {"rules": "modern"}):
...     try:
...         config_from_dict(bad)
...     except ConfigError as e:
...         print(e)
unknown key 'num_env' (did you mean 'num_envs'?)
rules: must be one of 'classic', 'revised', got 'modern'

The fields live in groups that :class:`TrainConfig` inherits, one module each
(the YAML stays one flat mapping): the value types in
:mod:`~grove_env.training.config.fields`, the table, opponents, evaluations and the run in
:mod:`~grove_env.training.config.groups`, PPO and the equilibrium-seeking terms in
:mod:`~grove_env.training.config.learning`. Checks across groups are here. The rule-set
names and each one's player counts come from :data:`grove_env.rules.RULE_SETS`. This
module imports neither torch nor SB3, so a bad config fails in a fraction of a second.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError, model_validator

from grove_env.agents.base import table_refusal
from grove_env.training.config.descent import DescentSection
from grove_env.training.config.errors import (
    ConfigError,
    ConfigFileError,
    describe,
    problem,
    shown,
)
from grove_env.training.config.fields import ALL_TABLES, STRICT
from grove_env.training.config.groups import (
    EvalFields,
    OpponentFields,
    OpponentMix,
    RunFields,
    TableFields,
)
from grove_env.training.config.learning import EquilibriumFields, PPOFields, RLlibSettings

__all__ = [
    "ALL_TABLES",
    "ConfigError",
    "ConfigFileError",
    "OpponentMix",
    "RLlibSettings",
    "TrainConfig",
    "config_from_dict",
    "load_config",
    "shown",
]

BATCHED_ONLY = (
    "magnet",
    "magnet_coef",
    "kl_coef",
    "ent_coef_end",
    "magnet_coef_end",
    "magnet_in",
    "shared_trunk",
    "learn_from",
    "overlap",
)
"""Settings of the batched backend (:class:`EquilibriumFields`: its loss, its network and
whose decisions it learns from) that SB3 and RLlib cannot honour: a config that changes
one of them must say ``backend: batched``."""


RESUMABLE_FIELDS = (
    "total_timesteps",
    "max_seconds",
    "eval_every",
    "eval_games",
    "exploit_every",
    "final_eval_games",
    "final_eval_workers",
    "checkpoint_every",
    "keep_checkpoints",
    "progress",
    "torch_threads",
    "device",
    "overlap",
)
"""Keys ``--set`` may change when resuming; the others shaped the checkpoint."""


class TrainConfig(RunFields, EvalFields, OpponentFields, EquilibriumFields, PPOFields, TableFields):
    """Everything a training run needs; the YAML file lists a subset, the rest defaults.

    The fields come in this order (a check may read the fields before it):
    :class:`~grove_env.training.config.groups.TableFields`,
    :class:`~grove_env.training.config.learning.PPOFields`,
    :class:`~grove_env.training.config.learning.EquilibriumFields`,
    :class:`~grove_env.training.config.groups.OpponentFields`,
    :class:`~grove_env.training.config.groups.EvalFields`,
    :class:`~grove_env.training.config.groups.RunFields`, then the ``descent:`` section.
    """

    model_config = STRICT

    descent: DescentSection | None = None
    """Train by exploitability descent on the exact game instead of PPO, in the stages
    this section lists (:mod:`~grove_env.training.config.descent`); ``null``: PPO by
    ``backend``. The descent reads the table and the network from this config."""

    @model_validator(mode="after")
    def _what_a_descent_reads(self) -> TrainConfig:
        if self.descent is None:
            return self
        tables = self.table_list()
        if len(tables) != 1 or tables[0][1] > 4:
            raise ValueError("a descent trains one table of 2 to 4 players (the exact tree)")
        ((rules, n),) = tables
        if self.play != "sample":
            raise ValueError(
                "a descent's policy plays by sampling (an equilibrium is mixed): set play=sample"
            )
        for stage in self.descent.stages():
            if stage.whole_game and (n != 2 or stage.other_states):
                raise ValueError("whole_game is for two players, without other_states")
            for key, specs in (("against", stage.against), ("floors", stage.floors)):
                for spec in specs:
                    refusal = table_refusal(spec, rules, n)
                    if refusal is not None:
                        raise ValueError(f"descent {key} {spec!r}: {refusal}")
        return self

    @model_validator(mode="after")
    def _agents_that_play_the_tables(self) -> TrainConfig:
        for spec, weight in self.opponents.agents.items():
            for rules, n in self.table_list():
                refusal = table_refusal(spec, rules, n) if weight > 0 else None
                if refusal is not None:
                    raise ValueError(f"opponents.agents {spec!r}: {refusal}")
        return self

    @model_validator(mode="after")
    def _envs_per_table(self) -> TrainConfig:
        if len(self.table_list()) > self.num_envs:
            raise ValueError(f"num_envs must be at least the {len(self.table_list())} tables")
        return self

    @model_validator(mode="after")
    def _what_the_backend_reads(self) -> TrainConfig:
        default = EquilibriumFields()
        changed = [k for k in BATCHED_ONLY if getattr(self, k) != getattr(default, k)]
        if self.max_seconds is not None:
            changed.append("max_seconds")
        if self.truncation != "bootstrap":
            changed.append("truncation")
        if changed and self.backend != "batched":
            raise ValueError(
                f"{', '.join(changed)}: read by the batched backend only; set backend=batched"
            )
        if (self.magnet == "none") != (self.magnet_coef == 0.0 and self.magnet_coef_end is None):
            raise ValueError("magnet and magnet_coef go together: set both, or neither")
        if self.magnet_in == "reward" and self.magnet == "none":
            raise ValueError("magnet_in reward needs a magnet (magnet and magnet_coef)")
        if self.best_by == "nashconv" and self.exploit_every is None:
            raise ValueError("best_by nashconv needs exploit_every (steps between NashConvs)")
        if self.exploit_every is not None and (self.tables or self.num_players > 4):
            raise ValueError("exploit_every measures one table of 2 to 4 players (no tables)")
        if self.exploit_whole_game and (self.exploit_every is None or self.num_players != 3):
            raise ValueError(
                "exploit_whole_game measures the whole game at 3 players (always at 2): "
                "it needs exploit_every and num_players 3"
            )
        if self.final_nashconv and all(n > 4 for _, n in self.table_list()):
            raise ValueError("final_nashconv measures tables of 2 to 4 players: set it false")
        return self

    @model_validator(mode="after")
    def _what_following_reads(self) -> TrainConfig:
        if self.follow_worst == 0.0:
            return self
        if self.backend != "batched" or self.tables:
            raise ValueError("follow_worst: the batched backend on one table (no tables)")
        weights = self.opponents.weights()
        if not any(weights.get(k, 0.0) > 0 for k in self.eval_opponents):
            raise ValueError(
                "follow_worst: no kind of eval_opponents has a weight in opponents to move"
            )
        return self

    @model_validator(mode="after")
    def _what_round_games_read(self) -> TrainConfig:
        if self.round_games == 0.0:
            return self
        if self.backend != "batched" or self.learn_from != "live_seats" or self.tables:
            raise ValueError(
                "round_games: the batched backend, learn_from live_seats, one table (no tables)"
            )
        if self.max_rounds == 1:
            raise ValueError("round_games: the other games are whole games (max_rounds above 1)")
        if self.round_opponents.pool > 0:
            raise ValueError("round_opponents: pool plays the whole games only; set its weight 0")
        if self.round_game_count() in (0, self.num_envs):
            raise ValueError("round_games: num_envs leaves no game of one kind; change either")
        return self

    @model_validator(mode="after")
    def _what_rllib_supports(self) -> TrainConfig:
        if self.backend != "rllib":
            return self
        if self.opponents.live or self.opponents.pool:
            raise ValueError(
                "backend rllib plays agent opponents only (no self-play yet): "
                "set opponents.live=0 and opponents.pool=0"
            )
        if self.features != "observation":
            raise ValueError("backend rllib reads the plain observation: set features=observation")
        if self.imitate is not None:
            raise ValueError("backend rllib starts from random weights: set imitate=null")
        if self.tables:
            raise ValueError("backend rllib trains on one table: leave tables empty")
        if self.exploit_every is not None:
            raise ValueError("backend rllib does not measure NashConv: set exploit_every=null")
        return self

    def round_game_count(self) -> int:
        """How many of the ``num_envs`` games play the first round alone (``round_games``)."""
        return round(self.num_envs * self.round_games)

    def table_list(self) -> list[tuple[str, int]]:
        """``(rules, players)`` of every table the run trains on."""
        names = [t for entry in self.tables for t in (ALL_TABLES if entry == "all" else [entry])]
        if not names:
            return [(self.rules, self.num_players)]
        tables = []
        for name in dict.fromkeys(names):  # in order, once each
            rules, _, n = name.partition(":")
            tables.append((rules, int(n)))
        return tables

    @property
    def rollout_size(self) -> int:
        """Learner steps per PPO iteration."""
        return self.num_envs * self.n_steps

    def to_dict(self) -> dict[str, Any]:
        """Plain YAML/JSON values, every field (the opponent mix as a nested mapping)."""
        return self.model_dump(by_alias=True)


def config_from_dict(data: dict[str, Any]) -> TrainConfig:
    """Build and check a :class:`TrainConfig` from a plain mapping."""
    if not isinstance(data, dict):
        raise ConfigError(f"a config is a mapping of keys to values, got {type(data).__name__}")
    bad_keys = [k for k in data if not isinstance(k, str)]
    if bad_keys:
        raise ConfigError(f"config keys are names, got {shown(bad_keys[0])}")
    if _loops(data.get("descent"), ()):
        raise ConfigError("the descent: section's then: chain comes back to a stage before it")
    try:
        return TrainConfig.model_validate(data)
    except ValidationError as e:
        # An unknown key (a typo) first: it may be why a needed key looks missing.
        errors = sorted(e.errors(include_url=False), key=lambda d: d["type"] != "extra_forbidden")
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise ConfigError(describe(TrainConfig, errors[0]) + more) from None


def _loops(stage: Any, outer: tuple[Any, ...]) -> bool:
    """A ``then:`` chain that comes back to a stage before it (a YAML alias): refused,
    not followed for ever."""
    if not isinstance(stage, dict):
        return False
    return any(stage is seen for seen in outer) or _loops(stage.get("then"), (*outer, stage))


def apply_overrides(data: dict[str, Any], overrides: list[str]) -> dict[str, Any]:
    """Apply ``key=value`` strings (values parsed as YAML; ``a.b=...`` for nested keys)."""
    data = dict(data)
    for item in overrides:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError(f"--set takes key=value, got {item!r}")
        try:
            value = yaml.safe_load(raw) if raw.strip() else None
        except (yaml.YAMLError, ValueError, RecursionError) as e:
            raise ConfigError(
                f"--set {key}: value {shown(raw)} is not valid YAML ({problem(e)})"
            ) from None
        *parents, leaf = key.split(".")
        node = data
        for p in parents:
            child = node.get(p)
            node[p] = dict(child) if isinstance(child, dict) else {}
            node = node[p]
        node[leaf] = value
    return data


def read_yaml(path: str | Path) -> dict[str, Any]:
    """A YAML mapping from ``path``; a missing file or bad YAML is a :class:`ConfigError`."""
    path = Path(path)
    if not path.exists():
        raise ConfigFileError(f"config file {str(path)!r} does not exist")
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise ConfigFileError(f"config file {str(path)!r} cannot be read: {e.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigFileError(f"config file {str(path)!r} is not text (not UTF-8)") from None
    try:
        data = yaml.safe_load(text)
    except (yaml.YAMLError, ValueError, RecursionError) as e:
        # ValueError: e.g. an int of more digits than Python converts.
        raise ConfigFileError(
            f"config file {str(path)!r} is not valid YAML: {problem(e)}"
        ) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigFileError(f"config file {str(path)!r} must hold a mapping of keys to values")
    return data


def load_config(path: str | Path, overrides: list[str] | None = None) -> TrainConfig:
    """Read ``path``, apply ``--set`` overrides, check everything."""
    return config_from_dict(apply_overrides(read_yaml(path), overrides or []))


def dump_config(cfg: TrainConfig) -> str:
    """The config as YAML, every field listed (what the run directory stores)."""
    return yaml.safe_dump(cfg.to_dict(), sort_keys=False)
