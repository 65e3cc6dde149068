"""The NashConv pages, a part of :mod:`results_pages`: the exploitability page (the exact
``nashconv`` records, with a learned lower bound where no exact figure is recorded) and
the learned best responses' page (``python -m grove_env.training.bestresponse``
records): each lower bound, with the exact NashConv and the share recovered beside it
where the analysis has the exact figure."""

from __future__ import annotations

from results_records import Record, provenance, run_on, table
from results_tables import Bounds, at_least


def lower_bounds(records: list[Record]) -> Bounds:
    """Each learned lower bound by table, game and agent; where several records measure the
    same, the highest (each is a valid bound)."""
    out: Bounds = {}
    for _, record in records:
        r = record["result"]
        key = (r["rules"], r["players"], r["whole_game"], r["agent"])
        out[key] = max(out.get(key, r["lower_bound"]), r["lower_bound"])
    return out


def bestresponse_page(records: list[Record], nashconv: list[Record]) -> list[str]:
    """``python -m grove_env.training.bestresponse --json`` records: each bound, and the
    exact NashConv beside it where the analysis has it (the record's own ``--exact``, or
    the exploitability page's ``nashconv`` record of the same agent and game)."""
    exact = {
        (r["rules"], r["players"], r["whole_game"], r["agent"]): r["nash_conv"]
        for _, rec in nashconv
        for r in [rec["result"]]
    }
    rows, made = [], []
    for name, record in records:
        r = record["result"]
        found = (r.get("exact") or {}).get("nash_conv")
        found = exact.get((r["rules"], r["players"], r["whole_game"], r["agent"]), found)
        low, high = r["lower_bound_interval"]
        ratio = (
            ""
            if not found
            else f"{r['lower_bound'] / found:.3f} [{low / found:.3f}, {high / found:.3f}]"
        )
        rows.append([
            name, r["rules"], r["players"], "whole game" if r["whole_game"] else "one round",
            f"`{r['agent']}`", f"{r['lower_bound']:.4f} [{low:.4f}, {high:.4f}]",
            "" if not found else f"{found:.4f}", ratio, r["steps"], r["seconds_per_seat"],
        ])  # fmt: skip
        made += [f"### {name}", "", *provenance("bestresponse", name, record)]
    return [
        "A best response learned by PPO (`python -m grove_env.training.bestresponse`, the",
        "trainer's front door) against `n - 1` copies of the frozen policy, then each seat",
        "played in fresh games: the sum of the seats' gains is a **lower bound** on NashConv",
        "(95% interval over the games), the measure where the exact one is out of reach (the",
        "whole game beyond 3 players). Where the exact figure exists it stands beside the",
        "bound, with the share recovered: that is how the bound is checked.",
        "",
        *table(
            [
                "record",
                "rules",
                "players",
                "game",
                "policy",
                "lower bound [95%]",
                "exact",
                "recovered [95%]",
                "steps",
                "s per seat",
            ],
            rows,
        ),  # fmt: skip
        "## How each figure was made",
        "",
        *made,
    ]


AGENT_ORDER = ("random", "greedy", "heuristic", "heuristic-trust", "zoo", "cfr", "cfr-round")


def column(agent: str) -> str:
    """The exploitability table's column of an agent spec: ``zoo:<table>`` is ``zoo``."""
    return "zoo" if agent.startswith("zoo:") else agent


def game_unit(whole_game: bool) -> str:
    """The exploitability table's game column: the whole game pays ``outcome``, a round
    ``markers``."""
    return "whole game, outcome" if whole_game else "one round, markers"


def nashconv_page(records: list[Record], bounds: Bounds | None = None) -> list[str]:
    """The exact records, and beside them the learned lower ``bounds`` (``≥ x``) of the
    cells that have no exact record (the whole game beyond 3 players)."""
    four = "{:.4f}".format  # one format for every NashConv
    cells: dict[tuple[str, int, str], dict[str, str]] = {}
    for _, record in records:
        r = record["result"]
        cell = (r["rules"], r["players"], game_unit(r["whole_game"]))
        cells.setdefault(cell, {})[column(r["agent"])] = four(r["nash_conv"])
    for (rules, players, whole, agent), bound in (bounds or {}).items():
        cell = (rules, players, game_unit(whole))
        cells.setdefault(cell, {}).setdefault(column(agent), at_least(bound))
    found = {a for v in cells.values() for a in v}
    agents = [a for a in AGENT_ORDER if a in found] + sorted(found - set(AGENT_ORDER))
    rows = [
        [rules, players, game, *(v.get(a, "") for a in agents)]
        for (rules, players, game), v in sorted(cells.items())
    ]
    made = [
        [name, four(r["nash_conv"]), f"{r['seconds']:.1f} s, {r['peak_mb']} MB",
         f"`{record['command']}`", run_on(record)]
        for name, record in records
        for r in [record["result"]]
    ]  # fmt: skip
    return [
        "NashConv of each agent playing every seat: the sum over seats of what a seat gains",
        "by its exact best response (0 is an equilibrium). One round pays the `markers`",
        "reward; the whole game the `outcome` reward, from -1 to 1. `zoo` is the table's",
        "shipped policy (`zoo:<rules>-<n>p`). A blank cell is a figure not measured: the",
        "whole game is exact at 2 and 3 players only, and `cfr` plays the tables it ships",
        "a solution for (`cfr-round`: 2 players). Where no exact figure is recorded, `≥ x` is",
        "a learned best response's lower bound ([its page](bestresponse.md)).",
        "",
        *table(["rules", "players", "game, unit", *agents], rows),
        "## How each figure was made",
        "",
        "Each row is one record, `docs/results/data/nashconv/<record>.json`.",
        "",
        *table(["record", "NashConv", "time, peak memory", "command", "run"], made),
    ]
