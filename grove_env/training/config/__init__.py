"""The training configuration (:class:`TrainConfig`), importable without torch or SB3.

=========================  ==========================================================
:mod:`.fields`             the value types every group uses (strict numbers, specs)
:mod:`.errors`             :class:`ConfigError` and its one-line messages
:mod:`.groups`             the table, opponents, evaluations and the run's fields
:mod:`.learning`           PPO's and the equilibrium-seeking terms' fields, RLlib's
:mod:`.descent`            the ``descent:`` section: exploitability descent's stages
:mod:`.train_config`       :class:`TrainConfig` itself, YAML in and out, ``--set``
=========================  ==========================================================

May import the game layer and :mod:`grove_env.agents.base` (spec checks); nothing else
of the training package imports below it.
"""

from grove_env.training.config.errors import ConfigError, ConfigFileError, shown
from grove_env.training.config.fields import ALL_TABLES
from grove_env.training.config.groups import OpponentMix
from grove_env.training.config.learning import RLlibSettings
from grove_env.training.config.train_config import (
    RESUMABLE_FIELDS,
    TrainConfig,
    apply_overrides,
    config_from_dict,
    dump_config,
    load_config,
    read_yaml,
)

__all__ = [
    "RESUMABLE_FIELDS",
    "ALL_TABLES",
    "ConfigError",
    "ConfigFileError",
    "OpponentMix",
    "RLlibSettings",
    "TrainConfig",
    "apply_overrides",
    "config_from_dict",
    "dump_config",
    "load_config",
    "read_yaml",
    "shown",
]
