"""Evaluate an agent: a tournament of one table, and the gauntlet of every style.

``grove-tournament`` plays one lineup (one agent spec per seat, seats rotated) and
ranks the entries; ``grove-gauntlet`` plays an agent against ``N - 1`` copies of each
playing style and reports each win share with its 95% interval, the mean and the worst
case. Both also run from Python; the sizes here are small, so the intervals are wide.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from steps import sh

sh("grove-tournament", "--rules", "classic", "--players", "4",
   "--agents", "heuristic,random,random,random", "--games", "80", "--seed", "0")  # fmt: skip

with tempfile.TemporaryDirectory() as scratch:
    out = Path(scratch) / "gauntlet.json"
    sh("grove-gauntlet", "--agent", "heuristic", "--rules", "classic", "--players", "4",
       "--games", "40", "--json", str(out))  # fmt: skip
    summary = json.loads(out.read_text())
    print(f"from the JSON: mean {summary['rule_based_mean']:.3f}, "
          f"worst {summary['rule_based_worst']['opponent']}")  # fmt: skip

# The same from Python: the example the page shows.
sh("python", "examples/evaluate_agents.py", "--agent", "greedy", "--games", "60")
