"""The value types of the training config: strict numbers, agent specs, tables.

Values are taken as YAML writes them: ``true``/``false`` for a flag, a number for a
number (``1.0e6`` for a whole count, ``3e-4`` although YAML 1.1 reads it as a string),
never a string for a count. No torch here (:mod:`~grove_env.training.config` imports
this).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, ConfigDict, Field

from grove_env.agents.base import parse_spec
from grove_env.rules import RULE_SETS


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


Table = Annotated[str, AfterValidator(_table)]
