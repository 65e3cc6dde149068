"""What the heuristic knows of a round, and Bayes' rule over the kind of table.

The agent keeps no memory, so it cannot know whether the others play well; it holds a
prior ``trust`` that they all play the model of :mod:`.seat_model` and ``1 - trust``
that they all accuse uniformly at random. Under a given suspect triple the model says
how likely each earlier accusation was (each accuser saw the two slots other than the
one accused just before it, or than the unseen slot for the first player:
:func:`grove_env.resolution.unseen_by`). Bayes' rule over (kind of table, suspect
triple) then both sharpens the culprit posterior when the accusations hang together
and, when they fit no triple well, shifts belief to the random table, whose later
seats are then random too. ``trust = 0`` is the exact uniform posterior with random
later seats.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import lru_cache

from grove_env.observation import DecodedObservation
from grove_env.resolution import unseen_by

from .posterior import Deals, Slots, knowledge, remove_tiles, suspect_deals
from .seat_model import RANDOM, MarkerCosts, Model, Sizes, add, model_policy, seat_tiles


@dataclass(frozen=True)
class Knowledge:
    """Everything the heuristic knows of the round now, as one hashable value.

    Seats are relative to the observer (seat 0). Caches key on it.

    Attributes:
        public: the tiles in play, less the face-up spare.
        pool: the tiles whose place the observer does not know.
        slots: the suspect it saw per slot (``None``: not seen).
        accused: the slots accused so far this round, in order.
        unseen_slot: the first player's unseen slot (``None`` before the look).
        tampered_slot: the slot swapped with the victim (``None``: no swap).
        num_players: seats at the table.
        mine: the observer's two peeked tiles (its own, then the one passed to it).
        costs: what a marker's fate costs its owner under the rule set.
    """

    public: tuple[int, ...]
    pool: tuple[int, ...]
    slots: Slots
    accused: tuple[int, ...]
    unseen_slot: int | None
    tampered_slot: int | None
    num_players: int
    mine: tuple[int, int]
    costs: MarkerCosts

    @classmethod
    def of(cls, d: DecodedObservation) -> Knowledge:
        """The knowledge in a decoded observation."""
        pool, slots = knowledge(d)
        return cls(
            public=remove_tiles(d.tiles_in_play, (d.spare,)),
            pool=pool,
            slots=slots,
            accused=tuple(slot for _, slot in d.accusations),
            unseen_slot=d.unseen_slot,
            tampered_slot=d.tampered_slot,
            num_players=d.num_players,
            mine=d.my_tiles,
            costs=MarkerCosts(returned=not d.culprit_markers_removed, scoring=d.scoring),
        )

    def after_swap(self, slot: int | None) -> Knowledge:
        """The knowledge if the first player now swaps ``slot`` (``None``: keeps the
        victim): the seen tile becomes the victim, so the pool stays, one slot fewer seen."""
        if slot is None:
            return dataclasses.replace(self, tampered_slot=None)
        slots: Slots = tuple(None if k == slot else self.slots[k] for k in range(3))  # type: ignore[assignment]
        return dataclasses.replace(self, slots=slots, tampered_slot=slot)

    def table_view(self) -> Knowledge:
        """Only what is the same all round (tiles in play, table, own tiles, costs): the
        key of the caches of the later seats' choices."""
        return dataclasses.replace(
            self,
            pool=(),
            slots=(None, None, None),
            accused=(),
            unseen_slot=None,
            tampered_slot=None,
        )


@lru_cache(maxsize=1 << 16)
def table_types(k: Knowledge, trust: float, model: Model) -> tuple[tuple[float, Deals, Model], ...]:
    """``((P(type | accusations), suspect triples given that type, type's noise), ...)``.

    Two types of table: the other seats play the cautious-greedy model (prior ``trust``,
    with its ``noise``), or they accuse uniformly at random (noise 1). Under the model,
    each triple of the uniform prior (:func:`grove_env.agents.trust.posterior.suspect_deals`) is
    weighted by how likely the earlier accusations were; at random, they say nothing.
    Accusations that fit no triple well thus shift belief to the random table.
    """
    prior = suspect_deals(k.pool, k.slots)
    if trust <= 0.0 or k.unseen_slot is None:
        return ((1.0, prior, RANDOM),)
    accused = k.accused
    if not accused:
        return ((trust, prior, model), (1.0 - trust, prior, RANDOM))
    n = k.num_players
    weighted = []
    for triple, w in prior:
        sizes: Sizes = (0, 0, 0)
        for i, slot in enumerate(accused):
            hidden = unseen_by(i, k.unseen_slot, k.tampered_slot, accused[i - 1] if i else None)
            tiles = seat_tiles((i - len(accused)) % n, n, k.mine)
            w *= model_policy(k.public, triple, hidden, sizes, k.costs, model, tiles)[slot]
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
