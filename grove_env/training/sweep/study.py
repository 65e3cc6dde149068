"""The sweep's trials: Optuna draws settings, :func:`~grove_env.training.front.train` runs them.

The study lives in ``<folder>/study.db`` (SQLite, Optuna's own storage), so the command
run again goes on where it stopped: it trains only the trials still missing. Each
trial's run at each seed has a run directory named by its settings and seed
(``runs/<key>-s<seed>``); a trial that was interrupted is drawn again with the same
settings first, and its runs resume from their checkpoints
(:func:`~grove_env.training.front.resume`) instead of starting over.

A trial's value is the median over ``seeds`` of the exact NashConv its run measured
(``metrics.csv``, :mod:`grove_env.training.measure.exploit`): the whole game's where the
run measures it (2 players, and 3 with ``exploit_whole_game``), else one round's; of the
last iterate (``objective: last``) or the lowest measured (``lowest``).
"""

from __future__ import annotations

import hashlib
import json
import statistics
import time
import warnings
from pathlib import Path
from typing import Any

import optuna
from optuna.distributions import (
    BaseDistribution,
    CategoricalDistribution,
    FloatDistribution,
    IntDistribution,
)
from optuna.trial import TrialState

from grove_env.training import front
from grove_env.training.config import ConfigError, TrainConfig
from grove_env.training.measure.exploit import nashconv_column, nashconv_curve
from grove_env.training.run.lock import RunLock
from grove_env.training.sweep.spec import Primitive, Sweep

STUDY_FILE = "study.db"
HEARTBEAT_S = 60
FRESH_WAIT_S = 20


class TrialInterrupted(KeyboardInterrupt):
    """A trial's training was interrupted (its checkpoint is saved)."""


class TrialError(Exception):
    """A trial's run stopped with an error, or measured no NashConv (one line)."""


def settings_key(params: dict[str, Any]) -> str:
    """A short name for a trial's settings: the same settings, the same run directories."""
    text = json.dumps(params, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:10]


def train_once(cfg: TrainConfig) -> None:
    """Run ``cfg`` to its end (resumed where its directory already holds a run)."""
    run_dir = Path(cfg.run_dir or "")
    resuming = (run_dir / "config.yaml").is_file()
    code = front.resume(run_dir) if resuming else front.train(cfg)
    if code == front.EXIT_INTERRUPTED:
        raise TrialInterrupted(f"interrupted in {run_dir}")
    if code:
        raise TrialError(f"the run in {run_dir} stopped with exit code {code}")


def run_value(sweep: Sweep, cfg: TrainConfig) -> float:
    """The objective of one finished run (module doc)."""
    points = nashconv_curve(Path(cfg.run_dir or ""), nashconv_column(cfg))
    if not points:
        raise TrialError(f"the run in {cfg.run_dir} measured no NashConv")
    values = [v for _, _, v in points]
    return values[-1] if sweep.spec.objective == "last" else min(values)


def distributions(sweep: Sweep) -> dict[str, BaseDistribution]:
    """Each entry of the space as an Optuna distribution: what :func:`draw` draws from, and
    what :func:`restore` checks a recorded trial against."""
    out: dict[str, BaseDistribution] = {}
    for name, p in sweep.spec.space.items():
        if p.choice is not None:
            out[name] = CategoricalDistribution(list(p.options()))
        elif p.integer:
            assert p.low is not None and p.high is not None
            out[name] = IntDistribution(int(p.low), int(p.high), log=p.log)
        else:
            assert p.low is not None and p.high is not None
            out[name] = FloatDistribution(p.low, p.high, log=p.log)
    return out


def draw(trial: optuna.Trial, sweep: Sweep) -> dict[str, Primitive]:
    """The trial's settings, drawn from the space."""
    params: dict[str, Primitive] = {}
    for name, d in distributions(sweep).items():
        when = sweep.spec.space[name].when
        if any(params.get(other) not in allowed for other, allowed in when.items()):
            continue
        if isinstance(d, CategoricalDistribution):
            params[name] = trial.suggest_categorical(name, list(d.choices))
        elif isinstance(d, IntDistribution):
            params[name] = trial.suggest_int(name, d.low, d.high, log=d.log)
        else:
            assert isinstance(d, FloatDistribution)
            params[name] = trial.suggest_float(name, d.low, d.high, log=d.log)
    return params


