"""The training configuration: one typed dataclass, read from YAML, checked before any work.

Every field carries its docstring below; YAML keys are the field names, the opponent
mix is a nested mapping, and ``--set key=value`` overrides any key (``opponents.random=0``
reaches into the mix; the value is parsed as YAML). An unknown key, a wrong type or a
bad value raises :class:`ConfigError` naming the key and what is allowed:

>>> cfg = config_from_dict({"num_envs": 8, "batch_size": 64, "opponents": {"random": 1.0}})
>>> cfg.num_envs, cfg.opponents.random
(8, 1.0)
>>> config_from_dict({"num_env": 8})
Traceback (most recent call last):
...
grove_env.training.config.ConfigError: unknown key 'num_env' (did you mean 'num_envs'?)
>>> config_from_dict({"rules": "modern"})
Traceback (most recent call last):
...
grove_env.training.config.ConfigError: rules: must be one of 'classic', 'revised', got 'modern'

This module imports neither torch nor SB3, so a bad config fails in a fraction of a second.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Union

from grove_env.rules import get_rules


class ConfigError(ValueError):
    """A configuration problem, with a message that names the key and what is allowed."""


@dataclass
class OpponentMix:
    """Sampling weights for who plays the seats other than the learner's (normalised)."""

    live: float = field(default=0.5, metadata={"min": 0.0})
    """The learner's current weights, sampling its policy (pure self-play)."""
    pool: float = field(default=0.2, metadata={"min": 0.0})
    """A past snapshot of the learner from the opponent pool (live until one exists)."""
    heuristic: float = field(default=0.2, metadata={"min": 0.0})
    """The rule-based ``heuristic`` agent (:mod:`grove_env.agents.heuristic`)."""
    random: float = field(default=0.1, metadata={"min": 0.0})
    """Uniformly random legal moves."""


