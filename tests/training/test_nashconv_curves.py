"""``benchmarks/nashconv_curves.py`` on runs it finds already trained: what it reads from
each run's ``metrics.csv`` and what it writes (no training here)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from grove_env.training.measure.exploit import GAME, ROUND

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "nashconv_curves.py"

# (step, wall seconds, whole game, one round) per measurement, per seed
RUNS = {
    0: [(0, 1.0, 0.9, 0.20), (100, 10.0, 0.5, 0.10), (200, 20.0, 0.4, 0.09)],
    1: [(0, 2.0, 0.8, 0.21), (100, 30.0, 0.7, 0.12), (200, 50.0, 0.3, 0.08)],
    2: [(0, 3.0, 1.0, 0.22), (100, 40.0, 0.6, 0.11), (200, 60.0, 0.35, 0.07)],
}


def finished_run(run_dir: Path, rows: list[tuple[int, float, float, float]], game: bool) -> None:
    run_dir.mkdir(parents=True)
    columns = ["step", "wall_time_s", ROUND] + ([GAME] if game else [])
    lines = [",".join(columns)]
    for step, wall, whole, one in rows:
        lines.append(",".join(map(str, [step, wall, one] + ([whole] if game else []))))
        lines.append(f"{step + 50},{wall + 1}," + ("," if game else ""))  # a row with no NashConv
    (run_dir / "metrics.csv").write_text("\n".join(lines) + "\n")
    (run_dir / "curve_done.json").write_text(json.dumps({"seconds": rows[-1][1] + 5}))


@pytest.mark.parametrize(("table", "game"), [("revised-2p", True), ("classic-4p", False)])
def test_finished_runs_are_read_with_their_seconds_and_median(tmp_path, table, game) -> None:
    for seed, rows in RUNS.items():
        finished_run(tmp_path / "work" / table / "m" / f"seed{seed}", rows, game)
    out, png = tmp_path / "curves.json", tmp_path / "curves.png"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--methods", "m=configs/mmd_reward.yaml",
         "--tables", table, "--steps", "200", "--every", "100", "--work",
         str(tmp_path / "work"), "--json", str(out), "--png", str(png)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    found = json.loads(out.read_text())["tables"][table]["m"]
    column = 2 if game else 3
    assert found["steps"] == [0, 100, 200]
    assert found["seeds"] == {str(s): [r[column] for r in rows] for s, rows in RUNS.items()}
    assert found["walls"] == {str(s): [r[1] for r in rows] for s, rows in RUNS.items()}
    assert found["seconds"] == {str(s): rows[-1][1] + 5 for s, rows in RUNS.items()}
    assert found["measure"] == ("whole game, outcome" if game else "one round, markers")
    last = sorted(rows[-1][column] for rows in RUNS.values())[1]
    assert f"last {last:.4f}" in done.stdout.splitlines()[-1]
    assert png.stat().st_size > 0


def test_the_median_and_range_are_over_the_measurements_every_seed_reached() -> None:
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        from nashconv_curves import median_and_range
    finally:
        sys.path.remove(str(SCRIPT.parent))
    middle, low, high = median_and_range([[3.0, 2.0, 1.0], [1.0, 4.0], [2.0, 3.0, 0.5]])
    assert (middle, low, high) == ([2.0, 3.0], [1.0, 2.0], [3.0, 4.0])
