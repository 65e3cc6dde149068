"""The gauntlet: one agent against ``N - 1`` copies of each playing style, seats rotated.

Command line (also installed as ``grove-gauntlet``)::

    python -m grove_env.agents.gauntlet --agent heuristic --rules classic --players 4 \\
        --games 2000 --seed 0 --workers 2 --json gauntlet.json --plot gauntlet.png

For each opponent style the agent plays one :func:`grove_env.agents.tournament.run_tournament`
(the agent's spec first, then ``N - 1`` copies of the style; every entry plays every
seat equally often), and the gauntlet reports the agent's win share against that style
with its Wilson 95% interval, beside the fair share ``1 / N``.

The opponents come in two groups. The *rule-based* styles (:data:`RULE_BASED`:
``random``, ``greedy`` and the styles of :mod:`grove_env.agents.styles`) give the
**mean** and the **worst case**, the figures to hold an agent to. The *reference*
agents (:data:`REFERENCES`: ``heuristic``, its variant ``heuristic-trust``, and ``cfr``
where it ships a strategy) are reported separately: the heuristic may be the agent
itself, and nobody is expected to beat a near-equilibrium strategy on average. An
unregistered reference is skipped with a note. Every cell uses the same seed, so the
cells share their deals.

:func:`run_gauntlet` is the importable entry point (training picks its best policy by
it); its :class:`GauntletResult` prints the table, writes JSON and a PNG bar chart.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field
from typing import Any

from grove_env.rules import get_rules

from .base import agent_names, make_agent, parse_spec
from .cfr import data_file
from .command_line import (
    EXIT_HELP,
    CommandError,
    Parser,
    agent_specs,
    build_agent,
    check_json_and_plot,
    refuse_human,
    run_command,
    usage_error,
    write_output,
)
from .styles import STYLE_NAMES
from .tournament import TournamentError, check_setup, run_tournament, worker_pool

RULE_BASED: tuple[str, ...] = ("random", "greedy", *STYLE_NAMES)
"""Opponent styles whose mean and worst case the gauntlet reports."""

REFERENCES: tuple[str, ...] = ("heuristic", "heuristic-trust", "cfr")
"""Reference opponents, reported apart from the rule-based styles (skipped if absent)."""


@dataclass(frozen=True)
class GauntletCell:
    """The agent's figures against ``num_players - 1`` copies of one opponent."""

    opponent: str
    rule_based: bool
    games: int
    win_share: float
    ci_low: float
    ci_high: float
    mean_score: float


