"""The run directory: where a training run writes everything, atomically where it matters.

::

    runs/<name>-s<seed>-<timestamp>/
        config.yaml          the config as used (every field)
        versions.json        python, torch, stable-baselines3, sb3-contrib, grove-env, numpy
        metrics.csv          one row per quick evaluation
        learning_curve.png   win share vs random / heuristic over training steps
        nashconv.png         exact NashConv over training steps (with exploit_every)
        tb/                  TensorBoard (train/..., rollout/..., eval/..., time/...)
        checkpoints/step_000000123456/{model.zip or model.pt, policy.*, pool.pt, state.json}
        best_policy.json/.pt the policy with the best score (best_by), safe format
        best.zip, best.json  the same as an SB3 zip (sb3 backend), and its score
        final_eval.txt/json  the final tournament tables
        run.json             name, seed, command, device used, the update's staleness
                             (rollouts; 1 with overlap), resumes
        train.lock           the pid of the process writing the run (while it runs)

No torch here: this module is safe to import for tools that only read runs.
"""

from __future__ import annotations

import csv
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import yaml

from grove_env.messages import one_line
from grove_env.training.config import TrainConfig, dump_config, shown
from grove_env.versions import versions


def metrics_columns(eval_opponents: Sequence[str], more: Sequence[str] = ()) -> tuple[str, ...]:
    """The columns of ``metrics.csv``: one win share per quick-evaluation opponent, then
    ``more`` (the NashConvs of :mod:`~grove_env.training.measure.exploit`).

    >>> metrics_columns(["random", "piler"])[2:4]
    ('eval/win_share_vs_random', 'eval/win_share_vs_piler')
    """
    shares = tuple(f"{SHARE_PREFIX}{o}" for o in eval_opponents)
    return ("step", "wall_time_s", *shares, "eval/score", "rollout/win_share", "pool_size", *more)


SHARE_PREFIX = "eval/win_share_vs_"


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


class RunDirError(Exception):
    """A run directory or one of its files that cannot be made, read or written."""


def nash_conv_line(measured: dict[str, float]) -> str:
    """The final table's NashConv line, from ``{"round": markers, "game": outcome}``
    (:func:`grove_env.training.measure.evaluate.final_nash_conv`; ``final_eval.json``'s
    ``nash_conv``)."""
    line = f"exact NashConv: one round {measured['round']:.4f} markers"
    if "game" in measured:
        line += f", the whole game {measured['game']:.4f} outcome"
    return line + " (python -m grove_env.analysis nashconv)"


def new_run_dir(cfg: TrainConfig) -> Path:
    """Create the run directory: ``cfg.run_dir``, or ``<runs_root>/<name>-s<seed>-<time>``."""
    where = cfg.run_dir if cfg.run_dir is not None else cfg.runs_root
    try:
        return _make_run_dir(cfg)
    except FileExistsError:
        raise
    except (OSError, ValueError) as e:  # ValueError: a NUL byte in the path
        why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise RunDirError(f"cannot make a run directory in {where!r}: {why}") from None


def _make_run_dir(cfg: TrainConfig) -> Path:
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


RUN_PACKAGES = ("torch", "stable-baselines3", "sb3-contrib", "grove-env", "numpy", "gymnasium")
"""The packages whose versions ``versions.json`` records."""


def write_run_files(run_dir: Path, cfg: TrainConfig) -> None:
    """``config.yaml`` and ``versions.json`` (rewritten on resume: they describe this run)."""
    atomic_write_text(run_dir / "config.yaml", dump_config(cfg))
    atomic_write_text(
        run_dir / "versions.json",
        json.dumps(versions(RUN_PACKAGES, with_platform=True), indent=2) + "\n",
    )


class MetricsLog:
    """``metrics.csv``: one row per evaluation; on resume, rows past the checkpoint go."""

    def __init__(self, path: Path, columns: Sequence[str], resume_step: int | None = None) -> None:
        self.path = path
        self.columns = tuple(columns)
        rows: list[dict[str, str]] = []
        if resume_step is not None and path.exists():  # a new run starts an empty log
            rows = [r for r in self.read(path) if int(r["step"]) <= resume_step]
        self.rows = rows
        self._rewrite()

    @staticmethod
    def read(path: Path) -> list[dict[str, str]]:
        """The rows of ``path``, checked: a whole step and numbers (or blanks) in each."""
        try:
            with open(path, newline="", encoding="utf-8") as f:
                rows = list(csv.DictReader(f))
        except (OSError, UnicodeDecodeError, csv.Error) as e:
            raise RunDirError(f"{str(path)!r} cannot be read: {_why(e)}") from None
        for line, row in enumerate(rows, start=2):
            problem = _bad_cell(row)
            if problem:
                raise RunDirError(f"{str(path)!r} line {line}: {problem}")
        return rows

    def _rewrite(self) -> None:
        lines = [",".join(self.columns)]
        lines += [",".join(str(r.get(c, "")) for c in self.columns) for r in self.rows]
        atomic_write_text(self.path, "\n".join(lines) + "\n")

    def append(self, row: dict[str, float | int | str | None]) -> None:
        unknown = set(row) - set(self.columns)
        if unknown:
            raise KeyError(f"unknown metrics columns {sorted(unknown)}")
        clean = {c: _fmt(row.get(c)) for c in self.columns}
        self.rows.append(clean)
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(",".join(clean[c] for c in self.columns) + "\n")


