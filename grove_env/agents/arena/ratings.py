"""Statistics for tournaments: win-share intervals and OpenSkill ratings.

Win share: in each game the seats ranked first share one point (a lone winner takes
1, two tied winners take 1/2 each), so the shares of all entries sum to 1 per game.
Its 95% interval is the **Wilson score interval** with ``n`` = games played, taking
the share as the proportion. Wilson stays inside [0, 1] and is sensible at 0 or
all wins, where the normal approximation collapses to a point. Split ties make a
game's points less variable than a 0/1 outcome, so with ties the interval is
slightly conservative (wider than needed), never too narrow.

>>> low, high = wilson_interval(50, 100)
>>> round(low, 4), round(high, 4)
(0.4038, 0.5962)
>>> wilson_interval(0, 10)[0]
0.0

Ratings: OpenSkill's Plackett-Luce model, one single-player team per entry, updated
game by game in game order (so the result does not depend on how the games were
spread over worker processes). Ties in the standings are ties for the model.
``ordinal`` is OpenSkill's conservative estimate ``mu - 3 * sigma``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from grove_env.standings import win_points

__all__ = ["Z_95", "Rating", "openskill_ratings", "wilson_interval", "win_points"]

Z_95 = 1.959963984540054  # two-sided 95% normal quantile


def wilson_interval(points: float, n: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval for ``points`` successes out of ``n`` (points may be fractional)."""
    if n <= 0:
        return 0.0, 1.0
    if not 0 <= points <= n:
        raise ValueError(f"points must lie in [0, {n}], got {points}")
    p = points / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    # exact ends at 0 and n (the formula leaves rounding dust there)
    low = 0.0 if points == 0 else max(0.0, centre - half)
    high = 1.0 if points == n else min(1.0, centre + half)
    return low, high


@dataclass(frozen=True)
class Rating:
    """An entry's OpenSkill rating after the last game."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """The conservative skill estimate ``mu - 3 * sigma`` (OpenSkill's default)."""
        return self.mu - 3.0 * self.sigma


def openskill_ratings(games: Iterable[Sequence[int]], num_entries: int) -> list[Rating]:
    """Plackett-Luce ratings from per-game ranks (one list of ``num_entries`` ranks per game).

    >>> r = openskill_ratings([[1, 2], [1, 2], [1, 2]], 2)
    >>> r[0].mu > 25 > r[1].mu
    True
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    teams = [[model.rating()] for _ in range(num_entries)]
    for ranks in games:
        if len(ranks) != num_entries:
            raise ValueError(f"a game has {len(ranks)} ranks for {num_entries} entries")
        teams = model.rate(teams, ranks=[float(r) for r in ranks])
    return [Rating(mu=float(t[0].mu), sigma=float(t[0].sigma)) for t in teams]
