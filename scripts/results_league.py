"""The league page: ``grove-league``'s Bradley–Terry ratings beside the exact one-round
NashConv already measured for each agent (the ``nashconv`` records and the zoo's cards).
Nothing is computed here; ``scripts/results_pages.py`` writes ``docs/results/league.md``.
"""

from __future__ import annotations

from typing import Any

from results_records import Record, provenance, table  # scripts/, beside this one

NashConvs = dict[tuple[str, int, str], float]  # (rules, players, spec) -> one round, markers


def exact_nash_convs(
    nashconv: list[Record], cards: list[tuple[str, dict[str, Any] | None]]
) -> NashConvs:
    """The one-round NashConv (markers) already measured for each agent and table: the
    ``nashconv`` records and the zoo's cards. Nothing is computed here."""
    found: NashConvs = {}
    for _, record in nashconv:
        r = record["result"]
        if not r["whole_game"]:
            found[(r["rules"], r["players"], r["agent"])] = r["nash_conv"]
    for name, card in cards:
        if card is not None and card["nash_conv"].get("one_round_markers") is not None:
            rules, _, players = name.partition("-")
            found[(rules, int(players[:-1]), card["spec"])] = card["nash_conv"]["one_round_markers"]
    return found


def league_page(records: list[Record], nash_convs: NashConvs) -> list[str]:
    """``grove-league`` records: one table per table of the game, best first."""
    lines = [
        "Every shipped agent that sits at the table (and any added with `--agent`) in",
        "seat-rotated games across the pool; one Bradley–Terry model (`choix`) fitted to the",
        "pairwise results by final rank, on the Elo scale with `random` at 0, and 95%",
        "intervals from a bootstrap over games (`grove_env.agents.arena.league`). NashConv:",
        "the agent's exact one-round NashConv (markers) at that table where it has been",
        "measured ([Exploitability](nashconv.md), [the zoo](zoo-cards.md)); blank where not.",
        "A command with `--results` resumes the league kept there: its time is that of the",
        "games it added.",
        "",
    ]
    for name, record in records:
        r = record["result"]
        found = [nash_convs.get((r["rules"], r["num_players"], a["agent"])) for a in r["agents"]]
        rows = [
            [a["agent"], f"{a['rating']:.0f}", f"[{a['ci_low']:.0f}, {a['ci_high']:.0f}]",
             a["games"], "" if nc is None else f"{nc:.4f}"]  # one format for every NashConv
            for a, nc in zip(r["agents"], found)
        ]  # fmt: skip
        lines += [f"## {r['rules']} {r['num_players']}p ({name})", ""]
        lines += [f"{r['games']:,} games ({r['blocks']:,} line-ups of {r['num_players']}, "
                  f"seats rotated), seed {r['seed']}; {r['interval']}.", ""]  # fmt: skip
        lines += table(["agent", "rating", "95% CI", "games", "NashConv one round"], rows)
        lines += [f"Note: {n}" for n in r["notes"]] + ([""] if r["notes"] else [])
        lines += provenance("league", name, record)
    return lines
