"""Train from a config, then play the trained policy.

A run is ``python train.py --config FILE`` with any ``--set KEY=VALUE`` overrides;
``configs/smoke.yaml`` is the seconds-long one, ``configs/default.yaml`` (``make
train``) the real one. The run directory holds everything the run made, and its
``best_policy.json`` is what the ``ppo:`` agent spec plays.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from steps import sh

with tempfile.TemporaryDirectory() as scratch:
    run = Path(scratch) / "my-run"  # by default: runs/<name>-s<seed>-<time>/
    sh("python", "train.py", "--config", "configs/smoke.yaml", "--set", f"run_dir={run}")
    print("the run directory:", " ".join(sorted(p.name for p in run.iterdir())))

    sh("python", "examples/trained_policy.py", str(run))  # the example the page shows
    sh("grove-tournament", "--agent", f"ppo:{run}", "--agent", "random",
       "--agent", "random", "--agent", "random", "--games", "40")  # fmt: skip
