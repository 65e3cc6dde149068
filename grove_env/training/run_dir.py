"""The run directory: where a training run writes everything, atomically where it matters.

::

    runs/<name>-s<seed>-<timestamp>/
        config.yaml          the config as used (every field)
        versions.json        python, torch, stable-baselines3, sb3-contrib, grove-env, numpy
        metrics.csv          one row per quick evaluation
        learning_curve.png   win share vs random / heuristic over training steps
        tb/                  TensorBoard (train/..., rollout/..., eval/..., time/...)
        checkpoints/step_000000123456/{model.zip, pool.pt, state.json}
        best.zip, best.json  the checkpoint with the best quick-evaluation score
        final_eval.txt/json  the final tournament tables

No torch here: this module is safe to import for tools that only read runs.
"""

from __future__ import annotations

import csv
import json
import os
import platform
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

import yaml

import grove_env
from grove_env.training.config import TrainConfig, dump_config

METRICS_COLUMNS = (
    "step",
    "wall_time_s",
    "eval/win_share_vs_random",
    "eval/win_share_vs_heuristic",
    "eval/score",
    "rollout/win_share",
    "pool_size",
)


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and ``os.replace``."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes it private; these are ordinary run files
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def new_run_dir(cfg: TrainConfig) -> Path:
    """Create the run directory: ``cfg.run_dir``, or ``<runs_root>/<name>-s<seed>-<time>``."""
    if cfg.run_dir is not None:
        path = Path(cfg.run_dir)
        if path.exists() and any(path.iterdir()):
            raise FileExistsError(
                f"run_dir {str(path)!r} exists and is not empty; use --resume {path} to "
                "continue it, or choose another run_dir"
            )
        path.mkdir(parents=True, exist_ok=True)
        return path
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = Path(cfg.runs_root) / f"{cfg.name}-s{cfg.seed}-{stamp}"
    path, k = base, 1
    while True:
        try:
            path.mkdir(parents=True)
            return path
        except FileExistsError:
            k += 1
            path = base.with_name(f"{base.name}-{k}")


def versions() -> dict[str, str]:
    """Versions of Python and the packages a run depends on."""
    out = {"python": sys.version.split()[0], "platform": platform.platform()}
    for pkg in ("torch", "stable-baselines3", "sb3-contrib", "grove-env", "numpy", "gymnasium"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "not installed"
    if out["grove-env"] == "not installed":
        out["grove-env"] = grove_env.__version__
    return out


def write_run_files(run_dir: Path, cfg: TrainConfig) -> None:
    """``config.yaml`` and ``versions.json`` (rewritten on resume: they describe this run)."""
    atomic_write_text(run_dir / "config.yaml", dump_config(cfg))
    atomic_write_text(run_dir / "versions.json", json.dumps(versions(), indent=2) + "\n")


class MetricsLog:
    """``metrics.csv``: one row per evaluation; on resume, rows past the checkpoint go."""

    def __init__(self, path: Path, resume_step: int | None = None) -> None:
        self.path = path
        rows = self.read(path) if path.exists() else []
        if resume_step is not None:
            rows = [r for r in rows if int(float(r["step"])) <= resume_step]
        else:
            rows = []
        self.rows = rows
        self._rewrite()

    @staticmethod
    def read(path: Path) -> list[dict[str, str]]:
        with open(path, newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))

    def _rewrite(self) -> None:
        lines = [",".join(METRICS_COLUMNS)]
        lines += [",".join(str(r.get(c, "")) for c in METRICS_COLUMNS) for r in self.rows]
        atomic_write_text(self.path, "\n".join(lines) + "\n")

    def append(self, row: dict[str, float | int | str | None]) -> None:
        unknown = set(row) - set(METRICS_COLUMNS)
        if unknown:
            raise KeyError(f"unknown metrics columns {sorted(unknown)}")
        clean = {c: _fmt(row.get(c)) for c in METRICS_COLUMNS}
        self.rows.append(clean)
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(",".join(clean[c] for c in METRICS_COLUMNS) + "\n")


def _fmt(value: float | int | str | None) -> str:
    if value is None:
        return ""
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def plot_learning_curve(metrics_csv: Path, png: Path, title: str = "") -> None:
    """Win share vs random and vs heuristic over training steps, with the fair share."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows = MetricsLog.read(metrics_csv) if metrics_csv.exists() else []
    fig = Figure(figsize=(7.0, 4.2), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for col, label, colour in (
        ("eval/win_share_vs_random", "vs 3 random", "#55a868"),
        ("eval/win_share_vs_heuristic", "vs 3 heuristic", "#4c72b0"),
    ):
        pts = [(float(r["step"]), float(r[col])) for r in rows if r.get(col)]
        if pts:
            xs, ys = zip(*pts)
            ax.plot(xs, ys, marker="o", markersize=3, label=label, color=colour)
    fair = _fair_share(metrics_csv)
    if fair is not None:
        ax.axhline(fair, color="#c44e52", linestyle="--", label=f"fair share {fair:.2f}")
    ax.set_xlabel("learner steps")
    ax.set_ylabel("win share (quick evaluation)")
    ax.set_ylim(0.0, 1.0)
    ax.grid(alpha=0.3)
    ax.set_title(title or metrics_csv.parent.name)
    ax.legend(loc="lower right")
    fig.tight_layout()
    tmp = png.with_name(f".{png.name}.tmp.png")
    fig.savefig(tmp)
    os.replace(tmp, png)


def _fair_share(metrics_csv: Path) -> float | None:
    cfg_path = metrics_csv.parent / "config.yaml"
    if not cfg_path.exists():
        return None
    data = yaml.safe_load(cfg_path.read_text()) or {}
    n = data.get("num_players")
    return 1.0 / n if isinstance(n, int) and n > 0 else None