def _bad_cell(row: dict) -> str | None:
    """What is wrong with one ``metrics.csv`` row, or ``None``."""
    if None in row or None in row.values():
        return "wrong number of columns"
    step = (row.get("step") or "").strip()
    if not (step.isascii() and step.isdigit() and len(step) <= 18):
        return f"step must be a whole number, got {shown(step)}"
    for column, value in row.items():
        if column != "step" and value.strip():
            try:
                float(value)
            except ValueError:
                return f"{column} must be a number, got {shown(value)}"
    return None


def _why(e: BaseException) -> str:
    return e.strerror if isinstance(e, OSError) and e.strerror else one_line(e)


def read_run_info(run_dir: Path) -> dict:
    """``run.json`` of a run (empty if there is none yet); :class:`RunDirError` if damaged."""
    path = run_dir / "run.json"
    if not path.exists():
        return {}
    try:
        info = json.loads(path.read_bytes().decode("utf-8"))
    except (OSError, ValueError, RecursionError) as e:
        raise RunDirError(f"{str(path)!r} is corrupt: {_why(e)}") from None
    if not isinstance(info, dict) or not isinstance(info.get("resumes", []), list):
        raise RunDirError(f"{str(path)!r} is corrupt: not an object with a list of resumes")
    return info


def record_run(
    run_dir: Path, info: dict, cfg: TrainConfig, device: str, resumed_from: str | None = None
) -> None:
    """Write ``run.json``: ``info`` (what :func:`read_run_info` gave) brought up to date.

    ``device`` is the torch device this process trains on (``auto`` resolved); a resume
    (``resumed_from``: the checkpoint's name, or ``""`` for none) is appended only when
    its checkpoint has loaded, so a failed resume leaves no trace.
    """
    now = time.strftime("%Y-%m-%dT%H:%M:%S")
    info = {"name": run_dir.name, "started": now, "command": " ".join(sys.argv), **info}
    info["seed"] = cfg.seed
    info["device"] = device
    # overlap: each update learns from a rollout that the weights one update older played
    info["staleness_rollouts"] = 1 if cfg.overlap else 0
    if resumed_from is not None:
        entry = {"at": now, "from": resumed_from or None, "device": device}
        info["resumes"] = [*info.get("resumes", []), entry]
    atomic_write_text(run_dir / "run.json", json.dumps(info, indent=2) + "\n")


def _fmt(value: float | int | str | None) -> str:
    if value is None:
        return ""
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def plot_learning_curve(metrics_csv: Path, png: Path, title: str = "") -> None:
    """Win share against each quick-evaluation opponent over training, with the fair share."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows = MetricsLog.read(metrics_csv) if metrics_csv.exists() else []
    fig = Figure(figsize=(7.0, 4.2), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    others = _others(metrics_csv)
    columns = [c for c in (rows[0] if rows else {}) if c.startswith(SHARE_PREFIX)]
    for col in columns:
        pts = [(float(r["step"]), float(r[col])) for r in rows if r.get(col)]
        if pts:
            xs, ys = zip(*pts)
            name = col.removeprefix(SHARE_PREFIX)
            ax.plot(xs, ys, marker="o", markersize=3, label=f"vs {others}{name}")
    fair = _fair_share(metrics_csv)
    if fair is not None:
        ax.axhline(fair, color="#c44e52", linestyle="--", label=f"fair share {fair:.2f}")
    ax.set_xlabel("learner steps")
    ax.set_ylabel("win share (quick evaluation)")
    ax.set_ylim(0.0, 1.0)
    ax.grid(alpha=0.3)
    ax.set_title(title or metrics_csv.parent.name)
    ax.legend(loc="lower right", fontsize="small", ncol=2 if len(columns) > 4 else 1)
    fig.tight_layout()
    tmp = png.with_name(f".{png.name}.tmp.png")
    fig.savefig(tmp)
    os.replace(tmp, png)


def _others(metrics_csv: Path) -> str:
    """``"3 "`` for a 4-player run (the opponents per table), from its config.yaml."""
    fair = _fair_share(metrics_csv)
    return f"{round(1 / fair) - 1} " if fair else ""


def _fair_share(metrics_csv: Path) -> float | None:
    cfg_path = metrics_csv.parent / "config.yaml"
    if not cfg_path.exists():
        return None
    data = yaml.safe_load(cfg_path.read_text()) or {}
    n = data.get("num_players")
    return 1.0 / n if isinstance(n, int) and n > 0 else None
