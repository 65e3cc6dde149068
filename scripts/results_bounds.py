"""The learned best responses' page (``python -m grove_env.training.bestresponse``
records): each lower bound, with the exact NashConv and the share recovered beside it
where the analysis has the exact figure. A part of :mod:`results_pages`."""

from __future__ import annotations

from results_records import Record, provenance, table
from results_tables import Bounds


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
