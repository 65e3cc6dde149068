"""Write the docs' results and benchmarks pages from the records of the measuring commands.

Every record in ``docs/results/data/<kind>/*.json`` (written by
``scripts/record_result.py``: the command's own JSON with the command, the date and the
machine) becomes a table on ``docs/results/<kind>.md``, under the command that made it;
a new record is a new table on the next run. The headline table of ``README.md`` (between
its ``results:headline`` markers) is the gauntlets' summary, and ``docs/results/zoo-cards.md``
the shipped zoo's cards (``grove_env/data/zoo``). No figure is typed by hand.

Its sibling modules in ``scripts/`` hold the rest: ``results_records`` loads the records and
prints figures, tables and how each was made; ``results_tables`` the benchmarks' tables and
the zoo's page; ``results_league`` the league page.

    python scripts/results_pages.py            # rewrite the pages
    python scripts/results_pages.py --check    # exit 1 naming each page that is stale
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from results_bounds import bestresponse_page, lower_bounds, nashconv_page  # scripts/
from results_league import NashConvs, exact_nash_convs, league_page
from results_records import DATA, ROOT, Record, load, provenance, table
from results_tables import Bounds, benchmark_tables, share, zoo_cards, zoo_page

from grove_env.training.run.directory import nash_conv_line
from grove_env.training.sweep.spec import last_iterates

PAGES = ROOT / "docs" / "results"
README = ROOT / "README.md"
ZOO = ROOT / "grove_env" / "data" / "zoo"
HEADLINE = re.compile(r"(<!-- results:headline -->\n).*?(<!-- /results:headline -->)", flags=re.S)
TITLES = {
    "gauntlet": "Gauntlets",
    "nashconv": "Exploitability (NashConv)",
    "training": "Training runs",
    "curves": "NashConv curves of training methods",
    "sweeps": "Sweeps of the trainer's settings",
    "bestresponse": "Learned best responses (lower bounds)",
    "benchmark": "Benchmarks",
    "league": "League",
}


def gauntlets(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The gauntlet results in a record: one, ``{"tables": [...]}`` (grove-gauntlet on
    several tables) or a training run's final evaluation."""
    if "cells" in result:
        return [result]
    if "gauntlet" in result:
        return [result["gauntlet"]]
    tables = result.get("tables", [])
    return list(tables.values()) if isinstance(tables, dict) else list(tables)


def gauntlet_table(g: dict[str, Any]) -> list[str]:
    worst = g["rule_based_worst"]
    rows = [
        [c["opponent"], "rule-based" if c["rule_based"] else "reference", share(c),
         f"{c['mean_score']:.2f}"]
        for c in g["cells"]
    ]  # fmt: skip
    summary = f"Fair share {g['fair_share']:.3f}"
    if worst is not None:
        summary += (
            f"; over the rule-based styles: mean {g['rule_based_mean']:.3f}, "
            f"worst {share(worst)} against {worst['opponent']}"
        )
    return [
        f"**{g['agent']}**, {g['rules']} {g['num_players']}p, {g['games']:,} games per "
        f"opponent (seats rotated), seed {g['seed']}:",
        "",
        *table(["opponent", "group", "win share [95% CI]", "mean score"], rows),
        summary + ".",
        "",
    ]


def gauntlet_page(records: list[Record]) -> list[str]:
    lines = [
        "Each table: the agent against `N - 1` copies of each opponent, its win share with",
        "the Wilson 95% interval (see [the gauntlet](../agents.md)).",
        "",
    ]
    for name, record in records:
        lines += [f"## {name}", ""]
        for g in gauntlets(record["result"]):
            lines += gauntlet_table(g)
        lines += provenance("gauntlet", name, record)
    return lines


def headline(records: list[Record]) -> list[str]:
    """One line per gauntlet: what the README shows."""
    rows = []
    for _, record in records:
        for g in gauntlets(record["result"]):
            cells = {c["opponent"]: c for c in g["cells"]}
            worst = g["rule_based_worst"]
            rows.append([
                g["agent"], f"{g['rules']} {g['num_players']}p ({g['fair_share']:.3f})",
                share(cells["random"]) if "random" in cells else "",
                "" if worst is None else f"{worst['opponent']} {share(worst)}",
                "" if g["rule_based_mean"] is None else f"{g['rule_based_mean']:.3f}", g["games"],
            ])  # fmt: skip
    header = ["agent", "table (fair share)", "vs random", "worst style", "mean", "games"]
    return table(header, rows)