def restore(sweep: Sweep, study: optuna.Study, result: dict[str, Any]) -> int:
    """Add the completed trials of a recorded result (what ``grove-sweep --json`` writes,
    which a record under ``docs/results/data/sweeps`` keeps as its ``result``) to an
    empty study, each under its own number (a number the result lacks, a trial that
    never completed, is added as failed); the number of trials restored. Refused in one
    line, before anything is added, where the result is of another sweep, budget or
    seeds, a trial does not fit the sweep's space, or the study already holds trials."""
    mine = (sweep.spec.name, sweep.shared.get("total_timesteps"), sweep.spec.seeds)
    theirs = (result.get("sweep"), result.get("budget"), result.get("seeds"))
    if theirs != mine:
        raise ConfigError(
            f"--from-record: the record is of sweep {theirs[0]!r} at {theirs[1]} steps, seeds "
            f"{theirs[2]}; this sweep is {mine[0]!r} at {mine[1]} steps, seeds {mine[2]}"
        )
    if study.get_trials(deepcopy=False):
        raise ConfigError(
            f"--from-record: the study in {str(sweep.folder)!r} already holds trials; "
            "a record restores an empty one"
        )
    trials = recorded_trials(sweep, result.get("trials"))
    for number in range(max(trials, default=-1) + 1):
        study.add_trial(trials.get(number) or optuna.trial.create_trial(state=TrialState.FAIL))
    return len(trials)


def recorded_trials(sweep: Sweep, trials: Any) -> dict[int, optuna.trial.FrozenTrial]:
    """A record's trials by number, each checked against the sweep's space (one line)."""
    keys = ("trial", "nash_conv", "params", "seeds", "seconds")
    if not isinstance(trials, list) or not all(
        isinstance(t, dict) and all(k in t for k in keys) and isinstance(t["params"], dict)
        for t in trials
    ):
        raise ConfigError(f"--from-record: each trial needs {', '.join(keys)}")
    numbers = [t["trial"] for t in trials]
    if not all(isinstance(k, int) and k >= 0 for k in numbers) or len(set(numbers)) < len(numbers):
        raise ConfigError("--from-record: the trials' numbers must be distinct, 0 or more")
    space = distributions(sweep)
    out = {}
    for t in trials:
        unknown = sorted(set(t["params"]) - set(space))
        if unknown:
            raise ConfigError(
                f"--from-record: trial {t['trial']} sets {', '.join(unknown)}, "
                "which the sweep's space does not hold"
            )
        attrs = {"key": settings_key(t["params"]), "seeds": t["seeds"], "seconds": t["seconds"]}
        try:
            out[t["trial"]] = optuna.trial.create_trial(
                params=t["params"],
                distributions={name: space[name] for name in t["params"]},
                value=t["nash_conv"],
                user_attrs=attrs,
            )
        except (TypeError, ValueError) as e:
            raise ConfigError(
                f"--from-record: trial {t['trial']} does not fit the sweep's space: {e}"
            ) from None
    return out


def objective(sweep: Sweep, trial: optuna.Trial) -> float:
    """Train the trial's settings at every seed; the median of their NashConvs."""
    params = draw(trial, sweep)
    key = settings_key(params)
    values: dict[str, float] = {}
    began = time.perf_counter()
    for seed in sweep.spec.seeds:
        cfg = sweep.trial_config(params, seed, sweep.folder / "runs" / f"{key}-s{seed}")
        train_once(cfg)
        values[str(seed)] = run_value(sweep, cfg)
    value = statistics.median(values.values())
    trial.set_user_attr("key", key)
    trial.set_user_attr("seeds", values)
    trial.set_user_attr("seconds", round(time.perf_counter() - began, 1))
    print(f"trial {trial.number}: NashConv {value:.4f} ({key}: {params})", flush=True)
    return value


