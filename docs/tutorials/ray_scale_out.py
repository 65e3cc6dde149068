"""Scale out on Ray: the same training with RLlib's PPO and env runners.

``backend: rllib`` in a config trains the same kind of shared masked policy with Ray
RLlib (``configs/rllib_smoke.yaml`` for two iterations, ``configs/rllib.yaml`` with two
env runners); its policy file plays as ``ppo:`` like the SB3 path's. Ray is the
``rllib`` extra; without it this tutorial says so and stops.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
from pathlib import Path

from steps import sh

if importlib.util.find_spec("ray") is None:
    print('skipped: Ray is not installed (pip install -e ".[rllib]"; it pins its own gymnasium)')
    sys.exit(0)

os.environ.setdefault("RAY_ADDRESS", "")  # a local Ray instance, not a cluster in the env
with tempfile.TemporaryDirectory() as scratch:
    run = Path(scratch) / "rllib-run"
    sh("python", "train.py", "--config", "configs/rllib_smoke.yaml", "--set", f"run_dir={run}")
    print("the run directory:", " ".join(sorted(p.name for p in run.iterdir())))
    sh("grove-tournament", "--agent", f"ppo:{run}", "--agent", "random",
       "--agent", "random", "--agent", "random", "--games", "40")  # fmt: skip
