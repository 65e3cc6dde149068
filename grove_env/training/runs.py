"""The entry points ``train.py`` calls: a new run, or ``--resume`` of one; Ctrl-C and SIGTERM.

:func:`train` and :func:`resume` check everything before they write (the device, the lock,
``run.json``, ``metrics.csv``, the checkpoint), then hand the run to
:class:`~grove_env.training.trainer.Trainer` (or to another backend's ``run``, for
``backend: rllib``) and turn an interruption into exit code 130.
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

from grove_env.training import checkpoint
from grove_env.training.batched.trainer import BatchedTrainer, read_checkpoint_model
from grove_env.training.builders import resolve_device
from grove_env.training.config import (
    ConfigError,
    ConfigFileError,
    TrainConfig,
    apply_overrides,
    config_from_dict,
    read_yaml,
)
from grove_env.training.run_dir import (
    MetricsLog,
    new_run_dir,
    read_run_info,
    record_run,
    write_run_files,
)
from grove_env.training.run_lock import RunLock
from grove_env.training.run_schedule import RunSchedule
from grove_env.training.trainer import RESUMABLE_FIELDS, Trainer

EXIT_INTERRUPTED = 130


BackendRun = Callable[[TrainConfig, Path, bool], int]
"""Another backend's ``run(cfg, run_dir, resume)`` (``backend: rllib``), given by train.py."""


def train(cfg: TrainConfig, backend_run: BackendRun | None = None) -> int:
    """A new run of ``cfg``; returns the process exit code."""
    device = _device(cfg)  # a missing CUDA device stops the run before its directory exists
    run_dir = new_run_dir(cfg)
    with RunLock(run_dir):
        write_run_files(run_dir, cfg)
        record_run(run_dir, {}, cfg, device)
        print(f"run directory: {run_dir}", flush=True)
        if backend_run is not None:
            return backend_run(cfg, run_dir, False)
        return _run(_trainer(cfg, run_dir, None, device))


def resume(
    run_dir: str | Path, overrides: list[str] | None = None, backend_run: BackendRun | None = None
) -> int:
    """Continue the run in ``run_dir`` from its newest checkpoint (or from scratch).

    Everything is read and checked before anything is written: the lock, ``run.json``,
    ``metrics.csv``, the checkpoint; the resume is recorded once the checkpoint loaded.
    (Another backend loads its own checkpoints; its resume is recorded before it starts.)
    """
    run_dir = Path(run_dir)
    if not (run_dir / "config.yaml").is_file():
        raise ConfigError(f"--resume: {str(run_dir)!r} is not a run directory (no config.yaml)")
    data = read_yaml(run_dir / "config.yaml")
    try:
        config_from_dict(data)
    except ConfigError as e:  # the run's own file: damaged, not a usage error
        raise ConfigFileError(f"{str(run_dir / 'config.yaml')!r}: {e}") from None
    cfg = config_from_dict(apply_overrides(data, overrides or []))
    changed = [k for k, v in cfg.to_dict().items() if k in data and data[k] != v]
    fixed = [k for k in changed if k not in RESUMABLE_FIELDS]
    if fixed:
        raise ConfigError(
            f"--resume cannot change {', '.join(fixed)} (the checkpoint depends on it); "
            f"it may change {', '.join(RESUMABLE_FIELDS)}"
        )
    device = _device(cfg)
    with RunLock(run_dir):
        info = read_run_info(run_dir)
        if backend_run is not None:
            write_run_files(run_dir, cfg)
            record_run(run_dir, info, cfg, device, resumed_from=cfg.backend)
            return backend_run(cfg, run_dir, True)
        if (run_dir / "metrics.csv").exists():
            MetricsLog.read(run_dir / "metrics.csv")
        batched = cfg.backend == "batched"
        ckpt = checkpoint.latest_intact(run_dir, read_checkpoint_model if batched else None)
        where = f"checkpoint {ckpt.name}" if ckpt else "the start (no checkpoint yet)"
        print(f"resuming {run_dir} from {where}", flush=True)
        trainer = _trainer(cfg, run_dir, ckpt, device)
        write_run_files(run_dir, cfg)
        record_run(run_dir, info, cfg, device, resumed_from=ckpt.name if ckpt else "")
        done = ckpt is not None and trainer.step >= cfg.total_timesteps
        if done and (run_dir / "final_eval.json").is_file():
            print(f"run already complete at step {trainer.step:,}", flush=True)
            return 0
        return _run(trainer)


def _device(cfg: TrainConfig) -> str:
    device = resolve_device(cfg.device)
    if cfg.device == "auto":
        print(f"device: auto -> {device}", flush=True)
    return device


def _trainer(cfg: TrainConfig, run_dir: Path, ckpt: Path | None, device: str) -> RunSchedule:
    """The run's learner: SB3's MaskablePPO, or the batched backend's own PPO."""
    kind = BatchedTrainer if cfg.backend == "batched" else Trainer
    return kind(cfg, run_dir, ckpt, device)


def _run(trainer: RunSchedule) -> int:
    if not trainer.learn():
        return EXIT_INTERRUPTED
    print(f"training done at step {trainer.step:,} ({trainer.run_dir})", flush=True)
    # Ctrl-C and SIGTERM stop the final evaluation, as they stop training (learn() sets
    # its own handlers), also where SIGINT was inherited as ignored (a shell's `cmd &`).
    previous = {
        signal.SIGINT: signal.signal(signal.SIGINT, signal.default_int_handler),
        signal.SIGTERM: signal.signal(signal.SIGTERM, _raise_interrupt),
    }
    try:
        trainer.finish()
    except KeyboardInterrupt:
        # final_eval.* are written whole at the end, so nothing half done is left.
        print(
            "interrupted during the final evaluation (the model and checkpoints are saved)\n"
            f"finish it with: python train.py --resume {trainer.run_dir}",
            flush=True,
        )
        return EXIT_INTERRUPTED
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    return 0


def _raise_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt
