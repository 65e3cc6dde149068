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

The rule-set names and each one's player counts come from
:data:`grove_env.rules.RULE_SETS`. This module imports neither torch nor SB3, so a bad
config fails in a fraction of a second.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from grove_env.agents.base import parse_spec
from grove_env.rules import RULE_SETS, get_rules
from grove_env.training.config_errors import (
    ConfigError,
    ConfigFileError,
    describe,
    problem,
    shown,
)

__all__ = [
    "ConfigError",
    "ConfigFileError",
    "TrainConfig",
    "config_from_dict",
    "load_config",
    "shown",
]


def _whole_float(value: Any) -> Any:
    """YAML writes ``1.0e6`` as a float; a whole float is a fine count."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _numeric_string(value: Any) -> Any:
    """YAML 1.1 reads ``3e-4`` (no dot) as a string; a string that spells a number is one."""
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    return value


Int = Annotated[int, BeforeValidator(_whole_float)]
Float = Annotated[float, BeforeValidator(_numeric_string)]
Text = Annotated[str, Field(min_length=1)]
# Strict: no string or bool passes for a number, no "yes" for a flag; the two
# validators above are the only conversions. NaN and infinity are never a setting.
STRICT = ConfigDict(
    strict=True, extra="forbid", frozen=True, allow_inf_nan=False, use_attribute_docstrings=True
)


def _agent_spec(spec: str) -> str:
    """An agent spec that can play training or evaluation seats (not a human)."""
    name, _ = parse_spec(spec)  # a ValueError names the known agents
    if name == "human":
        raise ValueError("a human cannot play the learner's opponents")
    return spec


AgentSpec = Annotated[str, Field(min_length=1), AfterValidator(_agent_spec)]

ALL_TABLES: tuple[str, ...] = tuple(
    f"{name}:{n}" for name, rules in RULE_SETS.items() for n in rules.player_counts
)
"""Every table of every rule set, as ``rules:players``."""


def _table(table: str) -> str:
    """``rules:players`` naming a table the rule set allows (or ``all``)."""
    if table == "all":
        return table
    name, sep, players = table.partition(":")
    if not sep or name not in RULE_SETS or not players.isdigit():
        raise ValueError("a table is rules:players, e.g. 'classic:4', or 'all'")
    if int(players) not in RULE_SETS[name].player_counts:
        raise ValueError(f"rules {name!r} allow {list(RULE_SETS[name].player_counts)} players")
    return table


class OpponentMix(BaseModel):
    """Sampling weights for who plays the seats other than the learner's (normalised).

    A kind the config leaves out keeps its default below; the agents are named as their
    specs (``stack-avoider``, ``heuristic-trust``).
    """

    model_config = ConfigDict(**STRICT, populate_by_name=True)

    live: Float = Field(0.5, ge=0.0)
    """The learner's current weights, sampling its policy (pure self-play)."""
    pool: Float = Field(0.2, ge=0.0)
    """A past snapshot of the learner from the opponent pool (live until one exists)."""
    heuristic: Float = Field(0.2, ge=0.0)
    """The reference ``heuristic`` agent (:mod:`grove_env.agents.heuristic.search`)."""
    random: Float = Field(0.1, ge=0.0)
    """Uniformly random legal moves."""
    greedy: Float = Field(0.0, ge=0.0)
    """``greedy``: the likeliest culprit (:mod:`grove_env.agents.scripted.greedy`)."""
    stack_avoider: Float = Field(0.0, ge=0.0, alias="stack-avoider")
    """The gauntlet's ``stack-avoider`` (:mod:`grove_env.agents.scripted.styles`, as the four
    below)."""
    piler: Float = Field(0.0, ge=0.0)
    """The gauntlet's ``piler``: accuses likely innocents, expecting to be covered."""
    follower: Float = Field(0.0, ge=0.0)
    """The gauntlet's ``follower``: repeats the previous accusation."""
    contrarian: Float = Field(0.0, ge=0.0)
    """The gauntlet's ``contrarian``: accuses where nobody has."""
    bluffer: Float = Field(0.0, ge=0.0)
    """The gauntlet's ``bluffer``: a first player who swaps and accuses to mislead."""
    heuristic_trust: Float = Field(0.0, ge=0.0, alias="heuristic-trust")
    """The first heuristic (``heuristic-trust``); slow per move, unlike the others."""

    @model_validator(mode="after")
    def _positive_sum(self) -> OpponentMix:
        if sum(self.weights().values()) <= 0:
            raise ValueError("weights must have a positive sum")
        return self

    def weights(self) -> dict[str, float]:
        """Weight per opponent kind, keyed by its spec (``live``, ``pool`` or an agent)."""
        return self.model_dump(by_alias=True)


