"""What a tournament leaves: per-game records, per-entry statistics and their report.

:func:`summarise` turns :class:`TournamentGame` s (in any order) into a
:class:`TournamentResult`, whose :meth:`~TournamentResult.table` is the fixed-width text
report and :meth:`~TournamentResult.to_dict` the JSON one. The statistics are those of
:mod:`grove_env.agents.arena.ratings`: win share with a Wilson 95% interval, mean final score,
mean reward, mean rank and OpenSkill Plackett-Luce ratings.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from .ratings import Z_95, openskill_ratings, wilson_interval, win_points
from .tournament_plot import Bar, plot_win_shares


@dataclass(frozen=True)
class TournamentGame:
    """One finished game, everything indexed by entry (not by seat)."""

    index: int
    seats: tuple[int, ...]  # seat of each entry
    ranks: tuple[int, ...]  # rank used for statistics (1 is best, ties share)
    scores: tuple[int, ...]  # final score count (fewer is better)
    rewards: tuple[float, ...]  # sum of the environment's rewards over the game
    truncated: bool
    rounds: int


@dataclass(frozen=True)
class EntryStats:
    """Per-entry figures over all games of a tournament."""

    label: str
    spec: str
    games: int
    win_points: float
    win_share: float
    ci_low: float
    ci_high: float
    mean_score: float
    mean_reward: float
    mean_rank: float
    seat_games: tuple[int, ...]
    mu: float
    sigma: float
    ordinal: float


@dataclass
class TournamentResult:
    """What :func:`run_tournament` returns; ``records`` holds every game."""

    rules: str
    num_players: int
    games: int
    games_requested: int
    seed: int
    max_rounds: int
    truncated_mode: str
    truncated: int
    mean_rounds: float
    entries: list[EntryStats]
    seat_win_share: list[float]
    records: list[TournamentGame] = field(default_factory=list, repr=False)

    @property
    def fair_share(self) -> float:
        return 1.0 / self.num_players

    def entry(self, label: str) -> EntryStats:
        """The stats of the entry with this label."""
        for e in self.entries:
            if e.label == label:
                return e
        raise KeyError(f"no entry {label!r}; entries: {[e.label for e in self.entries]}")

    def table(self) -> str:
        """A fixed-width text table, one line per entry."""
        width = max(5, *(len(e.label) for e in self.entries))
        lines = [
            f"In a Grove tournament: {self.rules} rules, {self.num_players} players, "
            f"{self.games} games ({self.games // self.num_players} seat rotations), "
            f"seed {self.seed}",
            f"truncated games (cut off at {self.max_rounds} rounds, counted as "
            f"{'draws' if self.truncated_mode == 'draw' else 'standings'}): {self.truncated}; "
            f"mean rounds per game: {self.mean_rounds:.2f}",
            "",
            f"{'entry':<{width}}  win share  95% CI (Wilson)   mean score  mean reward  "
            f"mean rank     mu  sigma  ordinal",
        ]
        for e in self.entries:
            lines.append(
                f"{e.label:<{width}}  {e.win_share:9.3f}  [{e.ci_low:.3f}, {e.ci_high:.3f}]"
                f"  {e.mean_score:10.2f}  {e.mean_reward:+11.3f}  {e.mean_rank:9.2f}"
                f"  {e.mu:5.2f}  {e.sigma:5.2f}  {e.ordinal:7.2f}"
            )
        lines.append("")
        lines.append(
            f"fair share {self.fair_share:.3f}; win share by seat: "
            + ", ".join(f"seat {s} {w:.3f}" for s, w in enumerate(self.seat_win_share))
        )
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able summary (the per-game records are left out)."""
        return {
            "rules": self.rules,
            "num_players": self.num_players,
            "games": self.games,
            "games_requested": self.games_requested,
            "seed": self.seed,
            "max_rounds": self.max_rounds,
            "truncated_mode": self.truncated_mode,
            "truncated": self.truncated,
            "mean_rounds": self.mean_rounds,
            "fair_share": self.fair_share,
            "win_share_interval": "wilson-95",
            "rating_model": "openskill-plackett-luce",
            "seat_win_share": list(self.seat_win_share),
            "entries": [{**asdict(e), "seat_games": list(e.seat_games)} for e in self.entries],
        }

    def save_json(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.to_dict(), f, indent=2)
            f.write("\n")

    def plot(self, path: str) -> None:
        """Bar chart of win share with 95% intervals and the fair-share line, as a PNG."""
        bars = [Bar(e.label, e.win_share, e.ci_low, e.ci_high) for e in self.entries]
        title = f"{self.rules}, {self.num_players} players, {self.games} games"
        plot_win_shares(path, bars, self.fair_share, title)


def _totals(records: Sequence[TournamentGame], n: int) -> tuple[np.ndarray, ...]:
    """Summed over the games, per entry: win points, then per seat: win points, and per
    entry: final scores, rewards, ranks, and games at each seat (``n x n``)."""
    points = np.zeros(n)
    seat_points = np.zeros(n)
    scores = np.zeros(n)
    rewards = np.zeros(n)
    ranks = np.zeros(n)
    seat_games = np.zeros((n, n), dtype=int)
    for rec in records:
        pts = win_points(rec.ranks)
        for e in range(n):
            points[e] += pts[e]
            seat_points[rec.seats[e]] += pts[e]
            seat_games[e, rec.seats[e]] += 1
        scores += rec.scores
        rewards += rec.rewards
        ranks += rec.ranks
    return points, seat_points, scores, rewards, ranks, seat_games


def summarise(
    records: Sequence[TournamentGame],
    labels: Sequence[str],
    specs: Sequence[str] | None = None,
    *,
    rules: str = "classic",
    seed: int = 0,
    max_rounds: int = 100,
    truncated_mode: str = "draw",
    games_requested: int | None = None,
) -> TournamentResult:
    """Turn per-game records (in any order) into a :class:`TournamentResult`."""
    records = sorted(records, key=lambda r: r.index)
    n = len(labels)
    g = len(records)
    if g == 0:
        raise ValueError("no games to summarise")
    specs = list(specs) if specs is not None else list(labels)
    points, seat_points, scores, rewards, ranks, seat_games = _totals(records, n)
    ratings = openskill_ratings((rec.ranks for rec in records), n)
    entries = []
    for e in range(n):
        low, high = wilson_interval(points[e], g, Z_95)
        entries.append(
            EntryStats(
                label=labels[e],
                spec=specs[e],
                games=g,
                win_points=float(points[e]),
                win_share=float(points[e] / g),
                ci_low=low,
                ci_high=high,
                mean_score=float(scores[e] / g),
                mean_reward=float(rewards[e] / g),
                mean_rank=float(ranks[e] / g),
                seat_games=tuple(int(x) for x in seat_games[e]),
                mu=ratings[e].mu,
                sigma=ratings[e].sigma,
                ordinal=ratings[e].ordinal,
            )
        )
    return TournamentResult(
        rules=rules,
        num_players=n,
        games=g,
        games_requested=g if games_requested is None else games_requested,
        seed=seed,
        max_rounds=max_rounds,
        truncated_mode=truncated_mode,
        truncated=sum(r.truncated for r in records),
        mean_rounds=sum(r.rounds for r in records) / g,
        entries=entries,
        seat_win_share=[float(x / g) for x in seat_points],
        records=list(records),
    )
