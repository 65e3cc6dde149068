"""``greedy``: accuse the likeliest culprit by the exact posterior; nothing else.

The simplest agent that uses what it knows. It leaves slot 0 unseen when it is the
first player (before anyone looks, the slots are exchangeable), never swaps the
victim, and accuses the slot with the highest posterior probability of being the
culprit (:mod:`grove_env.agents.posterior`), ties going to the lowest slot. It ignores the stacks,
so it happily tops a large innocent stack; :mod:`grove_env.agents.heuristic` does not.

>>> from grove_env.core import Game
>>> from grove_env.observation import ObservationEncoder
>>> g = Game("classic", 4, deals=[(2, 3, 4, 6, 5, 7, 8, 0)])
>>> enc = ObservationEncoder(g.rules, 4)
>>> agent = GreedyAgent()
>>> def obs(seat):
...     mask = [int(g.is_legal(a)) for a in range(10)]
...     return {"observation": enc.encode(g, seat), "action_mask": mask}
>>> agent.act(obs(0))                      # look: leave slot 0 unseen
0
>>> g.apply_action(0); agent.act(obs(0))   # sees 7 and 8 (no 5 showing): keep
3
>>> g.apply_action(3); agent.act(obs(0))   # the 8 is guilty unless slot 0 is a 5
9
"""

from __future__ import annotations

import numpy as np

from grove_env.actions import ACCUSE_0, KEEP, LEAVE_0, Phase
from grove_env.observation import decode

from .base import BaseAgent
from .posterior import posterior


class GreedyAgent(BaseAgent):
    """Accuses the likeliest culprit; trivial look (slot 0 unseen), never swaps."""

    name = "greedy"

    def act(self, observation: dict[str, np.ndarray]) -> int:
        mask = np.asarray(observation["action_mask"])
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("greedy agent asked to act with an all-zero action mask")
        d = decode(observation["observation"])
        if d.phase is Phase.ACCUSE:
            p = posterior(d)
            best = max((s for s in range(3) if mask[ACCUSE_0 + s]), key=lambda s: (p[s], -s))
            return ACCUSE_0 + best
        preferred = LEAVE_0 if d.phase is Phase.LOOK else KEEP
        return preferred if mask[preferred] else int(legal[0])


def make(arg: str | None = None, seed: int | None = None) -> GreedyAgent:
    """Registry factory: ``greedy`` takes no argument and, being deterministic, no seed."""
    if arg is not None:
        raise ValueError(f"the greedy agent takes no argument, got {arg!r}")
    return GreedyAgent()