def open_study(sweep: Sweep) -> optuna.Study:
    """The sweep's study, created or loaded from ``<folder>/study.db``.

    The storage keeps a heartbeat: a trial whose process died (not interrupted: killed)
    is marked failed a few minutes later, and :func:`run_sweep` draws its settings again.
    Several processes may run one sweep at once, each a trial at a time.
    """
    sweep.folder.mkdir(parents=True, exist_ok=True)
    optuna.logging.set_verbosity(optuna.logging.ERROR)  # a failed trial: our one line
    with warnings.catch_warnings():  # the heartbeat is "experimental" since Optuna 2.9
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        storage = optuna.storages.RDBStorage(
            f"sqlite:///{(sweep.folder / STUDY_FILE).resolve()}",
            heartbeat_interval=HEARTBEAT_S,
            grace_period=4 * HEARTBEAT_S,
        )
    study = optuna.create_study(
        study_name=sweep.spec.name, storage=storage, direction="minimize", load_if_exists=True
    )
    _same_trials(sweep, study)
    # Seeded by the trials already there: a new study draws the same settings from the
    # same file, and a second process joining it does not draw the first one's again.
    seed = sweep.spec.sampler_seed + len(study.get_trials(deepcopy=False))
    study.sampler = optuna.samplers.TPESampler(
        seed=seed, n_startup_trials=sweep.spec.startup_trials
    )
    return study


def _same_trials(sweep: Sweep, study: optuna.Study) -> None:
    """Refuse to go on with a study whose trials trained another base or budget: their
    values would not compare (the space may grow; the trials' runs stay as they were)."""
    fixed = settings_key({"base": sweep.base, "set": sweep.spec.set, "seeds": sweep.spec.seeds})
    found = study.user_attrs.get("fixed")
    if found is None:
        study.set_user_attr("fixed", fixed)
    elif found != fixed:
        raise ConfigError(
            f"sweep {str(sweep.path)!r}: its base config, set: or seeds changed since the study "
            f"in {str(sweep.folder)!r} began; give the sweep a new name or folder"
        )


def finished(study: optuna.Study) -> list[optuna.trial.FrozenTrial]:
    """The completed trials, best first."""
    done = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    return sorted(done, key=lambda t: (t.value, t.number))


def run_sweep(sweep: Sweep, trials: int | None = None) -> optuna.Study:
    """Train the trials still missing (``trials``: at most this many now)."""
    study = open_study(sweep)
    _redraw_interrupted(study)
    missing = max(0, sweep.spec.trials - len(finished(study)))
    if trials is not None:
        missing = min(missing, trials)
    print(f"sweep {sweep.spec.name}: {len(finished(study))} trials done, {missing} to train",
          flush=True)  # fmt: skip
    if missing:
        study.optimize(lambda t: objective(sweep, t), n_trials=missing)
    return study


def _redraw_interrupted(study: optuna.Study) -> None:
    """Queue again the settings of trials that failed or were cut off, so their runs resume
    (Optuna's own ``skip_if_exists`` would find the failed trial itself and skip)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        optuna.storages.fail_stale_trials(study)
    live = (TrialState.COMPLETE, TrialState.WAITING, TrialState.RUNNING)
    taken = {settings_key(t.params or t.system_attrs.get("fixed_params", {}))
             for t in study.get_trials(deepcopy=False, states=live)}  # fmt: skip
    for t in study.get_trials(deepcopy=False, states=(TrialState.FAIL,)):
        if t.params and settings_key(t.params) not in taken:
            study.enqueue_trial(t.params)
            taken.add(settings_key(t.params))


def fresh_runs(sweep: Sweep, study: optuna.Study) -> dict[str, Any]:
    """The best ``top`` settings re-run on ``fresh_seeds``: each run's curve.

    A run another process is training (a second ``--fresh`` beside this one) is left to
    it and read once it has finished, so two processes share the re-runs.
    """
    best = finished(study)[: sweep.spec.top]
    todo = {
        (rank, seed): sweep.trial_config(
            t.params, seed, sweep.folder / "fresh" / f"{t.user_attrs['key']}-s{seed}", fresh=True
        )
        for rank, t in enumerate(best, start=1)
        for seed in sweep.spec.fresh_seeds
    }
    curves: dict[tuple[int, int], list[tuple[int, float, float]]] = {}
    while todo:
        free = {k: cfg for k, cfg in todo.items() if not RunLock(Path(cfg.run_dir or "")).busy()}
        if not free:
            time.sleep(FRESH_WAIT_S)
            continue
        key, cfg = next(iter(free.items()))
        train_once(cfg)
        curves[key] = nashconv_curve(Path(cfg.run_dir or ""), nashconv_column(cfg))
        del todo[key]
    return {
        f"#{rank} trial {t.number}": {
            "params": t.params,
            "sweep_value": t.value,
            "runs": {str(seed): curves[rank, seed] for seed in sweep.spec.fresh_seeds},
        }
        for rank, t in enumerate(best, start=1)
    }