def training_page(records: list[Record]) -> list[str]:
    lines = []
    for name, record in records:
        curve = record["result"]["metrics"]
        columns = [c for c in curve[0] if c != "wall_time_s"] if curve else []
        lines += [f"## {name}", "", "Learning curve (`metrics.csv` of the run):", ""]
        lines += table([c.removeprefix("eval/") for c in columns], ([row.get(c) for c in columns]
                       for row in curve))  # fmt: skip
        final = record["result"].get("final_eval")
        if final:
            lines += ["Final gauntlet (`final_eval.json` of the run):", ""]
            for g in gauntlets(final):
                lines += gauntlet_table(g)
            if final.get("nash_conv"):
                line = nash_conv_line(final["nash_conv"])
                lines += [f"From `final_eval.txt` (`final_nashconv`): {line}.", ""]
        lines += provenance("training", name, record)
    return lines


CURVE_MEASURE = {True: "whole game, outcome", False: "one round, markers"}
"""A curve's measure where its record predates ``measure`` (by whether the table has 2
players)."""


def recorded_beside(nashconv: list[Record]) -> dict[tuple[str, bool], str]:
    """Per table and measure (whole game or not), the agents' exact NashConvs that the
    ``nashconv`` records hold, for a curve to be read against."""
    found: dict[tuple[str, bool], list[str]] = {}
    for _, record in nashconv:
        r = record["result"]
        key = (f"{r['rules']}-{r['players']}p", r["whole_game"])
        found.setdefault(key, []).append(f"{r['agent']} {r['nash_conv']:.4f}")
    return {key: ", ".join(sorted(agents)) for key, agents in found.items()}


def curves_page(records: list[Record], nashconv: list[Record]) -> list[str]:
    """``benchmarks/nashconv_curves.py`` records: per table and method, the median over
    the seeds of the last and the lowest NashConv, each seed's, the agents' exact figures
    on the same measure (the ``nashconv`` records), and the curves' plot where it is kept
    beside the record (``data/curves/<name>.png``)."""
    beside = recorded_beside(nashconv)
    lines = [
        "NashConv against learner steps of training methods (configs) on one budget, several",
        "seeds each (`benchmarks/nashconv_curves.py`): the whole game where the runs measured",
        "it (outcome; at 2 players, and at 3 with `exploit_whole_game`), else one round from",
        "the start of a game (markers), as the table's measure column says. The command",
        "reuses the runs its `--work` folder already holds, so it can take seconds; the",
        "table's training column is the time the runs trained. Beside each row, the agents'",
        "exact NashConv on the same table and measure from [Exploitability](nashconv.md).",
        "The plot: against learner steps the seeds' median (line) and range (shaded);",
        "against the seconds each run trained, a line per seed.",
        "",
    ]
    for name, record in records:
        rows = []
        for table_name, methods in record["result"]["tables"].items():
            for method, found in methods.items():
                runs = found["seeds"]
                last = statistics.median(v[-1] for v in runs.values())
                low = statistics.median(min(v) for v in runs.values())
                measure = found.get("measure") or CURVE_MEASURE[table_name.endswith("-2p")]
                rows.append([
                    table_name, method, measure, found["steps"][-1], f"{last:.4f}", f"{low:.4f}",
                    ", ".join(f"{v[-1]:.4f}" for v in runs.values()),
                    sum(found.get("seconds", {}).values()),
                    beside.get((table_name, measure.startswith("whole game")), ""),
                ])  # fmt: skip
        lines += [f"## {name}", ""]
        header = ["table", "method", "measure", "steps", "median last", "median lowest",
                  "each seed's last", "training s, seeds summed", "beside it"]  # fmt: skip
        lines += table(header, rows)
        if (DATA / "curves" / f"{name}.png").is_file():
            lines += [f"![NashConv against steps, {name}](data/curves/{name}.png)", ""]
        lines += provenance("curves", name, record)
    return lines


