"""Bradley–Terry ratings from finished games, with bootstrap intervals.

A game of ``N`` players enters as its pairwise comparisons by final rank: for every two
entries at the table, the better-ranked one beat the other; two entries that share a
rank draw, which counts half a win each (as OpenSpiel's evaluation and the game arenas
reduce multi-player games). The comparisons of all games fill one win matrix
``wins[i, j]`` (how often ``i`` beat ``j``), and one Bradley–Terry model is fitted to
it: ``P(i beats j) = 1 / (1 + exp(s_j - s_i))``.

The fit is ``choix`` (a well-kept library of Luce-family models):
:func:`choix.ilsr_pairwise_dense`, the maximum-likelihood estimate by iterated Luce
spectral ranking, which reads a dense matrix of counts, half wins included. A small
``alpha`` regularises it (OpenSpiel smooths its Hunter MM the same way), so an entry that
won or lost every comparison still gets a finite rating.

Ratings are printed on the Elo scale (``400 / ln 10`` points per unit of ``s``: 400
points is 10 to 1 odds) and anchored: the anchor entry (``random`` in a league) is 0.
The 95% interval of each rating is a **bootstrap over games**: the games (the
independent units; the comparisons inside one game are not) are drawn again with
replacement, the model is refitted, and the 2.5th and 97.5th percentiles of each
anchored rating are the interval. More games narrow it.

>>> games = [[(0, 1), (1, 2)]] * 30 + [[(0, 2), (1, 1)]] * 10   # (entry, rank)
>>> wins = win_matrix(games, 2)
>>> wins.tolist()
[[0.0, 30.0], [10.0, 0.0]]
>>> round(float(fit_ratings(wins, anchor=1)[0]), 0)
191.0
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

ELO = 400.0 / math.log(10.0)
"""Elo points per unit of Bradley–Terry strength (natural log odds)."""

ALPHA = 0.01
"""choix's regularisation: a prior of ``ALPHA`` wins each way between every pair."""

Game = Sequence[tuple[int, int]]
"""One game: ``(entry, rank)`` for each entry at the table (1 is best, ties share)."""


def win_matrix(games: Sequence[Game], num_entries: int) -> np.ndarray:
    """``wins[i, j]``: how often entry ``i`` ranked above ``j`` (a shared rank: half each)."""
    wins = np.zeros((num_entries, num_entries))
    for game in games:
        for a, (i, rank_i) in enumerate(game):
            for j, rank_j in game[a + 1 :]:
                if rank_i < rank_j:
                    wins[i, j] += 1.0
                elif rank_j < rank_i:
                    wins[j, i] += 1.0
                else:
                    wins[i, j] += 0.5
                    wins[j, i] += 0.5
    return wins


def fit_ratings(wins: np.ndarray, anchor: int, alpha: float = ALPHA) -> np.ndarray:
    """Bradley–Terry ratings (Elo points) of the entries of ``wins``, ``anchor`` at 0."""
    import choix  # the agents extra; only a league needs it

    strengths = choix.ilsr_pairwise_dense(wins, alpha=alpha, max_iter=1000)
    ratings: np.ndarray = ELO * (strengths - strengths[anchor])
    return ratings


@dataclass(frozen=True)
class Fit:
    """The ratings of a set of games, with their bootstrap intervals (Elo points)."""

    ratings: np.ndarray  # float64[entries], the anchor at 0
    low: np.ndarray  # 2.5th percentile over the bootstrap samples
    high: np.ndarray  # 97.5th percentile
    games: np.ndarray  # int64[entries]: games each entry played
    samples: int  # bootstrap samples drawn


def bootstrap_fit(
    games: Sequence[Game],
    num_entries: int,
    anchor: int,
    samples: int = 200,
    seed: int = 0,
) -> Fit:
    """Fit :func:`fit_ratings` to ``games`` and draw ``samples`` bootstrap refits.

    The per-game win matrices are built once; a bootstrap sample is a weighted sum of
    them (each game's weight: how often it was drawn), so a refit costs one fit.
    """
    if not games:
        raise ValueError("a rating needs at least one game")
    per_game = np.stack([win_matrix([g], num_entries) for g in games])
    played = np.zeros(num_entries, dtype=np.int64)
    for game in games:
        for entry, _ in game:
            played[entry] += 1
    ratings = fit_ratings(per_game.sum(axis=0), anchor)
    rng = np.random.default_rng(seed)
    drawn = np.empty((samples, num_entries))
    for s in range(samples):
        counts = np.bincount(rng.integers(0, len(games), len(games)), minlength=len(games))
        drawn[s] = fit_ratings(np.tensordot(counts, per_game, axes=1), anchor)
    low, high = np.percentile(drawn, [2.5, 97.5], axis=0)
    return Fit(ratings, low, high, played, samples)
