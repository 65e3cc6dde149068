"""The sweep's tables: every trial ranked, what mattered, the best settings and their re-runs.

:func:`sweep_result` is the JSON the command writes (``--json``; the results pages are
written from it): the trials, best first, with each seed's NashConv and the settings;
each setting's importance (Optuna's fANOVA importances: the share of the variance of
the NashConv across trials that the setting explains); and, after ``--fresh``, the
curves of the best settings on fresh seeds. :func:`sweep_table` is the same as a
Markdown table (``<folder>/sweep.md``), :func:`best_configs` writes each of the best
settings as a training config of its own (``<folder>/best-<rank>.yaml``) that
``train.py --config`` runs, and :func:`plot_fresh` draws the re-runs' NashConv against
steps and against wall time (median and range over the seeds).
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

import optuna
import yaml

from grove_env.training.run.directory import atomic_write_text
from grove_env.training.sweep.spec import Sweep, last_iterates
from grove_env.training.sweep.study import finished


def importances(study: optuna.Study) -> dict[str, float]:
    """Each setting's share of the NashConv's variance across trials (none under 3 trials)."""
    done = finished(study)
    if len(done) < 3 or len({t.value for t in done}) < 2:
        return {}
    found = optuna.importance.get_param_importances(
        study, evaluator=optuna.importance.FanovaImportanceEvaluator(seed=0)
    )
    return {k: round(float(v), 4) for k, v in found.items()}


def sweep_result(sweep: Sweep, study: optuna.Study, fresh: dict[str, Any] | None) -> dict:
    """The sweep's JSON (module doc)."""
    trials = [
        {
            "trial": t.number,
            "nash_conv": t.value,
            "seeds": t.user_attrs.get("seeds", {}),
            "seconds": t.user_attrs.get("seconds"),
            "params": t.params,
        }
        for t in finished(study)
    ]
    base = sweep.shared
    return {
        "sweep": sweep.spec.name,
        "file": str(sweep.path),
        "table": f"{base.get('rules')} {base.get('num_players')}p",
        "budget": base.get("total_timesteps"),
        "objective": sweep.spec.objective,
        "seeds": sweep.spec.seeds,
        "trials": trials,
        "importances": importances(study),
        "fresh": fresh or {},
    }


def sweep_table(result: dict) -> str:
    """The ranked trials and the importances as Markdown."""
    names = list(result["importances"]) or sorted(
        {k for t in result["trials"] for k in t["params"]}
    )
    lines = [
        f"# Sweep {result['sweep']}: {result['table']}, {result['budget']:,} steps",
        "",
        f"NashConv (exact, {result['objective']} iterate, median over seeds {result['seeds']}).",
        "",
        "| rank | trial | NashConv | seeds | s | " + " | ".join(names) + " |",
        "|---" * (5 + len(names)) + "|",
    ]
    for rank, t in enumerate(result["trials"], start=1):
        seeds = ", ".join(f"{v:.3f}" for v in t["seeds"].values())
        cells = [_cell(t["params"].get(n)) for n in names]
        lines.append(f"| {rank} | {t['trial']} | {t['nash_conv']:.4f} | {seeds} | "
                     f"{t['seconds'] or ''} | " + " | ".join(cells) + " |")  # fmt: skip
    if result["importances"]:
        lines += ["", "Importance (fANOVA share of the variance across trials):", ""]
        lines += [f"- `{k}`: {v:.3f}" for k, v in result["importances"].items()]
    for label, found in result["fresh"].items():
        last = last_iterates(found)
        if last is not None:
            lines.append(f"- fresh seeds, {label}: last NashConv median {last['median']:.4f}, "
                         f"range {last['lowest']:.4f} to {last['highest']:.4f}")  # fmt: skip
    return "\n".join(lines) + "\n"


def _cell(value: Any) -> str:
    return f"{value:.3g}" if isinstance(value, float) else str(value)


def best_configs(sweep: Sweep, study: optuna.Study) -> list[Path]:
    """Write the best ``top`` settings as training configs; their paths."""
    paths = []
    for rank, t in enumerate(finished(study)[: sweep.spec.top], start=1):
        data = {**sweep.shared, **sweep.spec.fresh_set, **sweep.settings(t.params)}
        data["name"] = f"{sweep.spec.name}-best{rank}"
        data.pop("run_dir", None)
        head = (f"# Sweep {sweep.spec.name} ({sweep.path}), rank {rank}: trial {t.number}, "
                f"NashConv {t.value:.4f}\n# python train.py --config THIS_FILE\n")  # fmt: skip
        path = sweep.folder / f"best-{rank}.yaml"
        atomic_write_text(path, head + yaml.safe_dump(data, sort_keys=False))
        paths.append(path)
    return paths


def plot_fresh(fresh: dict[str, Any], png: Path, title: str) -> None:
    """NashConv against steps and wall seconds: per setting the median and the range."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10.0, 4.2), dpi=100)
    FigureCanvasAgg(fig)
    by_steps, by_time = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    for label, found in fresh.items():
        runs = [points for points in found["runs"].values() if points]
        if not runs:
            continue
        n = min(len(points) for points in runs)
        steps = [runs[0][i][0] for i in range(n)]
        wall = [statistics.median(points[i][1] for points in runs) for i in range(n)]
        vals = [[points[i][2] for points in runs] for i in range(n)]
        mid = [statistics.median(v) for v in vals]
        for ax, xs in ((by_steps, steps), (by_time, wall)):
            (line,) = ax.plot(xs, mid, marker="o", markersize=3, label=label)
            ax.fill_between(xs, [min(v) for v in vals], [max(v) for v in vals],
                            color=line.get_color(), alpha=0.2)  # fmt: skip
    by_steps.set_xlabel("learner steps")
    by_time.set_xlabel("wall seconds (median over seeds)")
    for ax in (by_steps, by_time):
        ax.set_ylabel("NashConv (exact)")
        ax.set_ylim(bottom=0.0)
        ax.grid(alpha=0.3)
    by_steps.legend(loc="upper right", fontsize="small")
    fig.suptitle(title)
    fig.tight_layout()
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png)
