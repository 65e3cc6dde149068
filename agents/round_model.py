"""A model of the rest of one round, for the heuristic agent.

The heuristic looks one round ahead. For each of its possible accusations it needs the
distribution of how the round ends: which slot is the culprit and where the later seats
put their markers. That needs (1) how likely each complete suspect triple is, given its
own knowledge and the accusations already made, and (2) how the later seats accuse.

**The other seats' model.** A modelled seat knows the two suspects it saw, the public
record and its two peeked tiles. Of those peeked tiles the observer knows what it
shares with its neighbours (seat 1 peeked the observer's received tile, seat ``n - 1``
the observer's own; with two players both seats peeked both); the rest are averaged
over the tiles that are neither suspects nor the observer's (correlations between
seats and the victim are ignored). From that knowledge the seat has an exact culprit
posterior ``q`` and, with probability ``1 - noise``, accuses

* greedily: the likeliest culprit, ties shared evenly (share ``1 - caution``), or
* cautiously: the slot minimising the score it expects if nobody covers it,
  ``(1 - q_s) * top_cost(stack_s + 1)``, ties to the likelier culprit (share ``caution``);

with probability ``noise`` it accuses uniformly at random. The heuristic's default is
the plain greedy model (``caution = 0``): it predicted greedy, random and heuristic
opponents at least as well as the cautious one in measurement.

**Two kinds of table** (``trust``). The agent keeps no memory, so it cannot know
whether the others play well; it holds a prior ``trust`` that they all play the model
above and ``1 - trust`` that they all accuse uniformly at random. Under a given suspect
triple the model says how likely each earlier accusation was (each accuser saw the
two slots other than the one accused just before it, or than the unseen slot for the
first player). Bayes' rule over (kind of table, suspect triple) then both sharpens the
culprit posterior when the accusations hang together and, when they fit no triple
well, shifts belief to the random table, whose later seats are then random too.
``trust = 0`` is the exact uniform posterior with random later seats.

**Outcomes.** :func:`round_outcomes` returns, per own accusation, the probability of
every way the round can end (culprit and later accusations) and, in
:class:`Resolutions`, each seat's change of coloured and penalty markers, as arrays the
value function scores at once.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .posterior import (
    Slots,
    Triple,
    culprit_of,
    culprit_posterior,
    remove_tiles,
    suspect_deals,
)

Sizes = tuple[int, int, int]
Deals = tuple[tuple[Triple, float], ...]


@dataclass(frozen=True)
class Scoring:
    """How a marker's fate changes its owner's score count (lower is better).

    ``returned``: a marker under the culprit comes back (classic) rather than leaving
    the game (revised). ``penalty_only``: the score counts penalty markers only
    (revised) rather than every marker held (classic).
    """

    returned: bool
    penalty_only: bool

    @property
    def on_culprit(self) -> int:
        return 0 if self.penalty_only else int(self.returned) - 1

    @property
    def covered(self) -> int:
        return 0 if self.penalty_only else -1

    def top(self, stack_size: int) -> int:
        """On top of an innocent stack of ``stack_size`` markers (own included)."""
        return stack_size if self.penalty_only else stack_size - 1


CLASSIC_SCORING = Scoring(returned=True, penalty_only=False)
REVISED_SCORING = Scoring(returned=False, penalty_only=True)


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
        q = culprit_posterior(remove_tiles(public, (*seen, *holds, *extra)), slots)
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
    scoring: Scoring,
    caution: float,
    holds: tuple[int, ...],
    excluded: tuple[int, ...],
) -> tuple[float, float, float]:
    """A modelled seat's informed choice per slot, averaged over its peeked tiles:
    ``caution`` cautious-greedy, ``1 - caution`` greedy (see :func:`peeked_posteriors`)."""
    avg = [0.0, 0.0, 0.0]
    for q, w in peeked_posteriors(public, triple, hidden, holds, excluded):
        cautious = cautious_choice(q, sizes, scoring)
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
def cautious_choice(q: tuple[float, ...], sizes: Sizes, scoring: Scoring) -> tuple:
    """The modelled seat's choice as probabilities per slot (ties shared evenly)."""
    cost = [(1.0 - q[s]) * scoring.top(sizes[s] + 1) + q[s] * scoring.on_culprit for s in range(3)]
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
    scoring: Scoring,
    model: Model,
    tiles: tuple[tuple[int, ...], tuple[int, ...]],
) -> tuple[float, float, float]:
    """Probability that a modelled seat accuses each slot; ``tiles``: :func:`seat_tiles`."""
    if model.noise >= 1.0:
        return (1 / 3, 1 / 3, 1 / 3)
    if model.caution <= 0.0:
        choice = greedy_choice(public, triple, hidden, *tiles)
    else:
        choice = model_choice(public, triple, hidden, sizes, scoring, model.caution, *tiles)
    u = model.noise / 3.0
    keep = 1.0 - model.noise
    return keep * choice[0] + u, keep * choice[1] + u, keep * choice[2] + u


