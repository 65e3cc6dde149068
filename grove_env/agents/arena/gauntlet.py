"""The gauntlet: one agent against ``N - 1`` copies of each playing style, seats rotated.

Command line (:mod:`grove_env.agents.cli.gauntlet`, installed as ``grove-gauntlet``)::

    python -m grove_env.agents.cli.gauntlet --agent heuristic --rules classic --players 4 \\
        --games 2000 --seed 0 --workers 2 --json gauntlet.json --plot gauntlet.png

For each opponent style the agent plays one :func:`grove_env.agents.arena.tournament.run_tournament`
(the agent's spec first, then ``N - 1`` copies of the style; every entry plays every
seat equally often), and the gauntlet reports the agent's win share against that style
with its Wilson 95% interval, beside the fair share ``1 / N``.

The opponents come in two groups. The *rule-based* styles (:data:`RULE_BASED`:
``random``, ``greedy`` and the styles of :mod:`grove_env.agents.scripted.styles`) give the
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

import json
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field
from typing import Any

from grove_env.rules import get_rules

from ..base import agent_names, make_agent, parse_spec
from ..learned.cfr_agent import data_file
from ..scripted.styles import STYLE_NAMES
from .tournament import run_tournament, worker_pool
from .tournament_plot import Bar, plot_win_shares

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
    def mean(self) -> float | None:
        """Mean win share over the rule-based styles (``None``: none was played)."""
        cells = self.rule_based
        return sum(c.win_share for c in cells) / len(cells) if cells else None

    @property
    def worst(self) -> GauntletCell | None:
        """The rule-based style the agent does worst against (``None``: none was played)."""
        return min(self.rule_based, key=lambda c: c.win_share, default=None)

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
        worst, summary = self.worst, f"fair share {self.fair_share:.3f}"
        if worst is not None:
            summary += (
                f"; over the {len(self.rule_based)} rule-based styles: mean {self.mean:.3f}, "
                f"worst {worst.win_share:.3f} [{worst.ci_low:.3f}, {worst.ci_high:.3f}] "
                f"against {worst.opponent}"
            )
        lines += ["", summary]
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
            "rule_based_worst": (
                None if worst is None else {"opponent": worst.opponent, **_figures(worst)}
            ),
            "cells": [asdict(c) for c in self.cells],
            "notes": list(self.notes),
        }

    def save_json(self, path: str) -> None:
        save_json(self.to_dict(), path)

    def plot(self, path: str) -> None:
        """Bar chart of win share per opponent with 95% intervals, fair share and mean."""
        bars = [
            Bar(c.opponent, c.win_share, c.ci_low, c.ci_high, grey=not c.rule_based)
            for c in self.cells
        ]
        title = (
            f"{self.agent} vs {self.num_players - 1} of each: {self.rules}, "
            f"{self.games} games each (grey: references)"
        )
        plot_win_shares(path, bars, self.fair_share, title, mean=self.mean, slanted=True)


def save_json(summary: dict[str, Any], path: str) -> None:
    """Write a gauntlet's (or several gauntlets') summary as indented JSON."""
    with open(path, "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=2)
        f.write("\n")


def _figures(c: GauntletCell) -> dict[str, float]:
    return {"win_share": c.win_share, "ci_low": c.ci_low, "ci_high": c.ci_high}


def lineup(rules: str, num_players: int) -> tuple[list[tuple[str, bool]], list[str]]:
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


def _checked_lineup(
    spec: str, rules: str, num_players: int, seed: int, opponents: Sequence[str] | None
) -> tuple[list[tuple[str, bool]], list[str]]:
    """The opponents :func:`run_gauntlet` plays (``(spec, rule-based)``) and its notes, once
    the agent and every opponent are known to be playable: ``ValueError`` before any game."""
    parse_spec(spec)
    try:
        make_agent(spec, seed=seed)
    except ImportError as exc:
        raise ValueError(f"agent {spec!r} is not available here: {exc}") from None
    if opponents is None:
        return lineup(get_rules(rules).name, num_players)
    if not opponents:
        raise ValueError("opponents lists no agent")
    for o in opponents:
        parse_spec(o)
    return [(o, o in RULE_BASED) for o in opponents], []


def run_gauntlet(
    spec: str,
    rules: str = "classic",
    num_players: int = 4,
    games: int = 2000,
    seed: int = 0,
    workers: int = 1,
    opponents: Sequence[str] | None = None,
) -> GauntletResult:
    """Play ``spec`` against ``num_players - 1`` copies of every opponent style.

    ``opponents`` replaces the lineup (:func:`lineup`) with these specs, in this order
    (say ``["random"]`` for the agent against ``N - 1`` random seats); a rule-based
    style among them counts towards the mean and the worst case. ``games`` per opponent
    is rounded up to a multiple of ``num_players`` as in :func:`run_tournament`. Raises
    ``ValueError`` for a bad configuration (checked before any game) and
    :class:`TournamentError` if an agent plays a masked action.
    """
    spec = spec.strip() if isinstance(spec, str) else spec
    played, notes = _checked_lineup(spec, rules, num_players, seed, opponents)
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
