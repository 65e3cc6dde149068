"""The front door: what ``train.py`` and ``grove-train`` call, one backend table, one run protocol.

:func:`train` and :func:`resume` check everything before they write (the device, the
lock, ``run.json``, ``metrics.csv``, the checkpoint), then hand the run to its learner
and turn an interruption into exit code 130. Every learner is a :class:`Learner`: built
from ``(cfg, run_dir, checkpoint, device)``, it has a ``step``, ``learn()`` (False when
interrupted, a checkpoint written) and ``finish()`` (the final evaluation), and its class
says where a resume starts (``latest_checkpoint``). The resume, the "already complete",
the Ctrl-C and SIGTERM handling are written here once for all of them.

:data:`BACKENDS` names each learner's module, imported only when a run asks for it: a
config without ``backend: rllib`` never loads Ray, one without ``backend: sb3`` never
loads SB3. A config with a ``descent:`` section is an exploitability descent run
(:mod:`grove_env.training.descent`); with ``start: trained`` its config is first trained
as it stands, by its own ``backend``, into ``RUN/trained`` (that run's own directory,
lock and ``run.json``), and the descent starts from that run's best policy.
"""

from __future__ import annotations

import importlib
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from grove_env.training.config import (
    RESUMABLE_FIELDS,
    ConfigError,
    ConfigFileError,
    TrainConfig,
    apply_overrides,
    config_from_dict,
    read_yaml,
)
from grove_env.training.run.device import resolve_device
from grove_env.training.run.directory import (
    MetricsLog,
    new_run_dir,
    read_run_info,
    record_run,
    write_run_files,
)
from grove_env.training.run.lock import RunLock

EXIT_INTERRUPTED = 130
TRAINED = "trained"
"""The sub-folder of a descent run with ``start: trained`` that holds its PPO run."""


class Learner(Protocol):
    """What every backend's run is to the front door."""

    run_dir: Path

    @staticmethod
    def check(cfg: TrainConfig) -> None:
        """What the learner checks of a config before the run directory exists."""

    @property
    def step(self) -> int: ...

    def learn(self) -> bool: ...

    def finish(self) -> str | None: ...

    def complete(self) -> bool:
        """Trained and finally evaluated: a resume has nothing left to do."""
        ...

    def close(self) -> None:
        """Let go of what the run holds outside this process (Ray's workers)."""
        ...


@dataclass(frozen=True)
class Backend:
    """Where a training method's learner lives and what installs it."""

    module: str
    learner: str
    extra: str

    def load(self) -> Any:
        """The learner class (its module imported now: torch, SB3 or Ray load here)."""
        try:
            module = importlib.import_module(self.module)
        except ModuleNotFoundError as e:
            if e.name and e.name.split(".")[0] == "grove_env":
                raise
            raise BackendMissingError(
                f"this training method needs {e.name} (pip install 'grove-env[{self.extra}]')"
            ) from None
        return getattr(module, self.learner)


class BackendMissingError(RuntimeError):
    """A backend's optional dependency is not installed."""


BACKENDS: dict[str, Backend] = {
    "batched": Backend("grove_env.training.batched.trainer", "BatchedTrainer", "train"),
    "sb3": Backend("grove_env.training.sb3.trainer", "Trainer", "train"),
    "rllib": Backend("grove_env.training.rllib.backend", "RLlibRun", "rllib"),
    "descent": Backend("grove_env.training.descent.run", "DescentRun", "train"),
}
"""Training method -> learner: the config's ``backend``, or ``descent`` for a config with
a ``descent:`` section."""


def method_of(cfg: TrainConfig) -> str:
    """The training method of a config: ``descent`` where it has that section, else its backend."""
    return "descent" if cfg.descent is not None else cfg.backend


def train(cfg: TrainConfig) -> int:
    """A new run of ``cfg``; returns the process exit code."""
    learner = BACKENDS[method_of(cfg)].load()
    device = _device(cfg)  # a missing CUDA device stops the run before its directory exists
    learner.check(cfg)
    run_dir = new_run_dir(cfg)
    with RunLock(run_dir):
        write_run_files(run_dir, cfg)
        record_run(run_dir, {}, cfg, device)
        print(f"run directory: {run_dir}", flush=True)
        if not _trained_start(cfg, run_dir, resuming=False):
            return EXIT_INTERRUPTED
        return _run(learner(cfg, run_dir, None, device))


