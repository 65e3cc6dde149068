"""Train from a config, then play the trained policy.

A run is ``python train.py --config FILE`` with any ``--set KEY=VALUE`` overrides;
``configs/smoke.yaml`` is the seconds-long one, ``configs/default.yaml`` (``make
train``) the real one. The run directory holds everything the run made, and its
``best_policy.json`` is what the ``ppo:`` agent spec plays.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from steps import sh

with tempfile.TemporaryDirectory() as scratch:
    run = Path(scratch) / "my-run"  # by default: runs/<name>-s<seed>-<time>/
    sh("python", "train.py", "--config", "configs/smoke.yaml", "--set", f"run_dir={run}")
    print("the run directory:", " ".join(sorted(p.name for p in run.iterdir())))

    final = json.loads((run / "final_eval.json").read_text())
    vs_random = final["vs_random"]["learner"]
    print(f"final gauntlet, vs 3 random: {vs_random['win_share']:.3f} (fair 0.25)")

    # The trained policy plays like any other agent: here one seat against three random.
    sh("grove-tournament", "--agent", f"ppo:{run}/best_policy.json", "--agent", "random",
       "--agent", "random", "--agent", "random", "--games", "40")  # fmt: skip
