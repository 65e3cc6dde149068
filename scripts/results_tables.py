"""Tables of the results pages that are not about one measurement kind's figures alone:
the benchmarks, in named columns with units, and the zoo's cards.

``scripts/results_pages.py`` calls :func:`benchmark_tables` for every record under
``docs/results/data/benchmark``; the benchmark is known by its command's script
(``benchmarks/<name>.py``). Each column has one number format (:data:`FORMATS`), and a
blank cell is explained under its table. A benchmark without a table of its own gets
one row per figure, named in words (never a dotted JSON key).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from grove_env.agents.learned.policy_files import ZOO_CARD, parse_zoo_table, zoo_dir, zoo_tables

Rows = list[list[Any]]
FORMATS = {
    "rate": "{:,.0f}",  # per second
    "ratio": "{:.2f}",
    "share": "{:.3f}",
    "nashconv": "{:.4f}",
    "seconds": "{:.1f}",
    "ms": "{:.1f}",
    "mb": "{:,.0f}",
    "count": "{:,}",
    "text": "{}",
}
"""How each kind of column prints its numbers: one format per column."""


def cell(value: Any, kind: str) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if kind == "text" or not isinstance(value, (int, float)):
        return str(value).replace("|", "\\|")
    return FORMATS[kind].format(value)


def grid(columns: Sequence[tuple[str, str]], rows: Rows, blank: str = "") -> list[str]:
    """A Markdown table: ``columns`` are ``(name with unit, kind)``; ``blank`` says what an
    empty cell means (written under the table when one occurs)."""
    lines = ["| " + " | ".join(name for name, _ in columns) + " |", "|" + "---|" * len(columns)]
    shown = [[cell(v, kind) for v, (_, kind) in zip(row, columns)] for row in rows]
    lines += ["| " + " | ".join(row) + " |" for row in shown]
    if blank and any("" in row for row in shown):
        lines += ["", f"A blank cell is {blank}."]
    return lines + [""]


def aec_throughput(r: dict[str, Any]) -> list[str]:
    ratios = r["ratio_grove_v1_to"]
    rows = [[env, rate, ratios.get(env)] for env, rate in r["median_decisions_per_s"].items()]
    columns = [("environment", "text"), ("decisions/s (median)", "rate"),
               ("grove_v1 ÷ this env", "ratio")]  # fmt: skip
    return grid(columns, rows, "grove_v1 itself, which the others are compared against")


def exploitability(r: dict[str, Any]) -> list[str]:
    rows = [
        [e["rules"], e["players"], e["agent"], "whole game" if e["whole_game"] else "one round",
         e["unit"], e["nash_conv"], " / ".join(f"{g:.4f}" for g in e["gains"]), e["seconds"],
         e["peak_mb"]]
        for e in r["nashconv"]
    ]  # fmt: skip
    columns = [("rules", "text"), ("players", "count"), ("agent", "text"), ("measured", "text"),
               ("unit", "text"), ("NashConv", "nashconv"), ("gain per seat", "text"),
               ("time (s)", "seconds"), ("peak memory (MB)", "mb")]  # fmt: skip
    return grid(columns, rows)


def heuristic_batch(r: dict[str, Any]) -> list[str]:
    columns = [("one at a time (decisions/s)", "rate"), ("in a batch (decisions/s)", "rate"),
               ("batch ÷ one at a time", "ratio")]  # fmt: skip
    return grid(columns, [[r["single"], r["batch"], r["ratio"]]])


def train_throughput(r: dict[str, Any]) -> list[str]:
    rows = [
        [backend, setting.replace("_", " "), m["collect"], m["iteration"], m["cpu_per_wall"],
         m["threads"]]
        for backend in ("sb3", "batched")
        for setting, m in r.get(backend, {}).items()
    ]  # fmt: skip
    columns = [("backend", "text"), ("opponents", "text"), ("collection (steps/s)", "rate"),
               ("collection + update (steps/s)", "rate"), ("CPU time ÷ wall time", "ratio"),
               ("threads", "count")]  # fmt: skip
    lines = grid(columns, rows)
    ratios = [[s.replace("_", " "), m["collect"], m["iteration"]] for s, m in r["ratio"].items()]
    lines += grid([("opponents", "text"), ("batched ÷ sb3, collection", "ratio"),
                   ("batched ÷ sb3, collection + update", "ratio")], ratios)  # fmt: skip
    settings = r.get("batched_settings")
    if settings:
        lines += [
            "Batched: " + ", ".join(f"`{k}: {json.dumps(v)}`" for k, v in settings.items()) + ".",
            "",
        ]
    return lines


def vector_throughput(r: dict[str, Any]) -> list[str]:
    rows = [
        [int(b.removeprefix("B=")), m["decisions_per_s"], m["with_observe"], m["x_aec"]]
        for b, m in r["engine"].items()
    ]
    columns = [("games at once", "count"), ("decisions/s", "rate"),
               ("with observations (decisions/s)", "rate"), ("÷ the AEC env", "ratio")]  # fmt: skip
    lines = [f"The AEC env (`grove_v1`): {r['grove_v1_decisions_per_s']:,.0f} decisions/s.", ""]
    lines += grid(columns, rows)
    memory = next((v for k, v in r.items() if k.startswith("memory_")), None)
    if memory:
        size = next(k for k in r if k.startswith("memory_")).removeprefix("memory_B=")
        lines += grid(
            [("games at once", "count"), ("traced peak (MB)", "mb"),
             ("resident before (MB)", "mb"), ("resident peak (MB)", "mb")],
            [[int(size), memory["tracemalloc_peak_mb"], memory["rss_before_mb"],
              memory["peak_rss_mb"]]],
        )  # fmt: skip
    return lines


def web_load(r: dict[str, Any]) -> list[str]:
    columns = [("clients", "count"), ("time (s)", "seconds"), ("requests", "count"),
               ("requests/s", "seconds"), ("p50 (ms)", "ms"), ("p95 (ms)", "ms"),
               ("max (ms)", "ms"), ("games", "count"), ("errors", "count")]  # fmt: skip
    keys = ["clients", "seconds", "requests", "requests_per_s", "p50_ms", "p95_ms", "max_ms",
            "games", "errors"]  # fmt: skip
    lines = grid(columns, [[r[k] for k in keys]])
    if "probe_p50_ms" in r:
        lines += [f"A probe request beside the load: p50 {r['probe_p50_ms']:.1f} ms, p95 "
                  f"{r['probe_p95_ms']:.1f} ms.", ""]  # fmt: skip
    return lines


TABLES: dict[str, Callable[[dict[str, Any]], list[str]]] = {
    "aec_throughput": aec_throughput,
    "exploitability": exploitability,
    "heuristic_batch": heuristic_batch,
    "train_throughput": train_throughput,
    "vector_throughput": vector_throughput,
    "web_load": web_load,
}


def words(path: Iterable[Any]) -> str:
    """A JSON key path in words: ``("median_decisions_per_s", "x")`` -> ``median decisions per
    s, x``."""
    return ", ".join(str(k).replace("_", " ") for k in path)


def leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in leaves(v, (*path, k))]
    if isinstance(value, list):
        return [leaf for k, v in enumerate(value) for leaf in leaves(v, (*path, k + 1))]
    return [(path, value)]


def benchmark_tables(command: str, result: dict[str, Any]) -> list[str]:
    """The tables of one benchmark record (its command names the benchmark)."""
    script = re.search(r"benchmarks/(\w+)\.py", command)
    maker = TABLES.get(script.group(1)) if script else None
    if maker is not None:
        return maker(result)
    rows = [[words(path), value] for path, value in leaves(result)]
    return grid([("figure", "text"), ("value", "text")], rows)


def share(cell: dict[str, Any]) -> str:
    return f"{cell['win_share']:.3f} [{cell['ci_low']:.3f}, {cell['ci_high']:.3f}]"


PLAYS = {"greedy": "its likeliest move", "sample": "draws from its odds"}
"""How a policy chooses its move (its card's ``play``), in words: not the ``greedy`` agent."""


def zoo_cards(zoo: Path) -> list[tuple[str, dict[str, Any] | None]]:
    """``(table, card or None)`` for every table, from the shipped zoo's cards."""
    out: list[tuple[str, dict[str, Any] | None]] = []
    for table in zoo_tables():
        path = zoo_dir(table, zoo) / ZOO_CARD
        out.append((table, json.loads(path.read_text()) if path.is_file() else None))
    return out


Bounds = dict[tuple[str, int, bool, str], float]
"""``(rules, players, whole game, agent spec) -> lower bound`` (``results_bounds.lower_bounds``)."""


def at_least(bound: float) -> str:
    """A learned lower bound as the pages show it beside exact figures. NashConv is never
    below 0, so a learned response that gained nothing (a sum of gains at or below 0,
    within noise of it) says no more than that: ``≥ 0``, its own figure on the bounds'
    page."""
    return f"≥ {bound:.4f}" if bound > 0 else "≥ 0 (no gain found)"


def whole_game(card: dict[str, Any], bounds: Bounds) -> Any:
    """The zoo card's whole-game cell: its exact NashConv, else ``≥`` a learned bound."""
    exact = card["nash_conv"]["whole_game_outcome"]
    rules, players = parse_zoo_table(card["table"])
    bound = bounds.get((rules, players, True, card["spec"]))
    return exact if exact is not None or bound is None else at_least(bound)


def zoo_page(
    cards: list[tuple[str, dict[str, Any] | None]],
    bounds: Bounds | None = None,
) -> str:
    """The MyST text of ``docs/results/zoo-cards.md``: one row per table from its card.

    The whole game's cell is the card's exact figure, else the learned lower bound of the
    card's policy from ``bounds`` (``results_bounds.lower_bounds``), shown as ``≥ x``."""
    rows, sources = [], []
    for name, card in cards:
        if card is None:
            rows.append([name, "not shipped", "", "", "", "", "", "", ""])
            continue
        nc, g = card["nash_conv"], card["gauntlet"]
        cells = {c["opponent"]: c for c in g["cells"]}
        worst = g["rule_based_worst"]
        rows.append([
            f"`{card['spec']}`", PLAYS[card["config"]["as_used"].get("play", "greedy")],
            card["steps"],
            card["train_seconds"], nc["one_round_markers"], whole_game(card, bounds or {}),
            "" if worst is None else f"{worst['opponent']} {share(worst)}",
            share(cells["heuristic"]) if "heuristic" in cells else "",
            share(cells["random"]) if "random" in cells else "",
        ])  # fmt: skip
        sources.append(
            f"- `{card['spec']}`: `{card['command']}` ({card['config']['file']}, seed "
            f"{card['seed']}, {g['games']:,} gauntlet games per opponent; fair share "
            f"{g['fair_share']:.3f})"
        )
    columns = [("policy", "text"), ("plays", "text"), ("steps", "count"),
               ("training (s)", "rate"), ("NashConv, one round (markers)", "nashconv"),
               ("NashConv, whole game (outcome)", "nashconv"), ("worst style", "text"),
               ("vs heuristic", "text"), ("vs random", "text")]  # fmt: skip
    blank = ("a figure not measured: NashConv is exact at 2 to 4 players only, the whole "
             "game at 2 and 3 only (at classic 3p it takes hours for a network); beyond, "
             "`≥ x` is a learned best response's lower bound (the learned best responses' "
             "page), and a blank one has not been run")  # fmt: skip
    lines = [
        "# The zoo",
        "",
        "<!-- Written by scripts/results_pages.py from grove_env/data/zoo; do not edit. -->",
        "",
        "The trained policy shipped for each table, as `zoo:<rules>-<n>p` plays it, from its",
        "card (`grove_env/data/zoo/<rules>_<n>p/card.json`, written by `scripts/zoo.py`,",
        "which `make zoo` runs): exact NashConv of one round from the start of a game (2 to",
        "4 players) and of the whole game (2 players and revised 3; a learned lower bound",
        "`≥ x` at 4 and 5), and the gauntlet's win shares",
        "with their 95% intervals. The exploitability page puts random and the heuristic",
        "beside them.",
        "",
        *grid(columns, rows, blank),
        *(["How each was made:", "", *sources] if sources else []),
    ]
    return "\n".join(lines).rstrip("\n") + "\n"
