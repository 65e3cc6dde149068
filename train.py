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

from grove_env.agents.policy_files import ModelFileError
from grove_env.training.config import ConfigError, load_config


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


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        cfg = None if args.resume else load_config(args.config, args.overrides)
    except ConfigError as e:
        print(f"config error: {e}", file=sys.stderr)
        return 2
    # Deferred: the trainer loads torch and SB3 (seconds); a bad config or command
    # line is reported before that.
    from grove_env.training.trainer import resume, train

    try:
        return train(cfg) if cfg is not None else resume(args.resume, args.overrides)
    except ConfigError as e:
        print(f"config error: {e}", file=sys.stderr)
        return 2
    except (ModelFileError, FileExistsError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