@dataclass
class TrainConfig:
    """Everything a training run needs; the YAML file lists a subset, the rest defaults."""

    name: str = "grove"
    """Run name; the run directory is ``<runs_root>/<name>-s<seed>-<timestamp>``."""
    rules: Literal["classic", "revised"] = "classic"
    """Rule set the learner trains on."""
    num_players: int = field(default=4, metadata={"min": 2, "max": 5})
    """Seats per game (classic: 2-4, revised: 2-5)."""
    reward: Literal["outcome", "markers", "win"] = "outcome"
    """``outcome``: zero-sum rank reward at the end; ``markers``: dense per round;
    ``win``: win points minus the fair share at the end (what win share measures)."""
    max_rounds: int = field(default=100, metadata={"min": 1})
    """Rounds after which an unfinished game is truncated (value bootstrapped)."""

    total_timesteps: int = field(default=1_000_000, metadata={"min": 1})
    """Learner decisions to train for (one per VecEnv slot per step)."""
    num_envs: int = field(default=512, metadata={"min": 1})
    """Games played side by side; each is one VecEnv slot with one learner seat."""
    n_steps: int = field(default=32, metadata={"min": 1})
    """Learner decisions per slot per rollout (rollout size = num_envs * n_steps)."""
    batch_size: int = field(default=4096, metadata={"min": 2})
    """Minibatch size of the PPO update; must divide num_envs * n_steps."""
    n_epochs: int = field(default=4, metadata={"min": 1})
    """Passes over each rollout in the PPO update."""
    learning_rate: float = field(default=3e-4, metadata={"min_excl": 0.0})
    """Adam step size (at the start, see ``lr_schedule``)."""
    lr_schedule: Literal["constant", "linear"] = "constant"
    """``linear``: the step size falls linearly to 0 at ``total_timesteps``."""
    gamma: float = field(default=1.0, metadata={"min": 0.0, "max": 1.0})
    """Discount per learner decision; 1.0 suits a terminal-only reward."""
    gae_lambda: float = field(default=0.95, metadata={"min": 0.0, "max": 1.0})
    """GAE lambda."""
    ent_coef: float = field(default=0.01, metadata={"min": 0.0})
    """Entropy bonus coefficient."""
    vf_coef: float = field(default=0.5, metadata={"min": 0.0})
    """Value loss coefficient."""
    clip_range: float = field(default=0.2, metadata={"min_excl": 0.0})
    """PPO ratio clipping."""
    max_grad_norm: float = field(default=0.5, metadata={"min_excl": 0.0})
    """Gradient norm clipping."""
    target_kl: float | None = field(default=None, metadata={"min_excl": 0.0})
    """Stop an update's epochs early past this KL (``null``: never)."""
    net_arch: list[int] = field(default_factory=lambda: [128, 128], metadata={"min": 1})
    """Hidden layer sizes, used for both the policy and the value network."""
    activation: Literal["tanh", "relu"] = "tanh"
    """Hidden layer activation."""
    features: Literal["observation", "culprit_odds"] = "observation"
    """Network input: the observation, or it followed by derived culprit odds and stack
    sizes (:mod:`grove_env.training.features`)."""
    seed: int = field(default=0, metadata={"min": 0})
    """Seeds torch, numpy, the games and the opponents; part of the run name."""

    opponents: OpponentMix = field(default_factory=OpponentMix)
    """Who plays the other seats (weights, normalised)."""
    opponent_sampling: Literal["game", "seat"] = "game"
    """``game``: one opponent kind per game for all other seats; ``seat``: one per seat."""
    learner_seat: Literal["rotate", "random"] = "rotate"
    """How each new game picks the learner's seat (so it learns every seat)."""
    snapshot_every: int = field(default=100_000, metadata={"min": 1})
    """Learner steps between snapshots added to the opponent pool."""
    pool_size: int = field(default=5, metadata={"min": 1})
    """Snapshots kept in the pool (oldest dropped first)."""

    eval_every: int = field(default=100_000, metadata={"min": 1})
    """Learner steps between quick evaluations (each may replace ``best.zip``)."""
    eval_games: int = field(default=400, metadata={"min": 1})
    """Games per opponent kind in a quick evaluation (batched engine, deterministic)."""
    eval_opponents: list[Literal["random", "heuristic"]] = field(
        default_factory=lambda: ["random", "heuristic"]
    )
    """Opponents of the quick evaluation; ``best.zip`` has the highest mean win share."""
    final_eval_games: int = field(default=2000, metadata={"min": 0})
    """Tournament games per table at the end (learner vs 3 heuristic, vs 3 random); 0: skip."""
    final_eval_workers: int = field(default=1, metadata={"min": 1})
    """Worker processes of the final tournament."""
    checkpoint_every: int = field(default=200_000, metadata={"min": 1})
    """Learner steps between checkpoints (taken at rollout boundaries)."""
    keep_checkpoints: int = field(default=2, metadata={"min": 1})
    """Periodic checkpoints kept on disk (the best one is kept besides)."""

    runs_root: str = "runs"
    """Folder that holds run directories."""
    run_dir: str | None = None
    """Exact run directory instead of ``<runs_root>/<name>-s<seed>-<timestamp>``."""
    device: Literal["cpu", "cuda", "auto"] = "cpu"
    """Torch device of the policy."""
    torch_threads: int = field(default=1, metadata={"min": 1})
    """``torch.set_num_threads`` for the run."""
    progress: bool = True
    """Show a tqdm progress bar."""

    def __post_init__(self) -> None:
        rules = get_rules(self.rules)
        if self.num_players not in rules.player_counts:
            raise ConfigError(
                f"num_players: rules {self.rules!r} allow {list(rules.player_counts)}, "
                f"got {self.num_players}"
            )
        rollout = self.num_envs * self.n_steps
        if rollout % self.batch_size:
            raise ConfigError(
                f"batch_size: must divide num_envs * n_steps = {rollout}, got {self.batch_size}"
            )
        if sum(dataclasses.astuple(self.opponents)) <= 0:
            raise ConfigError(f"opponents: weights must have a positive sum, got {self.opponents}")
        if not self.eval_opponents:
            raise ConfigError("eval_opponents: list at least one of 'random', 'heuristic'")

    @property
    def rollout_size(self) -> int:
        """Learner steps per PPO iteration."""
        return self.num_envs * self.n_steps

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


# ----------------------------------------------------------------- checking values
def _type_name(tp: Any) -> str:
    origin = typing.get_origin(tp)
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in typing.get_args(tp))
    if origin in (Union, types.UnionType):
        return " or ".join(_type_name(a) for a in typing.get_args(tp))
    if origin is list:
        return f"a list of {_type_name(typing.get_args(tp)[0])}"
    if tp is type(None):
        return "null"
    if dataclasses.is_dataclass(tp):
        return "a mapping with keys " + ", ".join(f.name for f in dataclasses.fields(tp))
    return {int: "an int", float: "a number", bool: "true or false", str: "a string"}[tp]


