"""What a seat knows, as small tuples of tile values, and the deals it allows.

A round deals the rule set's tiles uniformly at random, so given what a seat knows,
every deal consistent with it is equally likely. Only the suspects decide the culprit,
and the unknown suspect slots of a uniform deal are draws without replacement from the
*pool*: the tiles in play minus every tile whose place the seat knows (its two peeked
tiles, the face-up spare, the suspects it saw, the victim after its own swap). The
places the seat cannot see (other seats' tiles, the victim, unseen slots) share the pool
exchangeably, so enumerating ordered draws for the unknown slots is exact.

The culprit odds of such a view are :func:`grove_env.odds.view_odds` (written once,
for every agent); :func:`suspect_deals` gives the whole distribution of the suspect
triple, which the trusting belief reweighs. Everything is keyed on small hashable tuples
and cached with :func:`functools.lru_cache`, so a position seen before costs a dictionary
look-up.

>>> pool = (0, 4, 5, 8)                     # classic 4p: tiles 0,2..8 minus 2, 3, 6, 7
>>> view_odds(pool, (None, 6, 7))           # slot 0 unseen: a 5 or 8 there is guilty
(0.5, 0.0, 0.5)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

from grove_env.observation import DecodedObservation
from grove_env.odds import view_odds
from grove_env.resolution import culprit_slot

Slots = tuple[int | None, int | None, int | None]
Triple = tuple[int, int, int]
Deals = tuple[tuple[Triple, float], ...]


@lru_cache(maxsize=1 << 12)
def culprit_of(triple: Triple) -> int:
    """:func:`grove_env.resolution.culprit_slot`, cached (there are only a few hundred triples)."""
    return culprit_slot(triple)


def remove_tiles(tiles: Iterable[int], known: Iterable[int | None]) -> tuple[int, ...]:
    """The sorted multiset ``tiles`` minus each known tile (``None`` entries are skipped).

    >>> remove_tiles((0, 2, 3, 3), (3, None, 0))
    (2, 3)
    """
    left = list(tiles)
    for t in known:
        if t is None:
            continue
        try:
            left.remove(t)
        except ValueError:
            raise ValueError(f"tile {t} is known more often than it is in play") from None
    left.sort()
    return tuple(left)


def knowledge(d: DecodedObservation) -> tuple[tuple[int, ...], Slots]:
    """``(pool, slots)`` of the observing seat: unknown tiles and what it saw per slot."""
    pool = remove_tiles(d.tiles_in_play, (*d.my_tiles, d.spare, *d.seen, d.victim))
    return pool, d.seen


@lru_cache(maxsize=1 << 16)
def suspect_deals(pool: tuple[int, ...], slots: Slots) -> Deals:
    """Distribution of the full suspect triple: ``((triple, probability), ...)``.

    Unknown slots (``None``) are filled by ordered draws without replacement from
    ``pool``; equal triples are merged, so the result is small and exact.

    >>> suspect_deals((0, 4, 4), (None, 5, 7))
    (((0, 5, 7), 0.3333333333333333), ((4, 5, 7), 0.6666666666666666))
    """
    hidden = [s for s in range(3) if slots[s] is None]
    if len(hidden) > len(pool):
        raise ValueError(f"{len(hidden)} unknown slots but only {len(pool)} unknown tiles")
    weights: dict[Triple, float] = {}

    def fill(k: int, left: tuple[int, ...], filled: list[int], p: float) -> None:
        if k == len(hidden):
            triple = (filled[0], filled[1], filled[2])
            weights[triple] = weights.get(triple, 0.0) + p
            return
        counts = Counter(left)
        for tile, c in counts.items():
            rest = list(left)
            rest.remove(tile)
            filled[hidden[k]] = tile
            fill(k + 1, tuple(rest), filled, p * c / len(left))

    fill(0, pool, [-1 if t is None else t for t in slots], 1.0)
    return tuple(sorted(weights.items()))


def posterior(d: DecodedObservation) -> tuple[float, float, float]:
    """The observing seat's exact culprit posterior (:func:`grove_env.odds.view_odds`)."""
    return view_odds(*knowledge(d))
