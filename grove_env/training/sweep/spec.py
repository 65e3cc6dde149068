"""The sweep file (``configs/sweeps/*.yaml``): a base training config, a budget and a search space.

A sweep file names a training config (``base``, relative to the sweep file), settings
every trial shares (``set``: the step budget, ``exploit_every``, no final gauntlet), and
the ``space`` of settings the sampler draws. Each entry of the space is one of:

============================================  ===================================================
``{low: 1.0e-4, high: 3.0e-3, log: true}``    a number between ``low`` and ``high`` (``log``:
                                              drawn on a log scale; ``integer: true`` for counts)
``{choice: [constant, linear]}``              one of the values
``{choice: {small: [64, 64], ...}}``          one of the named values (the sampler sees the names:
                                              a list or a mapping is not a value it can store)
============================================  ===================================================

An entry's name is a training config field, which the drawn value sets; or else it names
a *bundle*: a ``choice`` whose every value is a mapping of fields set together (``loss:
{choice: {ppo: {magnet: none}, mmd: {magnet: uniform, kl_coef: 0.05}}}``). An entry
with ``when: {loss: [mmd]}`` is drawn only where that earlier choice drew one of those
values (Optuna's define-by-run: the sampler learns each branch on its own). Everything
is checked when the file loads: the base config, every field name, and each entry's
extremes set one at a time on the base, so a value out of a field's range is a one-line
error before the first trial trains.
"""

from __future__ import annotations

import math
import statistics
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError, model_validator

from grove_env.training.config import (
    ConfigError,
    TrainConfig,
    config_from_dict,
    read_yaml,
    shown,
)
from grove_env.training.config.fields import STRICT, Float, Int, Text

Primitive = str | int | float | bool | None
PRIMITIVES = (str, int, float, bool, type(None))


class Param(BaseModel):
    """One entry of the search space: a range, or a choice of values."""

    model_config = STRICT

    low: Float | None = None
    """The lowest value of a range."""
    high: Float | None = None
    """The highest value of a range."""
    log: bool = False
    """Draw the range on a log scale (learning rates, coefficients)."""
    integer: bool = False
    """Draw whole numbers (counts: epochs, steps)."""
    choice: list[Any] | dict[str, Any] | None = None
    """The values to choose from: a list of plain values, or a mapping of names to any
    values (lists, mappings), of which the sampler sees the names."""
    when: dict[str, list[Primitive]] = {}
    """Draw this entry only where earlier choices drew one of these values (``{loss:
    [mmd]}``: a magnet's weight only for the losses that have one); else the base's."""

    @model_validator(mode="after")
    def _range_or_choice(self) -> Param:
        ranged = self.low is not None or self.high is not None
        if ranged == (self.choice is not None):
            raise ValueError("give either low and high (a range) or choice (values)")
        if ranged:
            if self.low is None or self.high is None or not self.low < self.high:
                raise ValueError("a range needs low < high")
            if self.log and self.low <= 0:
                raise ValueError("a log range needs low > 0")
        elif not self.choice:
            raise ValueError("choice needs at least one value")
        elif isinstance(self.choice, list):
            odd = [v for v in self.choice if not isinstance(v, PRIMITIVES)]
            if odd:
                raise ValueError(
                    f"a choice list holds plain values; name {shown(odd[0])} in a mapping"
                )
        return self

    def options(self) -> dict[Primitive, Any]:
        """What the sampler picks from (``choice`` only), with the value each one sets."""
        assert self.choice is not None
        if isinstance(self.choice, list):
            return {v: v for v in self.choice}
        return {name: value for name, value in self.choice.items()}

    def extremes(self) -> list[Any]:
        """The values a load-time check tries: both ends of a range, every choice."""
        if self.choice is None:
            assert self.low is not None and self.high is not None
            ends = [self.low, self.high]
            return [math.ceil(v) if self.integer else v for v in ends]
        return list(self.options().values())


class SweepConfig(BaseModel):
    """A sweep: what trains, on what budget, over which settings, judged by what."""

    model_config = STRICT

    name: Text
    """The sweep's name: its folder is ``<folder>`` (default ``runs/sweeps/<name>``)."""
    base: Text
    """The training config every trial starts from, relative to the sweep file."""
    set: dict[str, Any] = {}
    """Fields every trial shares, over the base: the budget (``total_timesteps``), how
    often the exact NashConv is measured (``exploit_every``), no final gauntlet."""
    space: dict[str, Param] = Field(min_length=1)
    """The settings the sampler draws (module doc)."""
    fresh_set: dict[str, Any] = {}
    """Fields the fresh seeds' re-runs change over ``set`` (a longer budget)."""
    trials: Int = Field(40, ge=1)
    """Trials in all; a rerun of the command trains only those still missing."""
    seeds: list[Int] = Field([0], min_length=1)
    """Seeds each trial trains; its value is the median of their NashConvs."""
    fresh_seeds: list[Int] = Field([100, 101, 102], min_length=1)
    """Seeds of the best settings' re-runs (``--fresh``), none of them in ``seeds``."""
    top: Int = Field(3, ge=1)
    """How many of the best settings ``--fresh`` re-runs."""
    objective: str = "last"
    """``last``: the NashConv of the last iterate (measured at the end of the budget);
    ``lowest``: the lowest one measured (choosing a checkpoint by exact NashConv)."""
    sampler_seed: Int = 0
    """Seed of Optuna's TPE sampler (the same file draws the same settings)."""
    startup_trials: Int = Field(10, ge=1)
    """Trials drawn at random before TPE models the results."""
    folder: Text | None = None
    """Where the study (``study.db``), the runs and the tables go (``null``:
    ``runs/sweeps/<name>``)."""

    @model_validator(mode="after")
    def _fresh_seeds_are_fresh(self) -> SweepConfig:
        if self.objective not in ("last", "lowest"):
            raise ValueError("objective is 'last' or 'lowest'")
        reused = sorted(set(self.seeds) & set(self.fresh_seeds))
        if reused:
            raise ValueError(f"fresh_seeds must not repeat the sweep's seeds ({reused})")
        return self