def resume(run_dir: str | Path, overrides: list[str] | None = None) -> int:
    """Continue the run in ``run_dir`` from its newest checkpoint (or from scratch).

    Everything is read and checked before anything is written: the lock, ``run.json``,
    ``metrics.csv``, the checkpoint; the resume is recorded once the checkpoint loaded.
    """
    run_dir = Path(run_dir)
    cfg = resumed_config(run_dir, overrides or [])
    learner = BACKENDS[method_of(cfg)].load()
    device = _device(cfg)
    with RunLock(run_dir):
        info = read_run_info(run_dir)
        if (run_dir / "metrics.csv").exists():
            MetricsLog.read(run_dir / "metrics.csv")
        ckpt = learner.latest_checkpoint(run_dir)
        where = f"checkpoint {ckpt.name}" if ckpt else "the start (no checkpoint yet)"
        print(f"resuming {run_dir} from {where}", flush=True)
        if not _trained_start(cfg, run_dir, resuming=True):
            return EXIT_INTERRUPTED
        run = learner(cfg, run_dir, ckpt, device)
        write_run_files(run_dir, cfg)
        record_run(run_dir, info, cfg, device, resumed_from=ckpt.name if ckpt else "")
        return _run(run, resumed=True)


def resumed_config(run_dir: Path, overrides: list[str]) -> TrainConfig:
    """The config of the run in ``run_dir`` with ``overrides`` applied, where a resume
    may change them (:data:`~grove_env.training.config.RESUMABLE_FIELDS`)."""
    if not (run_dir / "config.yaml").is_file():
        raise ConfigError(f"--resume: {str(run_dir)!r} is not a run directory (no config.yaml)")
    data = read_yaml(run_dir / "config.yaml")
    try:
        config_from_dict(data)
    except ConfigError as e:  # the run's own file: damaged, not a usage error
        raise ConfigFileError(f"{str(run_dir / 'config.yaml')!r}: {e}") from None
    cfg = config_from_dict(apply_overrides(data, overrides))
    changed = [k for k, v in cfg.to_dict().items() if k in data and data[k] != v]
    fixed = [k for k in changed if k not in RESUMABLE_FIELDS]
    if fixed:
        raise ConfigError(
            f"--resume cannot change {', '.join(fixed)} (the checkpoint depends on it); "
            f"it may change {', '.join(RESUMABLE_FIELDS)}"
        )
    return cfg


def _trained_start(cfg: TrainConfig, run_dir: Path, resuming: bool) -> bool:
    """A descent with ``start: trained``: its PPO run in ``run_dir/trained``, trained (or
    resumed) to the end first; False if that was interrupted."""
    if cfg.descent is None or cfg.descent.start != TRAINED:
        return True
    folder = run_dir / TRAINED
    if resuming and (folder / "config.yaml").is_file():
        print(f"the start: resuming its training in {folder}", flush=True)
        return resume(folder) == 0
    print(f"training the start: backend {cfg.backend}, into {folder}", flush=True)
    return train(cfg.model_copy(update={"descent": None, "run_dir": str(folder)})) == 0


def _device(cfg: TrainConfig) -> str:
    device = resolve_device(cfg.device)
    if cfg.device == "auto":
        print(f"device: auto -> {device}", flush=True)
    return device


def _run(run: Learner, resumed: bool = False) -> int:
    try:
        if resumed and run.complete():
            print(f"run already complete at step {run.step:,}", flush=True)
            return 0
        if not run.learn():
            return EXIT_INTERRUPTED
        print(f"training done at step {run.step:,} ({run.run_dir})", flush=True)
        return _finish(run)
    finally:
        run.close()


def _finish(run: Learner) -> int:
    """The final evaluation, which Ctrl-C and SIGTERM stop as they stop training."""
    # Ctrl-C and SIGTERM stop the final evaluation, as they stop training (learn() sets
    # its own handlers), also where SIGINT was inherited as ignored (a shell's `cmd &`).
    previous = {
        signal.SIGINT: signal.signal(signal.SIGINT, signal.default_int_handler),
        signal.SIGTERM: signal.signal(signal.SIGTERM, _raise_interrupt),
    }
    try:
        run.finish()
    except KeyboardInterrupt:
        # final_eval.* are written whole at the end, so nothing half done is left.
        print(
            "interrupted during the final evaluation (the model and checkpoints are saved)\n"
            f"finish it with: python train.py --resume {run.run_dir}",
            flush=True,
        )
        return EXIT_INTERRUPTED
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    return 0


def _raise_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt
