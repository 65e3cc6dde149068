"""Train a shared-weight self-play PPO agent for In a Grove from a YAML config.

    python train.py --config configs/default.yaml [--set key=value ...]
    python train.py --resume runs/<run> [--set total_timesteps=...]

Everything lives in :mod:`grove_env.training`; this file only parses the command line.
Exit codes: 0 done, 1 a run error (e.g. a bad checkpoint), 2 a bad config or command
line, 130 interrupted (a checkpoint was written; ``--resume`` continues).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from grove_env.agents.policy_files import ModelFileError
from grove_env.training.config import (
    ConfigError,
    TrainConfig,
    apply_overrides,
    load_config,
    read_yaml,
)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
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
    args = parse_args(argv)
    try:
        cfg = None if args.resume else load_config(args.config, args.overrides)
    except ConfigError as e:
        print(f"config error: {e}", file=sys.stderr)
        return 2
    # Deferred: the trainer loads torch and SB3 (seconds), the RLlib backend Ray; a bad
    # config or command line is reported before that.
    from grove_env.training.trainer import BackendRun, resume, train

    backend_run: BackendRun | None = None
    try:
        if backend_of(cfg, args) == "rllib":
            try:
                from grove_env.training.rllib_backend import run as backend_run
            except ModuleNotFoundError as e:
                print(f"error: backend rllib needs {e.name} (pip install 'grove-env[rllib]')")
                return 1
        if cfg is not None:
            return train(cfg, backend_run)
        return resume(args.resume, args.overrides, backend_run)
    except ConfigError as e:
        print(f"config error: {e}", file=sys.stderr)
        return 2
    except (ModelFileError, FileExistsError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
