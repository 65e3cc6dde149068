"""``grove-train`` (and ``python train.py``): every training method from one YAML config.

    grove-train --config configs/default.yaml [--set key=value ...]
    grove-train --resume runs/<run> [--set total_timesteps=...]

The config says the method: its ``backend`` (``batched``, ``sb3``, ``rllib``), or
exploitability descent where it has a ``descent:`` section
(:mod:`grove_env.training.config.descent`). Everything lives in
:mod:`grove_env.training.front`; this module only parses the command line and turns
errors into one line. The front door loads torch, and a backend its own library, only
when a run starts, so a bad config is reported in a fraction of a second.

Exit codes: 0 done; 1 a run error, said in one line naming the file (a damaged config
file, checkpoint, ``run.json`` or ``metrics.csv``, an unwritable ``runs_root``, a run
another process is writing, ``device: cuda`` without CUDA, a backend not installed); 2 a
bad setting or command line; 130 interrupted (a checkpoint was written; ``--resume``
continues).
"""

from __future__ import annotations

import argparse
import sys

from grove_env.agents.cli.command_line import Parser
from grove_env.agents.learned.policy_files import ModelFileError
from grove_env.training import front
from grove_env.training.config import (
    ConfigError,
    ConfigFileError,
    load_config,
)
from grove_env.training.run.device import DeviceError
from grove_env.training.run.directory import RunDirError

EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 1, 2, 130
DESCRIPTION = (
    "Train an agent for In a Grove from a YAML config: PPO on any backend, or "
    "exploitability descent where the config has a descent: section."
)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = Parser(prog="grove-train", description=DESCRIPTION, label="usage error")
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
    try:
        return front.train(cfg) if cfg is not None else front.resume(args.resume, args.overrides)
    except ConfigFileError as e:
        return _fail(e, EXIT_ERROR)
    except ConfigError as e:
        return _fail(e, EXIT_USAGE)
    except (
        ModelFileError,
        RunDirError,
        DeviceError,
        front.BackendMissingError,
        FileExistsError,
    ) as e:
        return _fail(e, EXIT_ERROR)
    except OSError as e:  # a write that failed mid-run (a full disk, a folder removed)
        return _fail(e, EXIT_ERROR)


def _fail(e: Exception, code: int) -> int:
    kind = "config error" if code == EXIT_USAGE else "error"
    print(f"{kind}: {' '.join(str(e).split())}", file=sys.stderr)
    return code