def sweeps_page(records: list[Record]) -> list[str]:
    """``grove-sweep --json`` records: the ten best trials, what mattered, the fresh seeds."""
    lines = [
        "Sweeps of the trainer's settings (`grove-sweep`, `configs/sweeps/`): Optuna's TPE",
        "draws settings, each trial trains on a fixed budget, and its value is the exact",
        "NashConv of the policy it ends with (the whole game at 2 players, outcome units).",
        "The best settings are then re-run on seeds the sweep did not use.",
        "",
    ]
    for name, record in records:
        result = record["result"]
        lines += [f"## {name}: {result['table']}, {result['budget']:,} steps a trial", ""]
        names = list(result["importances"]) or sorted(
            {k for t in result["trials"] for k in t["params"]}
        )
        rows = [
            [rank, t["trial"], t["nash_conv"], t["seconds"]] + [t["params"].get(n) for n in names]
            for rank, t in enumerate(result["trials"][:10], start=1)
        ]
        lines += [
            f"The ten best of {len(result['trials'])} trials (NashConv of the "
            f"{result['objective']} iterate, median over seeds {result['seeds']}):",
            "",
        ]
        lines += table(["rank", "trial", "NashConv", "s", *names], rows)
        if result["importances"]:
            lines += ["What mattered (fANOVA: the share of the NashConv's variance across",
                      "trials that each setting explains):", ""]  # fmt: skip
            lines += table(["setting", "importance"], list(result["importances"].items()))
        fresh_rows = [
            [label, found["sweep_value"], *summary.values()]
            for label, found in result["fresh"].items()
            for summary in [last_iterates(found)]
            if summary is not None
        ]
        if fresh_rows:
            lines += ["The best settings on fresh seeds (NashConv of the last iterate):", ""]
            header = ["setting", "in the sweep", "steps", "median", "lowest", "highest", "seeds"]
            lines += table(header, fresh_rows)
        if (DATA / "sweeps" / f"{name}.png").is_file():
            lines += [f"![NashConv against steps and time, {name}](data/sweeps/{name}.png)", ""]
        lines += provenance("sweeps", name, record)
    return lines


def benchmark_page(records: list[Record]) -> list[str]:
    """The benchmarks: each record's figures in named columns (:mod:`results_tables`)."""
    lines = []
    for name, record in records:
        lines += [f"## {name}", ""]
        lines += benchmark_tables(record["command"], record["result"])
        lines += provenance("benchmark", name, record)
    return lines


PAGE_MAKERS: dict[str, Callable[[list[Record]], list[str]]] = {
    "gauntlet": gauntlet_page,
    "nashconv": nashconv_page,
    "training": training_page,
    "sweeps": sweeps_page,
    "benchmark": benchmark_page,
}


def page(
    kind: str,
    records: list[Record],
    nash_convs: NashConvs | None = None,
    nashconv: list[Record] | None = None,
    bounds: Bounds | None = None,
) -> str:
    """The MyST text of ``docs/results/<kind>.md`` (the league's with ``nash_convs``, the
    learned best responses' with the ``nashconv`` records, the exploitability page's with
    the learned lower ``bounds`` where nothing exact is recorded)."""
    maker = PAGE_MAKERS.get(kind, benchmark_page)
    if kind == "nashconv":
        maker = lambda found: nashconv_page(found, bounds or {})  # noqa: E731
    if kind == "league":
        maker = lambda found: league_page(found, nash_convs or {})  # noqa: E731
    if kind == "curves":
        maker = lambda found: curves_page(found, nashconv or [])  # noqa: E731
    if kind == "bestresponse":
        maker = lambda found: bestresponse_page(found, nashconv or [])  # noqa: E731
    body = maker(records) if records else ["No records yet (see [Results](index.md))."]
    head = [
        f"# {TITLES.get(kind, kind.capitalize())}",
        "",
        "<!-- Written by scripts/results_pages.py from docs/results/data; do not edit. -->",
        "",
        f"Generated from `docs/results/data/{kind}/*.json` by `scripts/results_pages.py`.",
        "",
    ]
    return "\n".join(head + body).rstrip("\n") + "\n"


def readme_text(readme: str, kinds: dict[str, list[Record]]) -> str:
    block = "\n".join(headline(kinds.get("gauntlet", [])))
    return HEADLINE.sub(lambda m: m.group(1) + block + m.group(2), readme)


def outputs(
    data: Path = DATA, pages: Path = PAGES, readme: Path = README, zoo: Path = ZOO
) -> dict[Path, str]:
    """Every page this script writes, with its text."""
    kinds = {kind: [] for kind in TITLES} | load(data)
    cards = zoo_cards(zoo)
    nash_convs = exact_nash_convs(kinds["nashconv"], cards)
    bounds = lower_bounds(kinds["bestresponse"])
    out = {
        pages / f"{kind}.md": page(kind, records, nash_convs, kinds["nashconv"], bounds)
        for kind, records in kinds.items()
    }
    out[pages / "zoo-cards.md"] = zoo_page(cards, bounds)
    if readme.exists():
        out[readme] = readme_text(readme.read_text(), kinds)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true", help="exit 1 if a page is stale")
    args = p.parse_args(argv)
    try:
        wanted = outputs()
    except (ValueError, KeyError, json.JSONDecodeError) as exc:
        print(f"results_pages: {exc}", file=sys.stderr)
        return 1
    stale = [path for path, text in wanted.items()
             if not path.exists() or path.read_text() != text]  # fmt: skip
    for path in stale:
        rel = path.relative_to(ROOT)
        if args.check:
            print(f"stale: {rel} (run python scripts/results_pages.py)", file=sys.stderr)
        else:
            path.write_text(wanted[path])
            print(f"wrote {rel}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