class Sweep:
    """A loaded, checked sweep: its file, base config data and where it writes."""

    def __init__(self, path: str | Path, spec: SweepConfig, base: dict[str, Any]) -> None:
        self.path = Path(path)
        self.spec = spec
        self.base = base
        self.folder = Path(spec.folder or Path("runs") / "sweeps" / spec.name)

    @property
    def shared(self) -> dict[str, Any]:
        """The config data every trial shares: the base config under the sweep's ``set``."""
        return {**self.base, **self.spec.set}

    def trial_config(
        self, params: dict[str, Primitive], seed: int, run_dir: Path, fresh: bool = False
    ) -> TrainConfig:
        """The training config of one trial's run at ``seed``, into ``run_dir`` (``fresh``:
        with ``fresh_set`` too)."""
        more = self.spec.fresh_set if fresh else {}
        data = {**self.shared, **more, **self.settings(params)}
        data.update(seed=seed, run_dir=str(run_dir), progress=False)
        return config_from_dict(data)

    def settings(self, params: dict[str, Primitive]) -> dict[str, Any]:
        """The config fields a trial's drawn parameters set (bundles opened)."""
        out: dict[str, Any] = {}
        for name, param in self.spec.space.items():
            if name not in params:  # an entry whose ``when`` did not hold
                continue
            value: Any = params[name]
            if param.choice is not None:
                value = param.options()[value]
            if name in TrainConfig.model_fields:
                out[name] = value
            else:
                out.update(value)
        return out


def load_sweep(path: str | Path) -> Sweep:
    """Read and check a sweep file (module doc); a :class:`ConfigError` names any problem."""
    path = Path(path)
    data = read_yaml(path)
    try:
        spec = SweepConfig.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "the file"
        raise ConfigError(f"sweep {str(path)!r}: {where}: {err['msg']}") from None
    base_path = path.parent / spec.base
    base = read_yaml(base_path)
    sweep = Sweep(path, spec, base)
    _check_space(sweep, base_path)
    return sweep


def _check_space(sweep: Sweep, base_path: Path) -> None:
    """Every name a field or a bundle of fields, every extreme a valid config."""
    fields = TrainConfig.model_fields
    try:
        config_from_dict(sweep.shared)
    except ConfigError as e:
        where = f"sweep {str(sweep.path)!r}: base {str(base_path)!r} with set"
        raise ConfigError(f"{where}: {e}") from None
    earlier: dict[str, Param] = {}
    for name, param in sweep.spec.space.items():
        context = _condition(sweep, name, param, earlier)
        earlier[name] = param
        for value in param.extremes():
            if name in fields:
                change = {**context, name: value}
            elif param.choice is not None and isinstance(value, dict):
                unknown = [k for k in value if k not in fields]
                if unknown:
                    raise ConfigError(
                        f"sweep {str(sweep.path)!r}: space.{name}: {unknown[0]!r} is not a "
                        "training config field"
                    )
                change = {**context, **value}
            else:
                raise ConfigError(
                    f"sweep {str(sweep.path)!r}: space.{name} is not a training config field "
                    "(a bundle is a choice of mappings of fields)"
                )
            try:
                config_from_dict({**sweep.shared, **change})
            except ConfigError as e:
                where = f"sweep {str(sweep.path)!r}: space.{name} = {shown(value)}"
                raise ConfigError(f"{where}: {e}") from None


def _condition(sweep: Sweep, name: str, param: Param, earlier: dict[str, Param]) -> dict:
    """The fields an entry's ``when`` implies (its first allowed value of each condition)."""
    context: dict[str, Any] = {}
    for other, allowed in param.when.items():
        found = earlier.get(other)
        if found is None or found.choice is None:
            raise ConfigError(
                f"sweep {str(sweep.path)!r}: space.{name}: when names {other!r}, "
                "which is not an earlier choice"
            )
        options = found.options()
        missing = [v for v in allowed if v not in options]
        if missing or not allowed:
            raise ConfigError(
                f"sweep {str(sweep.path)!r}: space.{name}: when {other}: "
                f"{shown(missing[0]) if missing else 'no values'} is not one of {list(options)}"
            )
        value = options[allowed[0]]
        context.update(value if other not in TrainConfig.model_fields else {other: value})
    return context


def last_iterates(found: dict[str, Any]) -> dict[str, float] | None:
    """A best setting's fresh re-runs (a ``--json`` record's ``fresh`` entry): the steps
    they reached, and the median, lowest and highest NashConv of their last iterates
    over the seeds; ``None`` where no run measured one. The sweep's table and the
    results pages both read it."""
    runs = [points for points in found["runs"].values() if points]
    if not runs:
        return None
    lasts = [points[-1][2] for points in runs]
    return {
        "steps": max(points[-1][0] for points in runs),
        "median": statistics.median(lasts),
        "lowest": min(lasts),
        "highest": max(lasts),
        "seeds": len(lasts),
    }
