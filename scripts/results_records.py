"""The records of the measuring commands and how the results pages print them.

A record (``docs/results/data/<kind>/<name>.json``, written by ``scripts/record_result.py``)
is the command's own JSON with the command, the date and the machine. This module loads
them, prints a figure and a table the way every page does, and says under each table how
it was made (:func:`provenance`). ``scripts/results_pages.py`` and its sibling modules
import it from ``scripts/``, beside them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "docs" / "results" / "data"

Record = tuple[str, dict[str, Any]]  # (file name without .json, the record)


def load(data: Path = DATA) -> dict[str, list[Record]]:
    """Every record under ``data``, by kind (its folder), in file-name order."""
    kinds: dict[str, list[Record]] = {}
    for path in sorted(data.glob("*/*.json")):
        record = json.loads(path.read_text())
        for key in ("kind", "command", "date", "machine", "result"):
            if key not in record:
                raise ValueError(f"{path}: a record needs {key!r} (scripts/record_result.py)")
        kinds.setdefault(path.parent.name, []).append((path.stem, record))
    return kinds


def fmt(value: Any) -> str:
    """A figure as the pages print it: ints with separators, floats to 4 significant
    digits (3 decimals for a share), large floats rounded."""
    if isinstance(value, bool) or value is None:
        return "" if value is None else str(value).lower()
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if abs(value) >= 100:
            return f"{value:,.0f}"
        return f"{value:.4g}"
    return str(value).replace("|", "\\|")


def table(header: list[str], rows: Iterable[list[Any]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(fmt(v) for v in row) + " |" for row in rows]
    return lines + [""]


def run_on(record: dict[str, Any]) -> str:
    """When and on what: ``2026-12-03 07:18 UTC (3.6 s), AMD EPYC x 2 CPUs, load 8.7-8.9``."""
    m, load = record["machine"], record["machine"].get("load_average")
    date = record["date"][:16].replace("T", " ") + " UTC"
    load_text = f", load {load[0]:.1f} at start, {load[1]:.1f} at end" if load else ""
    version = record.get("versions", {}).get("grove-env", "?")
    return (
        f"{date} (the command took {fmt(record.get('seconds'))} s), {m['cpu']} x {m['cpus']} "
        f"CPUs{load_text}, "
        f"Python {m['python']}, grove-env {version}"
    )


MACHINE_PATH = re.compile(r"(?<![\w.~/:])/(?:[\w.-]+/)*[\w.-]+")
"""An absolute path in a recorded command: a folder of the machine that ran it."""


def provenance(kind: str, name: str, record: dict[str, Any]) -> list[str]:
    command = MACHINE_PATH.sub("<dir>", record["command"])  # the folder is that machine's
    return [
        f"Command: `{command}`",
        "",
        f"Run {run_on(record)}. Data: `docs/results/data/{kind}/{name}.json`.",
        "",
    ]
