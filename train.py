"""Train a shared-weight self-play agent for In a Grove from a YAML config.

    python train.py --config configs/default.yaml [--set key=value ...]
    python train.py --resume runs/<run> [--set total_timesteps=...]

The project card's entry point; ``grove-train`` is the same command
(:mod:`grove_env.training.cli`, where the options and exit codes are documented).
"""

from __future__ import annotations

import sys

from grove_env.training.cli import main

if __name__ == "__main__":
    sys.exit(main())