class RLlibSettings(BaseModel):
    """Ray RLlib's workers for ``backend: rllib`` (:mod:`grove_env.training.rllib_backend`)."""

    model_config = STRICT

    env_runners: Int = Field(2, ge=0)
    """Env runner processes that sample in parallel (0: sample in the driver process)."""
    envs_per_runner: Int = Field(256, ge=1)
    """Games each env runner steps at once on the batched engine (``grove_env/SelfPlay-v0``)."""
    learners: Int = Field(0, ge=0)
    """Learner processes (0: the PPO update runs in the driver process)."""
    cpus_per_env_runner: Float = Field(1.0, gt=0.0)
    """CPUs Ray reserves for each env runner (fractions share a core)."""
    num_cpus: Int | None = Field(None, ge=1)
    """CPUs of the local Ray instance (``null``: all); ignored when joining a cluster
    through ``RAY_ADDRESS``."""
    node_ip_address: Text | None = None
    """This machine's address when it joins a cluster through ``RAY_ADDRESS`` (``null``:
    Ray's guess); ``127.0.0.1`` for nodes started with ``--node-ip-address=127.0.0.1``."""


class TrainConfig(BaseModel):
    """Everything a training run needs; the YAML file lists a subset, the rest defaults."""

    model_config = STRICT

    name: Text = "grove"
    """Run name; the run directory is ``<runs_root>/<name>-s<seed>-<timestamp>`` (so no
    path separator or control character)."""
    rules: str = "classic"
    """Rule set the learner trains on: a name in :data:`grove_env.rules.RULE_SETS`."""
    num_players: Int = 4
    """Seats per game; the rule set's ``player_counts`` say which are allowed."""
    tables: list[Annotated[str, AfterValidator(_table)]] = []
    """Train one network on several tables at once: ``rules:players`` entries such as
    ``classic:4``, or ``all`` for every table of every rule set (the observation is the
    same shape on all of them); ``num_envs`` games are split evenly between the tables,
    and every evaluation runs on each. Empty: the one table of ``rules`` and
    ``num_players``."""
    reward: Literal["outcome", "markers", "win"] = "outcome"
    """``outcome``: zero-sum rank reward at the end; ``markers``: dense per round;
    ``win``: win points minus the fair share at the end (what win share measures)."""
    max_rounds: Int = Field(100, ge=1)
    """Rounds after which an unfinished game is truncated (value bootstrapped)."""

    total_timesteps: Int = Field(1_000_000, ge=1)
    """Learner decisions to train for (one per VecEnv slot per step)."""
    num_envs: Int = Field(512, ge=1)
    """Games played side by side; each is one VecEnv slot with one learner seat."""
    n_steps: Int = Field(32, ge=1)
    """Learner decisions per slot per rollout (rollout size = num_envs * n_steps)."""
    batch_size: Int = Field(4096, ge=2)
    """Minibatch size of the PPO update; must divide num_envs * n_steps."""
    n_epochs: Int = Field(4, ge=1)
    """Passes over each rollout in the PPO update."""
    learning_rate: Float = Field(3e-4, gt=0.0)
    """Adam step size (at the start, see ``lr_schedule``)."""
    lr_schedule: Literal["constant", "linear"] = "constant"
    """``linear``: the step size falls linearly to 0 at ``total_timesteps``."""
    gamma: Float = Field(1.0, ge=0.0, le=1.0)
    """Discount per learner decision; 1.0 suits a terminal-only reward."""
    gae_lambda: Float = Field(0.95, ge=0.0, le=1.0)
    """GAE lambda."""
    ent_coef: Float = Field(0.01, ge=0.0)
    """Entropy bonus coefficient."""
    vf_coef: Float = Field(0.5, ge=0.0)
    """Value loss coefficient."""
    clip_range: Float = Field(0.2, gt=0.0)
    """PPO ratio clipping."""
    max_grad_norm: Float = Field(0.5, gt=0.0)
    """Gradient norm clipping."""
    target_kl: Annotated[Float, Field(gt=0.0)] | None = None
    """Stop an update's epochs early past this KL (``null``: never)."""
    net_arch: list[Annotated[Int, Field(ge=1)]] = [128, 128]
    """Hidden layer sizes, used for both the policy and the value network."""
    activation: Literal["tanh", "relu"] = "tanh"
    """Hidden layer activation."""
    features: Literal["observation", "culprit_odds", "advice"] = "observation"
    """Network input: the observation; or it followed by derived culprit odds and stack
    sizes (``culprit_odds``, :mod:`grove_env.training.features`); or those and the
    heuristic's search, the value of each move at each kind of table
    (``advice``, :mod:`grove_env.agents.heuristic.advice`: costs about as much as a heuristic
    seat per decision, at training and at play)."""
    seed: Int = Field(0, ge=0)
    """Seeds torch, numpy, the games and the opponents; part of the run name."""
    backend: Literal["sb3", "rllib"] = "sb3"
    """``sb3``: MaskablePPO in this process; ``rllib``: Ray RLlib's PPO with env runners
    on the batched engine (``pip install grove-env[rllib]``; random and heuristic
    opponents only, ``features: observation``)."""
    rllib: RLlibSettings = RLlibSettings()  # frozen, so one shared default is safe
    """Ray RLlib's workers (read with ``backend: rllib`` only)."""

    imitate: AgentSpec | None = None
    """A teacher agent (``heuristic``) whose moves the network learns first, before PPO
    (:mod:`grove_env.training.imitation`); ``null``: PPO from random weights."""
    imitate_steps: Int = Field(262_144, ge=1)
    """Teacher decisions, in the run's own training games, to learn from."""
    imitate_epochs: Int = Field(4, ge=1)
    """Passes over the teacher's decisions (minibatches of ``batch_size``)."""

    opponents: OpponentMix = OpponentMix()  # frozen, so one shared default is safe
    """Who plays the other seats (weights, normalised)."""
    opponent_sampling: Literal["game", "seat"] = "game"
    """``game``: one opponent kind per game for all other seats; ``seat``: one per seat."""
    learner_seat: Literal["rotate", "random"] = "rotate"
    """How each new game picks the learner's seat (so it learns every seat)."""
    snapshot_every: Int = Field(100_000, ge=1)
    """Learner steps between snapshots added to the opponent pool."""
    pool_size: Int = Field(5, ge=1)
    """Snapshots kept in the pool (oldest dropped first)."""

    eval_every: Int = Field(100_000, ge=1)
    """Learner steps between quick evaluations (each may replace ``best.zip``)."""
    eval_games: Int = Field(400, ge=1)
    """Games per opponent kind in a quick evaluation (batched engine, deterministic)."""
    eval_opponents: list[AgentSpec] = Field(["random", "heuristic"], min_length=1)
    """Opponents of the quick evaluation, each an agent spec (the learner against ``n - 1``
    of it); the best policy is the one whose evaluation scores highest (``best_by``)."""
    best_by: Literal["mean", "mean_and_worst"] = "mean"
    """Score of a quick evaluation: the mean win share over ``eval_opponents``, or the
    mean of that mean and the worst one (a policy that no style beats)."""
    final_eval_games: Int = Field(2000, ge=0)
    """Games per opponent of the final gauntlet (:mod:`grove_env.agents.arena.gauntlet`: the
    learner against ``n - 1`` of each style and reference agent); 0: skip."""
    final_eval_workers: Int = Field(1, ge=1)
    """Worker processes of the final tournament."""
    checkpoint_every: Int = Field(200_000, ge=1)
    """Learner steps between checkpoints (taken at rollout boundaries)."""
    keep_checkpoints: Int = Field(2, ge=1)
    """Periodic checkpoints kept on disk (the best one is kept besides)."""

    runs_root: Text = "runs"
    """Folder that holds run directories."""
    run_dir: Text | None = None
    """Exact run directory instead of ``<runs_root>/<name>-s<seed>-<timestamp>``."""
    device: Literal["cpu", "cuda", "auto"] = "cpu"
    """Torch device of the policy: ``cpu``; ``cuda`` (an error if torch finds no CUDA
    device); ``auto`` (CUDA where present). ``run.json`` records the device used."""
    torch_threads: Int = Field(1, ge=1)
    """``torch.set_num_threads`` for the run."""
    progress: bool = True
    """Show a tqdm progress bar."""

    # Fields are checked in the order above, so a check may read the fields before it.
    @field_validator("name")
    @classmethod
    def _one_folder_name(cls, name: str) -> str:
        # The name becomes a folder inside runs_root: "../x" or "a/b" would leave it.
        if any(c in name for c in "/\\") or any(ord(c) < 32 or ord(c) == 127 for c in name):
            raise ValueError("must be a plain folder name (no '/', '\\' or control characters)")
        return name

    @field_validator("rules")
    @classmethod
    def _known_rules(cls, rules: str) -> str:
        if rules not in RULE_SETS:
            raise ValueError("must be one of " + ", ".join(map(repr, RULE_SETS)))
        return rules

    @field_validator("num_players")
    @classmethod
    def _seats_the_rules_allow(cls, num_players: int, info: ValidationInfo) -> int:
        rules = info.data.get("rules")  # absent if the rule-set name was wrong
        if rules is not None and num_players not in get_rules(rules).player_counts:
            raise ValueError(f"rules {rules!r} allow {list(get_rules(rules).player_counts)}")
        return num_players

    @field_validator("batch_size")
    @classmethod
    def _divides_the_rollout(cls, batch_size: int, info: ValidationInfo) -> int:
        if "num_envs" in info.data and "n_steps" in info.data:
            rollout = info.data["num_envs"] * info.data["n_steps"]
            if rollout % batch_size:
                raise ValueError(f"must divide num_envs * n_steps = {rollout}")
        return batch_size

    @model_validator(mode="after")
    def _envs_per_table(self) -> TrainConfig:
        if len(self.table_list()) > self.num_envs:
            raise ValueError(f"num_envs must be at least the {len(self.table_list())} tables")
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
        return self

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
    try:
        return TrainConfig.model_validate(data)
    except ValidationError as e:
        # An unknown key (a typo) first: it may be why a needed key looks missing.
        errors = sorted(e.errors(include_url=False), key=lambda d: d["type"] != "extra_forbidden")
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise ConfigError(describe(TrainConfig, errors[0]) + more) from None


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