def add(sizes: Sizes, slot: int) -> Sizes:
    s = list(sizes)
    s[slot] += 1
    return s[0], s[1], s[2]


def accuser_hidden(
    index: int, accused: tuple[int, ...], unseen: int, tampered: int | None
) -> tuple[int, ...]:
    """Slots the ``index``-th accuser of the round had not seen when it accused.

    The first player misses the unseen slot (and, after a swap, knows the tampered slot
    only as the new victim); each later seat misses the slot accused just before it.
    """
    if index == 0:
        return (unseen,) if tampered is None else (unseen, tampered)
    return (accused[index - 1],)


@lru_cache(maxsize=1 << 16)
def table_types(
    public: tuple[int, ...],
    pool: tuple[int, ...],
    slots: Slots,
    accused: tuple[int, ...],
    unseen: int | None,
    tampered: int | None,
    scoring: Scoring,
    trust: float,
    model: Model,
    n: int,
    mine: tuple[int, int],
) -> tuple[tuple[float, Deals, Model], ...]:
    """``((P(type | accusations), suspect triples given that type, type's noise), ...)``.

    Two types of table: the other seats play the cautious-greedy model (prior ``trust``,
    with its ``noise``), or they accuse uniformly at random (noise 1). Under the model,
    each triple of the uniform prior (:func:`grove_env.agents.posterior.suspect_deals`) is
    weighted by how likely the earlier accusations were; at random, they say nothing.
    Accusations that fit no triple well thus shift belief to the random table.
    """
    prior = suspect_deals(pool, slots)
    if trust <= 0.0 or unseen is None:
        return ((1.0, prior, RANDOM),)
    if not accused:
        return ((trust, prior, model), (1.0 - trust, prior, RANDOM))
    weighted = []
    for triple, w in prior:
        sizes: Sizes = (0, 0, 0)
        for i, slot in enumerate(accused):
            hidden = accuser_hidden(i, accused, unseen, tampered)
            tiles = seat_tiles((i - len(accused)) % n, n, mine)
            w *= model_policy(public, triple, hidden, sizes, scoring, model, tiles)[slot]
            sizes = add(sizes, slot)
        weighted.append((triple, w))
    evidence = sum(w for _, w in weighted)  # P(accusations | model table)
    if evidence <= 0.0:
        return ((1.0, prior, RANDOM),)
    deals = tuple((t, w / evidence) for t, w in weighted)
    p_model = trust * evidence
    p_random = (1.0 - trust) * 3.0 ** -len(accused)
    total = p_model + p_random
    return ((p_model / total, deals, model), (p_random / total, prior, RANDOM))


def later_accusations(
    public: tuple[int, ...],
    triple: Triple,
    sizes: Sizes,
    prev: int,
    later: int,
    scoring: Scoring,
    model: Model,
    n: int,
    mine: tuple[int, int],
) -> np.ndarray:
    """Probability of every sequence of the ``later`` seats' accusations, ``float[3**later]``.

    Entry ``sum(s_j * 3**(later - 1 - j))`` is the probability that the j-th later seat
    accuses ``s_j`` (the order of ``itertools.product(range(3), repeat=later)``).
    ``sizes`` are the stacks after the accusation on ``prev``; each later seat sees the
    two slots other than the one accused just before it. The later seats are relative
    seats ``n - later`` .. ``n - 1``; ``mine`` are the observer's two peeked tiles.
    """
    if later == 0 or model.noise >= 1.0:
        return _uniform(later)
    if model.caution <= 0.0:
        sizes = (0, 0, 0)  # greedy seats ignore the stacks: share the cache entries
    return _later(public, triple, sizes, prev, later, scoring, model, n, mine)


@lru_cache(maxsize=16)
def _uniform(later: int) -> np.ndarray:
    return np.full(3**later, 3.0**-later)


@lru_cache(maxsize=1 << 15)
def _later(
    public: tuple[int, ...],
    triple: Triple,
    sizes: Sizes,
    prev: int,
    later: int,
    scoring: Scoring,
    model: Model,
    n: int,
    mine: tuple[int, int],
) -> np.ndarray:
    tiles = seat_tiles(n - later, n, mine)
    pol = model_policy(public, triple, (prev,), sizes, scoring, model, tiles)
    if later == 1:
        return np.array(pol)
    if model.caution > 0.0:
        parts = [
            _later(public, triple, add(sizes, s), s, later - 1, scoring, model, n, mine)
            for s in range(3)
        ]
    else:
        parts = [
            _later(public, triple, sizes, s, later - 1, scoring, model, n, mine) for s in range(3)
        ]
    return np.concatenate([pol[s] * parts[s] for s in range(3)])


