"""Run a measuring command and keep its JSON with the command, the date and the machine.

The results and benchmarks pages of the docs are written from these records by
``scripts/results_pages.py``; no figure on them is typed by hand. A record is one JSON
file::

    {"kind": "gauntlet", "command": "...", "date": "...", "seconds": 12.3,
     "machine": {...}, "versions": {...}, "result": <what the command wrote>}

The command says where its JSON goes with a placeholder, replaced by a temporary path:

==========  ==================================================================
``{json}``  a file the command writes (``grove-gauntlet --json {json}``,
            ``benchmarks/*.py --json {json}``)
``{run}``   a run directory (``train.py --set run_dir={run}``): the record keeps
            its ``final_eval.json`` and its ``metrics.csv`` (the learning curve)
neither     the command's last line on stdout is its JSON
            (``python -m grove_env.analysis nashconv --json``)
==========  ==================================================================

::

    python scripts/record_result.py --kind gauntlet docs/results/data/gauntlet/heuristic.json \\
        -- grove-gauntlet --agent heuristic --games 400 --json {json}
    python scripts/record_result.py --kind nashconv docs/results/data/nashconv/x.json \\
        -- python -m grove_env.analysis nashconv --agent random --json

A command that fails stops the recorder with its exit status and writes nothing.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from grove_env.versions import versions

KINDS = ("gauntlet", "nashconv", "training", "benchmark", "curves", "sweeps", "bestresponse")
"""What the pages know how to show; any other kind is shown as a table of its figures."""

VERSIONS = ("grove-env", "numpy", "torch", "stable-baselines3")


def machine() -> dict[str, Any]:
    """The CPU, its core count, the system and Python: what a figure was measured on."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cpus": os.cpu_count(),
        "system": platform.system(),
        "python": platform.python_version(),
    }


def read_run(run_dir: Path) -> dict[str, Any]:
    """A training run's final gauntlet and learning curve (``metrics.csv`` as rows)."""
    with open(run_dir / "metrics.csv", newline="") as f:
        curve = [{k: float(v) for k, v in row.items() if v != ""} for row in csv.DictReader(f)]
    final = run_dir / "final_eval.json"
    return {
        "final_eval": json.loads(final.read_text()) if final.exists() else None,
        "metrics": curve,
    }


def run_and_read(command: list[str], scratch: Path) -> Any:
    """Run ``command`` with its placeholders filled in; the JSON it produced."""
    out_json, run_dir = scratch / "out.json", scratch / "run"
    filled = [a.replace("{json}", str(out_json)).replace("{run}", str(run_dir)) for a in command]
    done = subprocess.run(filled, stdout=subprocess.PIPE, text=True)
    sys.stdout.write(done.stdout)
    if done.returncode != 0:
        raise SystemExit(done.returncode)
    if any("{run}" in a for a in command):
        result = read_run(run_dir)
    elif any("{json}" in a for a in command):
        result = json.loads(out_json.read_text())
    else:
        result = json.loads(done.stdout.strip().splitlines()[-1])
    # The scratch paths mean nothing later: the record says {run} and {json}, as typed.
    text = json.dumps(result).replace(str(run_dir), "{run}").replace(str(out_json), "{json}")
    return json.loads(text)


def record(kind: str, command: list[str]) -> dict[str, Any]:
    start_date = datetime.datetime.now(datetime.timezone.utc)
    load_start, start = os.getloadavg()[0], time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        result = run_and_read(command, Path(scratch))
    return {
        "kind": kind,
        "command": shlex.join(command),
        "date": start_date.isoformat(timespec="seconds"),
        "seconds": round(time.perf_counter() - start, 1),
        "machine": {**machine(), "load_average": [load_start, os.getloadavg()[0]]},
        "versions": versions(VERSIONS, skip_missing=True),
        "result": result,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        usage="%(prog)s [-h] --kind KIND OUT.json -- COMMAND ...",
    )
    p.add_argument("--kind", required=True, help=f"{', '.join(KINDS)} or a new one")
    p.add_argument("out", help="the record to write (docs/results/data/<kind>/<name>.json)")
    p.add_argument("command", nargs=argparse.REMAINDER, help="the measuring command")
    args = p.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        p.error("no command given after --")
    out = Path(args.out)
    if not out.parent.is_dir():
        p.error(f"the folder of {str(out)!r} does not exist")
    text = json.dumps(record(args.kind, command), indent=1) + "\n"
    out.write_text(text)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