def _bounds(key: str, value: Any, meta: typing.Mapping[str, Any]) -> None:
    if "min" in meta and value < meta["min"]:
        raise ConfigError(f"{key}: must be >= {meta['min']}, got {value!r}")
    if "min_excl" in meta and value <= meta["min_excl"]:
        raise ConfigError(f"{key}: must be > {meta['min_excl']}, got {value!r}")
    if "max" in meta and value > meta["max"]:
        raise ConfigError(f"{key}: must be <= {meta['max']}, got {value!r}")


def _check(key: str, value: Any, tp: Any, meta: typing.Mapping[str, Any]) -> Any:
    """``value`` converted to ``tp`` if it is one, else :class:`ConfigError`."""
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        args = typing.get_args(tp)
        if value is None and type(None) in args:
            return None
        for arg in args:
            if arg is type(None):
                continue
            try:
                return _check(key, value, arg, meta)
            except ConfigError:
                if len(args) == 2:  # ``X | None``: the message about X is the useful one
                    raise
        raise ConfigError(f"{key}: must be {_type_name(tp)}, got {value!r}")
    if origin is Literal:
        if value not in typing.get_args(tp) or isinstance(value, bool):
            raise ConfigError(f"{key}: must be {_type_name(tp)}, got {value!r}")
        return value
    if origin is list:
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"{key}: must be {_type_name(tp)}, got {value!r}")
        (item,) = typing.get_args(tp)
        return [_check(f"{key}[{i}]", v, item, meta) for i, v in enumerate(value)]
    if dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            raise ConfigError(f"{key}: must be {_type_name(tp)}, got {value!r}")
        return _build(tp, value, prefix=f"{key}.")
    if tp is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{key}: must be true or false, got {value!r}")
        return value
    if tp is int:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{key}: must be an int, got {value!r}")
        _bounds(key, value, meta)
        return value
    if tp is float:
        if isinstance(value, str):  # YAML 1.1 reads ``3e-4`` (no dot) as a string
            with contextlib.suppress(ValueError):
                value = float(value)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{key}: must be a number, got {value!r}")
        value = float(value)
        _bounds(key, value, meta)
        return value
    if tp is str:
        if not isinstance(value, str) or not value:
            raise ConfigError(f"{key}: must be a non-empty string, got {value!r}")
        return value
    raise TypeError(f"unsupported config type {tp!r} for {key}")  # pragma: no cover


def _build(cls: Any, data: dict[str, Any], prefix: str = "") -> Any:
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    kwargs = {}
    for key, value in data.items():
        if key not in fields:
            close = difflib.get_close_matches(str(key), list(fields), n=1)
            hint = f" (did you mean '{prefix}{close[0]}'?)" if close else ""
            raise ConfigError(
                f"unknown key '{prefix}{key}'{hint}"
                + ("" if hint else f"; allowed keys: {', '.join(prefix + k for k in fields)}")
            )
        f = fields[key]
        kwargs[key] = _check(prefix + key, value, hints[key], f.metadata)
    try:
        return cls(**kwargs)
    except ConfigError:
        raise
    except (TypeError, ValueError) as e:  # pragma: no cover - a field check missed it
        raise ConfigError(str(e)) from None


def config_from_dict(data: dict[str, Any]) -> TrainConfig:
    """Build and check a :class:`TrainConfig` from a plain mapping."""
    if not isinstance(data, dict):
        raise ConfigError(f"a config is a mapping of keys to values, got {type(data).__name__}")
    return _build(TrainConfig, data)


def apply_overrides(data: dict[str, Any], overrides: list[str]) -> dict[str, Any]:
    """Apply ``key=value`` strings (values parsed as YAML; ``a.b=...`` for nested keys)."""
    import yaml

    data = dict(data)
    for item in overrides:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError(f"--set takes key=value, got {item!r}")
        try:
            value = yaml.safe_load(raw) if raw.strip() else None
        except yaml.YAMLError as e:
            raise ConfigError(f"--set {key}: value {raw!r} is not valid YAML ({e})") from None
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
    import yaml

    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {str(path)!r} does not exist")
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as e:
        raise ConfigError(f"config file {str(path)!r} is not valid YAML: {e}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"config file {str(path)!r} must hold a mapping of keys to values")
    return data


def load_config(path: str | Path, overrides: list[str] | None = None) -> TrainConfig:
    """Read ``path``, apply ``--set`` overrides, check everything."""
    return config_from_dict(apply_overrides(read_yaml(path), overrides or []))


def dump_config(cfg: TrainConfig) -> str:
    """The config as YAML, every field listed (what the run directory stores)."""
    import yaml

    return yaml.safe_dump(cfg.to_dict(), sort_keys=False)