def resolve(
    seats: tuple[int, ...], slots: tuple[int, ...], culprit: int, n: int, returned: bool
) -> tuple[list[int], list[int]]:
    """Change of coloured and penalty markers per seat; ``seats[i]`` accused ``slots[i]``.

    >>> resolve((0, 1, 2), (2, 2, 0), culprit=0, n=3, returned=True)
    ([-1, -1, 0], [0, 2, 0])
    """
    coloured = [-1] * n
    penalty = [0] * n
    top = [-1, -1, -1]
    size = [0, 0, 0]
    for seat, slot in zip(seats, slots):
        top[slot] = seat
        size[slot] += 1
        if slot == culprit and returned:
            coloured[seat] += 1
    for slot in range(3):
        if slot != culprit and size[slot]:
            penalty[top[slot]] += size[slot]
    return coloured, penalty


@dataclass(frozen=True, eq=False)
class Resolutions:
    """Marker changes for every way the round can end, per own accusation.

    Row ``r`` of axis 1 is ``culprit * 3**later + sequence`` (the later seats' sequence
    as in :func:`later_accusations`). ``coloured``, ``penalty`` and ``score`` are
    ``float[3, R, n]`` changes per relative seat; ``behind[..., j]`` is how much seat
    ``j + 1``'s score rose more than the observer's (positive: good for the observer).
    """

    coloured: np.ndarray
    penalty: np.ndarray
    score: np.ndarray
    behind: np.ndarray


@lru_cache(maxsize=1 << 12)
def resolution_table(accused: tuple[int, ...], n: int, scoring: Scoring) -> Resolutions:
    """:class:`Resolutions` of a round whose earlier accusations were ``accused``."""
    k = len(accused)
    seats = tuple((i - k) % n for i in range(n))
    later = n - 1 - k
    table = np.zeros((3, 3, 3**later, 2, n))
    for c in range(3):
        for culprit in range(3):
            for code, seq in enumerate(itertools.product(range(3), repeat=later)):
                table[c, culprit, code] = resolve(
                    seats, (*accused, c, *seq), culprit, n, scoring.returned
                )
    table = table.reshape(3, -1, 2, n)
    coloured, penalty = table[:, :, 0], table[:, :, 1]
    score = penalty if scoring.penalty_only else coloured + penalty
    return Resolutions(coloured, penalty, score, score[:, :, 1:] - score[:, :, :1])


@dataclass(frozen=True, eq=False)
class Outcomes:
    """Every way the round can end, per own accusation (axis 0 is the accused slot).

    ``prob[3, R]`` (each row sums to 1) weighs the rows of ``table``; ``q`` is the
    culprit posterior the outcomes were drawn from.
    """

    q: tuple[float, float, float]
    prob: np.ndarray
    table: Resolutions


@lru_cache(maxsize=1 << 12)
def round_outcomes(
    public: tuple[int, ...],
    pool: tuple[int, ...],
    slots: Slots,
    accused: tuple[int, ...],
    unseen: int | None,
    tampered: int | None,
    n: int,
    scoring: Scoring,
    trust: float,
    model: Model,
    mine: tuple[int, int],
) -> Outcomes:
    """The culprit posterior and, per own accusation 0, 1, 2, the round's outcomes.

    The observer is relative seat 0 and accuses at position ``k = len(accused)``, so
    the seat at position ``i`` is relative seat ``(i - k) % n``.
    """
    types = table_types(
        public, pool, slots, accused, unseen, tampered, scoring, trust, model, n, mine
    )
    later = n - 1 - len(accused)
    sizes = (accused.count(0), accused.count(1), accused.count(2))
    q = [0.0, 0.0, 0.0]
    prob = np.zeros((3, 3, 3**later))  # own accusation, culprit, later sequence
    for p_type, deals, type_model in types:
        for t, w in deals:
            culprit = culprit_of(t)
            w *= p_type
            q[culprit] += w
            for c in range(3):
                prob[c, culprit] += w * later_accusations(
                    public, t, add(sizes, c), c, later, scoring, type_model, n, mine
                )
    return Outcomes(
        q=(q[0], q[1], q[2]),
        prob=prob.reshape(3, -1),
        table=resolution_table(accused, n, scoring),
    )
