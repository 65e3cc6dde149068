"""Rule-based playing styles for the gauntlet: each a small stateless agent of one idea.

Each style reads only its own observation through :func:`grove_env.observation.decode`
and the exact culprit posterior of :mod:`grove_env.agents.posterior`; none keeps memory
or draws random numbers, so each is deterministic (the seed is accepted and unused).
Unless its paragraph says otherwise, a style's first player leaves slot 0 unseen (before
anyone looks the slots are exchangeable) and keeps the victim, and its ties go to the
lowest slot. The styles are registered as ``stack-avoider``, ``piler``, ``follower``,
``contrarian`` and ``bluffer`` (:mod:`grove_env.agents.base`); they are the opponents of
:mod:`grove_env.agents.gauntlet`, chosen to break agents that trust one model of the
other seats.

Words used below: a seat's *position* ``k`` is how many seats accused before it this
round, so ``n - 1 - k`` *later seats* still accuse after it; a slot's *stack* is the
markers already under it; a slot is *likelier* than another when its culprit posterior
is higher.

>>> from grove_env.core import Game
>>> from grove_env.observation import ObservationEncoder
>>> g = Game("classic", 4, deals=[(2, 3, 4, 6, 5, 7, 8, 0)])
>>> obs = {"observation": ObservationEncoder(g.rules, 4).encode(g, 0),
...        "action_mask": [int(g.is_legal(a)) for a in range(10)]}
>>> [make_style(name).act(obs) for name in STYLE_NAMES]  # look: all leave slot 0 unseen
[0, 0, 0, 0, 0]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from grove_env.actions import ACCUSE_0, KEEP, LEAVE_0, SWAP_0, Phase
from grove_env.observation import DecodedObservation, decode

from .base import BaseAgent
from .posterior import culprit_posterior, knowledge, posterior

Posterior = tuple[float, float, float]


def later_seats(d: DecodedObservation) -> int:
    """How many seats still accuse this round after the observing seat."""
    return d.num_players - 1 - len(d.accusations)


def likeliest(slots: Sequence[int], p: Posterior) -> int:
    """The likeliest culprit among ``slots``, ties to the lowest slot."""
    return max(slots, key=lambda s: (p[s], -s))


def expected_marker_cost(d: DecodedObservation, p: Posterior, slot: int) -> float:
    """Expected change of the observing seat's score count if it accuses ``slot`` now.

    The score count is the one the game ranks by: every marker held (classic) or
    penalty markers (revised). The later seats are taken to accuse uniformly at random,
    so none of them covers the marker with probability ``(2/3) ** later``. The marker
    costs one held marker when placed (classic counts them) and comes back if the slot
    is the culprit (unless the rules remove culprit markers); on an innocent slot that
    nobody covers the seat takes the whole stack, its own marker included; once
    covered it goes to the seat on top.
    """
    height = len(d.stacks[slot])
    uncovered = (2.0 / 3.0) ** later_seats(d)
    cost = (1.0 - p[slot]) * uncovered * (height + 1)
    if not d.penalty_scoring:
        cost -= 1.0 - (0.0 if d.culprit_markers_removed else p[slot])
    return cost


class StyleAgent(BaseAgent):
    """A style: the default look (slot 0 unseen) and swap (keep); ``accuse_slot`` decides."""

    name = "style"

    def __init__(self, seed: int | None = None) -> None:
        del seed  # deterministic: accepted so that every spec takes one

    def act(self, observation: dict[str, np.ndarray]) -> int:
        mask = np.asarray(observation["action_mask"])
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError(f"{self.name} agent asked to act with an all-zero action mask")
        d = decode(observation["observation"])
        if d.phase is Phase.ACCUSE:
            slots = [s for s in range(3) if mask[ACCUSE_0 + s]]
            return ACCUSE_0 + self.accuse_slot(d, posterior(d), slots)
        if d.phase is Phase.SWAP:
            swaps = [s for s in range(3) if mask[SWAP_0 + s]]
            choice = self.swap_slot(d, swaps)
            if choice is not None:
                return SWAP_0 + choice
        preferred = LEAVE_0 if d.phase is Phase.LOOK else KEEP
        return preferred if mask[preferred] else int(legal[0])

    def swap_slot(self, d: DecodedObservation, swaps: list[int]) -> int | None:
        """The seen slot to exchange the victim with, or ``None`` to keep."""
        return None

    def accuse_slot(self, d: DecodedObservation, p: Posterior, slots: list[int]) -> int:
        """The suspect slot to accuse, one of ``slots`` (the legal ones)."""
        raise NotImplementedError


class StackAvoiderAgent(StyleAgent):
    """``stack-avoider``: accuses where its own expected marker cost is lowest.

    It prices each slot with :func:`expected_marker_cost`, taking the later seats to
    accuse at random: a tall innocent stack that nobody will cover is expensive, and in
    classic a likely innocent that later seats will probably cover is *cheaper* than the
    culprit, since the coverer takes the marker off its hands. So an early seat at
    classic accuses a likely innocent and counts on being piled on, and the last seat
    avoids topping stacks; in revised, where a covered or culprit marker costs nothing,
    it accuses the likeliest culprit unless a stack makes another slot cheaper. Ties go
    to the likelier culprit.
    """

    name = "stack-avoider"

    def accuse_slot(self, d: DecodedObservation, p: Posterior, slots: list[int]) -> int:
        return min(slots, key=lambda s: (round(expected_marker_cost(d, p, s), 9), -p[s], s))


class PilerAgent(StyleAgent):
    """``piler``: accuses the likeliest innocent, expecting a later seat to cover it.

    While later seats remain it accuses the slot least likely to be the culprit, ties to
    the tallest stack (piling on), in the hope that someone tops it and takes the stack.
    As the last seat of the round nobody can cover it, so it accuses the likeliest
    culprit, ties to the shortest stack.
    """

    name = "piler"

    def accuse_slot(self, d: DecodedObservation, p: Posterior, slots: list[int]) -> int:
        heights = [len(stack) for stack in d.stacks]
        if later_seats(d) > 0:
            return min(slots, key=lambda s: (p[s], -heights[s], s))
        return max(slots, key=lambda s: (p[s], -heights[s], -s))


class FollowerAgent(StyleAgent):
    """``follower``: repeats the accusation of the seat just before it.

    It puts its marker on the slot the immediately preceding seat accused, whatever it
    knows itself (it is the one slot it did not see, so it has nothing against it), and
    as the round's first accuser, with no one to follow, it accuses the likeliest culprit.
    """

    name = "follower"

    def accuse_slot(self, d: DecodedObservation, p: Posterior, slots: list[int]) -> int:
        if d.accusations and d.accusations[-1][1] in slots:
            return d.accusations[-1][1]
        return likeliest(slots, p)


class ContrarianAgent(StyleAgent):
    """``contrarian``: accuses where nobody has accused yet this round.

    Among the slots with no marker it accuses the likeliest culprit; when every slot
    already has a stack (four or five seats) it accuses the shortest one, ties to the
    likelier culprit. It never joins a stack while an empty slot is left.
    """

    name = "contrarian"

    def accuse_slot(self, d: DecodedObservation, p: Posterior, slots: list[int]) -> int:
        heights = [len(stack) for stack in d.stacks]
        return min(slots, key=lambda s: (heights[s], -p[s], s))


class BlufferAgent(StyleAgent):
    """``bluffer``: as first player, swaps and accuses so as to mislead; otherwise greedy.

    As the round's first player it exchanges the victim (when the rules allow) with the
    seen suspect whose exchange leaves it surest of an innocent slot, ties to the
    likelier culprit (which it thereby removes, knowing it as the victim), then accuses
    the slot it holds least likely to be the culprit: a lie for any later seat that
    reads the first accusation as evidence, and a stack it hopes they pile onto. As a
    later seat it accuses the likeliest culprit, like ``greedy``.
    """

    name = "bluffer"

    def swap_slot(self, d: DecodedObservation, swaps: list[int]) -> int | None:
        if not swaps:
            return None
        pool, seen = knowledge(d)
        p = posterior(d)

        def after(slot: int) -> Posterior:
            slots = tuple(None if s == slot else seen[s] for s in range(3))
            return culprit_posterior(pool, (slots[0], slots[1], slots[2]))

        return min(swaps, key=lambda s: (min(after(s)), -p[s], s))

    def accuse_slot(self, d: DecodedObservation, p: Posterior, slots: list[int]) -> int:
        if d.first_player == 0 and not d.accusations:
            return min(slots, key=lambda s: (p[s], s))
        return likeliest(slots, p)


STYLES: dict[str, type[StyleAgent]] = {
    cls.name: cls
    for cls in (StackAvoiderAgent, PilerAgent, FollowerAgent, ContrarianAgent, BlufferAgent)
}
STYLE_NAMES: tuple[str, ...] = tuple(STYLES)
"""The registered names of the styles, in the order the gauntlet plays them."""


def make_style(name: str, arg: str | None = None, seed: int | None = None) -> StyleAgent:
    """The style called ``name`` (one of :data:`STYLE_NAMES`); it takes no argument."""
    if name not in STYLES:
        raise ValueError(f"unknown style {name!r}; styles: {list(STYLE_NAMES)}")
    if arg is not None:
        raise ValueError(f"the {name} agent takes no argument, got {arg!r}")
    return STYLES[name](seed=seed)


def make_stack_avoider(arg: str | None = None, seed: int | None = None) -> StyleAgent:
    """Registry factory for ``stack-avoider``."""
    return make_style("stack-avoider", arg, seed)


def make_piler(arg: str | None = None, seed: int | None = None) -> StyleAgent:
    """Registry factory for ``piler``."""
    return make_style("piler", arg, seed)


def make_follower(arg: str | None = None, seed: int | None = None) -> StyleAgent:
    """Registry factory for ``follower``."""
    return make_style("follower", arg, seed)


def make_contrarian(arg: str | None = None, seed: int | None = None) -> StyleAgent:
    """Registry factory for ``contrarian``."""
    return make_style("contrarian", arg, seed)


def make_bluffer(arg: str | None = None, seed: int | None = None) -> StyleAgent:
    """Registry factory for ``bluffer``."""
    return make_style("bluffer", arg, seed)
