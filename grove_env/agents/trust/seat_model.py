"""How the heuristic models the other seats' accusations (see :mod:`.round_model`).

A modelled seat knows the two suspects it saw, the public record and its two peeked
tiles. Of those peeked tiles the observer knows what it shares with its neighbours
(seat 1 peeked the observer's received tile, seat ``n - 1`` the observer's own; with
two players both seats peeked both); the rest are averaged over the tiles that are
neither suspects nor the observer's (correlations between seats and the victim are
ignored). From that knowledge the seat has an exact culprit posterior ``q`` and, with
probability ``1 - noise``, accuses

* greedily: the likeliest culprit, ties shared evenly (share ``1 - caution``), or
* cautiously: the slot minimising the score it expects if nobody covers it,
  ``(1 - q_s) * top_cost(stack_s + 1)``, ties to the likelier culprit (share ``caution``);

with probability ``noise`` it accuses uniformly at random. The heuristic's default is
the plain greedy model (``caution = 0``): it predicted greedy, random and heuristic
opponents at least as well as the cautious one in measurement.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache

from grove_env.odds import view_odds
from grove_env.rules import Scoring

from .posterior import Slots, Triple, culprit_of, remove_tiles

Sizes = tuple[int, int, int]


@dataclass(frozen=True)
class MarkerCosts:
    """How a marker's fate changes its owner's score count (lower is better).

    ``returned``: a marker under the culprit comes back (classic) rather than leaving
    the game (revised). ``scoring``: which count is the score (the rule set's).
    """

    returned: bool
    scoring: Scoring

    @property
    def on_culprit(self) -> int:
        """A marker placed on the culprit: placed (-1 coloured), then back if returned."""
        return self.scoring.score(int(self.returned) - 1, 0)

    def top(self, stack_size: int) -> int:
        """On top of an innocent stack of ``stack_size`` markers (own included)."""
        return self.scoring.score(-1, stack_size)


@dataclass(frozen=True)
class Model:
    """How a modelled seat accuses: ``noise`` of the time uniformly at random; otherwise
    cautious-greedy with probability ``caution`` and plain greedy (the likeliest
    culprit, whatever the stacks) with ``1 - caution``."""

    noise: float
    caution: float


RANDOM = Model(noise=1.0, caution=1.0)


@lru_cache(maxsize=1 << 10)
def seat_tiles(seat: int, n: int, mine: tuple[int, int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``(tiles the observer knows relative seat `seat` peeked, the observer's other tiles)``.

    The observer (seat 0) peeked the tiles dealt to seats 0 and 1: seat 1 peeked the
    second of them, seat ``n - 1`` the first; with two players both seats know both.

    >>> seat_tiles(1, 4, (5, 7)), seat_tiles(3, 4, (5, 7)), seat_tiles(1, 2, (5, 7))
    (((7,), (5,)), ((5,), (7,)), ((5, 7), ()))
    """
    holds = tuple(t for t, owner in zip(mine, ((n - 1) % n, 1)) if owner == seat)
    others = tuple(t for t, owner in zip(mine, ((n - 1) % n, 1)) if owner != seat)
    return holds, others


@lru_cache(maxsize=1 << 16)
def peeked_posteriors(
    public: tuple[int, ...],
    triple: Triple,
    hidden: tuple[int, ...],
    holds: tuple[int, ...],
    excluded: tuple[int, ...],
) -> tuple[tuple[tuple[float, float, float], float], ...]:
    """``((culprit posterior, probability), ...)`` of a modelled seat, per peeked tiles.

    It sees ``triple`` except the ``hidden`` slots and peeked ``holds`` plus
    ``2 - len(holds)`` tiles drawn uniformly from the tiles in play that are not
    suspects, not ``holds`` and not ``excluded`` (the observer's own tiles).
    """
    seen = [triple[s] for s in range(3) if s not in hidden]
    slots: Slots = tuple(None if s in hidden else triple[s] for s in range(3))  # type: ignore[assignment]
    rest = remove_tiles(public, (*triple, *holds, *excluded))
    out = []
    for extra, w in draws(rest, 2 - len(holds)):
        q = view_odds(remove_tiles(public, (*seen, *holds, *extra)), slots)
        out.append((q, w))
    return tuple(out)


@lru_cache(maxsize=1 << 12)
def draws(pool: tuple[int, ...], k: int) -> tuple[tuple[tuple[int, ...], float], ...]:
    """Distinct multisets of ``k`` tiles drawn without replacement from ``pool``.

    >>> draws((0, 4, 4), 2)
    (((0, 4), 0.6666666666666666), ((4, 4), 0.3333333333333333))
    """
    weights: dict[tuple[int, ...], float] = {}
    combos = list(itertools.combinations(range(len(pool)), k))
    for idx in combos:
        key = tuple(pool[i] for i in idx)
        weights[key] = weights.get(key, 0.0) + 1.0 / len(combos)
    return tuple(sorted(weights.items()))


@lru_cache(maxsize=1 << 16)
def model_choice(
    public: tuple[int, ...],
    triple: Triple,
    hidden: tuple[int, ...],
    sizes: Sizes,
    costs: MarkerCosts,
    caution: float,
    holds: tuple[int, ...],
    excluded: tuple[int, ...],
) -> tuple[float, float, float]:
    """A modelled seat's informed choice per slot, averaged over its peeked tiles:
    ``caution`` cautious-greedy, ``1 - caution`` greedy (see :func:`peeked_posteriors`)."""
    avg = [0.0, 0.0, 0.0]
    for q, w in peeked_posteriors(public, triple, hidden, holds, excluded):
        cautious = cautious_choice(q, sizes, costs)
        for s in range(3):
            avg[s] += w * cautious[s]
    if caution < 1.0:
        greedy = greedy_choice(public, triple, hidden, holds, excluded)
        avg = [caution * a + (1.0 - caution) * g for a, g in zip(avg, greedy)]
    return avg[0], avg[1], avg[2]


@lru_cache(maxsize=1 << 16)
def greedy_choice(
    public: tuple[int, ...],
    triple: Triple,
    hidden: tuple[int, ...],
    holds: tuple[int, ...],
    excluded: tuple[int, ...],
) -> tuple[float, float, float]:
    """A modelled seat's greedy choice (the likeliest culprit, ties shared) per slot."""
    avg = [0.0, 0.0, 0.0]
    if len(hidden) != 1:
        for q, w in peeked_posteriors(public, triple, hidden, holds, excluded):
            top = max(q)
            best = [s for s in range(3) if q[s] >= top - 1e-9]
            for s in best:
                avg[s] += w / len(best)
        return avg[0], avg[1], avg[2]
    # One hidden slot: the seat's posterior counts, per slot, the tiles it does not
    # know that would make that slot guilty; its peeked tiles just leave those counts.
    h = hidden[0]
    unknown = remove_tiles(public, (*(triple[s] for s in range(3) if s != h), *holds))
    guilty = {}
    for t in set(unknown):
        filled = list(triple)
        filled[h] = t
        guilty[t] = culprit_of((filled[0], filled[1], filled[2]))
    base = [0, 0, 0]
    for t in unknown:
        base[guilty[t]] += 1
    rest = remove_tiles(public, (*triple, *holds, *excluded))
    for extra, w in draws(rest, 2 - len(holds)):
        counts = base.copy()
        for t in extra:
            counts[guilty[t]] -= 1
        top = max(counts)
        best = [s for s in range(3) if counts[s] == top]
        for s in best:
            avg[s] += w / len(best)
    return avg[0], avg[1], avg[2]


@lru_cache(maxsize=1 << 16)
def cautious_choice(q: tuple[float, ...], sizes: Sizes, costs: MarkerCosts) -> tuple:
    """The modelled seat's choice as probabilities per slot (ties shared evenly)."""
    cost = [(1.0 - q[s]) * costs.top(sizes[s] + 1) + q[s] * costs.on_culprit for s in range(3)]
    low = min(cost)
    best = [s for s in range(3) if cost[s] <= low + 1e-9]
    top_q = max(q[s] for s in best)
    best = [s for s in best if q[s] >= top_q - 1e-9]
    return tuple(1.0 / len(best) if s in best else 0.0 for s in range(3))


def model_policy(
    public: tuple[int, ...],
    triple: Triple,
    hidden: tuple[int, ...],
    sizes: Sizes,
    costs: MarkerCosts,
    model: Model,
    tiles: tuple[tuple[int, ...], tuple[int, ...]],
) -> tuple[float, float, float]:
    """Probability that a modelled seat accuses each slot; ``tiles``: :func:`seat_tiles`."""
    if model.noise >= 1.0:
        return (1 / 3, 1 / 3, 1 / 3)
    if model.caution <= 0.0:
        choice = greedy_choice(public, triple, hidden, *tiles)
    else:
        choice = model_choice(public, triple, hidden, sizes, costs, model.caution, *tiles)
    u = model.noise / 3.0
    keep = 1.0 - model.noise
    return keep * choice[0] + u, keep * choice[1] + u, keep * choice[2] + u


def add(sizes: Sizes, slot: int) -> Sizes:
    s = list(sizes)
    s[slot] += 1
    return s[0], s[1], s[2]
