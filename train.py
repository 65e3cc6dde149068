"""Train a shared-weight self-play PPO agent for In a Grove from a YAML config.

    python train.py --config configs/default.yaml [--set key=value ...]
    python train.py --resume runs/<run> [--set total_timesteps=...]

Everything lives in :mod:`grove_env.training`; this file only parses the command line.
Exit codes: 0 done; 1 a run error, said in one line naming the file (a damaged config
file, checkpoint, ``run.json`` or ``metrics.csv``, an unwritable ``runs_root``, a run
another process is writing, ``device: cuda`` without CUDA); 2 a bad setting or command
line; 130 interrupted (a checkpoint was written; ``--resume`` continues).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from grove_env.agents.cli.command_line import Parser
from grove_env.agents.learned.policy_files import ModelFileError
from grove_env.training.config import (
    ConfigError,
    ConfigFileError,
    TrainConfig,
    apply_overrides,
    load_config,
    read_yaml,
)
from grove_env.training.run_dir import RunDirError

EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 1, 2, 130


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = Parser(
        prog="python train.py", description=__doc__.split("\n\n")[0], label="usage error"
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--config", help="YAML config (see configs/ and grove_env.training.config)")
    source.add_argument("--resume", metavar="RUN_DIR", help="continue a run from its checkpoint")
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a config key (repeatable; VALUE is YAML, e.g. net_arch=[64,64])",
    )
    return parser.parse_args(argv)


def backend_of(cfg: TrainConfig | None, args: argparse.Namespace) -> str:
    """The run's backend: the config's, or for ``--resume`` the run directory's."""
    if cfg is not None:
        return cfg.backend
    data = read_yaml(Path(args.resume) / "config.yaml") if args.resume else {}
    return str(apply_overrides(data, args.overrides).get("backend", "sb3"))


def main(argv: list[str] | None = None) -> int:
    try:
        args = parse_args(argv)
    except SystemExit as e:  # argparse has printed its usage line (or --help)
        return e.code if isinstance(e.code, int) else EXIT_USAGE
    try:
        return _main(args)
    except KeyboardInterrupt:  # outside training (which handles it): nothing half written
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _main(args: argparse.Namespace) -> int:
    try:
        cfg = None if args.resume else load_config(args.config, args.overrides)
    except ConfigFileError as e:
        return _fail(e, EXIT_ERROR)
    except ConfigError as e:
        return _fail(e, EXIT_USAGE)
    # Deferred: the trainer loads torch and SB3 (seconds), the RLlib backend Ray; a bad
    # config or command line is reported before that.
    from grove_env.training.builders import DeviceError
    from grove_env.training.runs import BackendRun, resume, train

    backend_run: BackendRun | None = None
    try:
        if backend_of(cfg, args) == "rllib":
            try:
                from grove_env.training.rllib_backend import run as backend_run
            except ModuleNotFoundError as e:
                msg = f"backend rllib needs {e.name} (pip install 'grove-env[rllib]')"
                return _fail(RuntimeError(msg), EXIT_ERROR)
        if cfg is not None:
            return train(cfg, backend_run)
        return resume(args.resume, args.overrides, backend_run)
    except ConfigFileError as e:
        return _fail(e, EXIT_ERROR)
    except ConfigError as e:
        return _fail(e, EXIT_USAGE)
    except (ModelFileError, RunDirError, DeviceError, FileExistsError) as e:
        return _fail(e, EXIT_ERROR)
    except OSError as e:  # a write that failed mid-run (a full disk, a folder removed)
        return _fail(e, EXIT_ERROR)


def _fail(e: Exception, code: int) -> int:
    kind = "config error" if code == EXIT_USAGE else "error"
    print(f"{kind}: {' '.join(str(e).split())}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