@dataclass
class GauntletResult:
    """What :func:`run_gauntlet` returns: one cell per opponent played."""

    agent: str
    rules: str
    num_players: int
    games: int
    seed: int
    cells: list[GauntletCell]
    notes: list[str] = field(default_factory=list)

    @property
    def fair_share(self) -> float:
        return 1.0 / self.num_players

    @property
    def rule_based(self) -> list[GauntletCell]:
        return [c for c in self.cells if c.rule_based]

    @property
    def mean(self) -> float:
        """Mean win share over the rule-based styles."""
        cells = self.rule_based
        return sum(c.win_share for c in cells) / len(cells)

    @property
    def worst(self) -> GauntletCell:
        """The rule-based style the agent does worst against."""
        return min(self.rule_based, key=lambda c: c.win_share)

    def cell(self, opponent: str) -> GauntletCell:
        for c in self.cells:
            if c.opponent == opponent:
                return c
        raise KeyError(f"no cell {opponent!r}; opponents: {[c.opponent for c in self.cells]}")

    def table(self) -> str:
        """A fixed-width text table: one line per opponent, then the summary lines."""
        width = max(12, *(len(c.opponent) for c in self.cells))
        lines = [
            f"Gauntlet of {self.agent}: {self.rules} rules, {self.num_players} players, "
            f"{self.games} games per opponent (seats rotated), seed {self.seed}",
            "",
            f"{'opponent':<{width}}  win share  95% CI (Wilson)   mean score",
        ]
        for group, rule_based in (("rule-based styles", True), ("references", False)):
            cells = [c for c in self.cells if c.rule_based is rule_based]
            if cells:
                lines.append(f"-- {group}")
            for c in cells:
                lines.append(
                    f"{c.opponent:<{width}}  {c.win_share:9.3f}  [{c.ci_low:.3f}, {c.ci_high:.3f}]"
                    f"  {c.mean_score:11.2f}"
                )
        worst = self.worst
        lines += [
            "",
            f"fair share {self.fair_share:.3f}; over the {len(self.rule_based)} rule-based "
            f"styles: mean {self.mean:.3f}, worst {worst.win_share:.3f} "
            f"[{worst.ci_low:.3f}, {worst.ci_high:.3f}] against {worst.opponent}",
        ]
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able summary."""
        worst = self.worst
        return {
            "agent": self.agent,
            "rules": self.rules,
            "num_players": self.num_players,
            "games": self.games,
            "seed": self.seed,
            "fair_share": self.fair_share,
            "win_share_interval": "wilson-95",
            "rule_based_mean": self.mean,
            "rule_based_worst": {"opponent": worst.opponent, **_figures(worst)},
            "cells": [asdict(c) for c in self.cells],
            "notes": list(self.notes),
        }

    def save_json(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.to_dict(), f, indent=2)
            f.write("\n")

    def plot(self, path: str) -> None:
        """Bar chart of win share per opponent with 95% intervals, fair share and mean."""
        # Figure + Agg canvas directly: no pyplot, no global backend switch.
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        fig = Figure(figsize=(2.0 + 1.0 * len(self.cells), 4.2), dpi=100)
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        xs = list(range(len(self.cells)))
        shares = [c.win_share for c in self.cells]
        errs = [
            [c.win_share - c.ci_low for c in self.cells],
            [c.ci_high - c.win_share for c in self.cells],
        ]
        colours = ["#4c72b0" if c.rule_based else "#8c8c8c" for c in self.cells]
        ax.bar(xs, shares, yerr=errs, capsize=5, color=colours)
        ax.axhline(self.fair_share, color="#c44e52", linestyle="--", label="fair share")
        ax.axhline(self.mean, color="#55a868", linestyle=":", label="rule-based mean")
        ax.set_xticks(xs, [c.opponent for c in self.cells], rotation=30, ha="right")
        ax.set_ylabel("win share (95% Wilson interval)")
        ax.set_ylim(0, min(1.0, max(c.ci_high for c in self.cells) * 1.15 + 0.02))
        ax.set_title(
            f"{self.agent} vs {self.num_players - 1} of each: {self.rules}, "
            f"{self.games} games each (grey: references)"
        )
        ax.legend(loc="upper right")
        fig.tight_layout()
        fig.savefig(path)


def _figures(c: GauntletCell) -> dict[str, float]:
    return {"win_share": c.win_share, "ci_low": c.ci_low, "ci_high": c.ci_high}


def opponents(rules: str, num_players: int) -> tuple[list[tuple[str, bool]], list[str]]:
    """``(opponent, rule_based)`` pairs to play, and a note for each reference skipped."""
    known = set(agent_names())
    played = [(name, True) for name in RULE_BASED]
    notes = []
    for name in REFERENCES:
        if name not in known:
            notes.append(f"{name!r} is not a registered agent here; skipped")
        elif name == "cfr" and not data_file(rules, num_players).is_file():
            notes.append(f"'cfr' ships no solved strategy for {rules} with {num_players}; skipped")
        else:
            played.append((name, False))
    return played, notes


def run_gauntlet(
    spec: str,
    rules: str = "classic",
    num_players: int = 4,
    games: int = 2000,
    seed: int = 0,
    workers: int = 1,
) -> GauntletResult:
    """Play ``spec`` against ``num_players - 1`` copies of every opponent style.

    ``games`` per opponent is rounded up to a multiple of ``num_players`` as in
    :func:`run_tournament`. Raises ``ValueError`` for a bad configuration (checked
    before any game) and :class:`TournamentError` if an agent plays a masked action.
    """
    spec = spec.strip() if isinstance(spec, str) else spec
    parse_spec(spec)
    try:
        make_agent(spec, seed=seed)
    except ImportError as exc:
        raise ValueError(f"agent {spec!r} is not available here: {exc}") from None
    played, notes = opponents(get_rules(rules).name, num_players)
    cells = []
    total = games
    with ExitStack() as stack:
        # one pool for every cell: a worker's start (imports, torch) is paid once
        pool = stack.enter_context(worker_pool(workers)) if workers > 1 else None
        for opponent, rule_based in played:
            result = run_tournament(
                [spec] + [opponent] * (num_players - 1),
                rules=rules,
                num_players=num_players,
                games=games,
                seed=seed,
                workers=workers,
                pool=pool,
            )
            me = result.entries[0]
            total = result.games
            cells.append(
                GauntletCell(
                    opponent=opponent,
                    rule_based=rule_based,
                    games=result.games,
                    win_share=me.win_share,
                    ci_low=me.ci_low,
                    ci_high=me.ci_high,
                    mean_score=me.mean_score,
                )
            )
    return GauntletResult(spec, result.rules, num_players, total, seed, cells, notes)


# --------------------------------------------------------------------------- CLI
PROG = "grove-gauntlet"


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog=PROG,
        description="Play one agent against N-1 copies of each playing style with rotating\n"
        "seats; report its win share per style (Wilson 95% intervals), the mean and the\n"
        "worst case over the rule-based styles.",
        epilog=EXIT_HELP.format(
            failure="a model file missing or damaged,\nan output path that cannot be "
            "written, an agent that fails in a game"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--agent", required=True, help="the agent's spec, e.g. heuristic")
    p.add_argument("--rules", default="classic", help="classic (default) or revised")
    p.add_argument("--players", type=int, default=4, help="table size (default 4)")
    p.add_argument(
        "--games", type=int, default=2000, help="games per opponent style (default 2000)"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of every cell (default 0)")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--json", metavar="PATH", help="write the result as JSON")
    p.add_argument("--plot", metavar="PATH", help="write a win-share bar chart (PNG)")
    return p


def _check_inputs(args: argparse.Namespace) -> str:
    """The agent's spec, once every input and output is known good (:class:`CommandError`)."""
    (spec,) = agent_specs([args.agent], None)
    refuse_human([spec], "the gauntlet has no seat for a person; play one with grove-play")
    try:
        check_setup(
            [spec] * args.players,
            args.rules,
            args.players,
            args.games,
            args.seed,
            args.workers,
            max_rounds=100,
        )
    except ValueError as exc:
        raise usage_error(str(exc)) from None
    build_agent(spec, seed=args.seed)
    check_json_and_plot(args.json, args.plot)
    return spec


def _run(args: argparse.Namespace) -> int:
    spec = _check_inputs(args)
    try:
        result = run_gauntlet(
            spec,
            rules=args.rules,
            num_players=args.players,
            games=args.games,
            seed=args.seed,
            workers=args.workers,
        )
    except ValueError as exc:
        raise usage_error(str(exc)) from None
    except TournamentError as exc:
        raise CommandError(f"an agent failed: {exc}") from None
    print(result.table(), flush=True)
    if args.json:
        write_output(result.save_json, args.json, "--json")
        print(f"wrote {args.json}")
    if args.plot:
        write_output(result.plot, args.plot, "--plot")
        print(f"wrote {args.plot}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # argparse has printed its message
        return int(exc.code or 0)
    return run_command(PROG, lambda: _run(args))


if __name__ == "__main__":
    sys.exit(main())
