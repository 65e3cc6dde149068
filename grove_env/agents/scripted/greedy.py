"""``greedy``: accuse the likeliest culprit by the exact posterior; nothing else.

The simplest agent that uses what it knows. It leaves slot 0 unseen when it is the
first player (before anyone looks, the slots are exchangeable), never swaps the
victim, and accuses the slot with the highest exact culprit odds
(:func:`grove_env.odds.culprit_counts`), ties going to the lowest slot. It ignores
the stacks, so it happily tops a large innocent stack; :mod:`grove_env.agents.heuristic.search`
does not. It is one of the styles of :mod:`grove_env.agents.scripted.styles`, which states its
rule.

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

from .styles import StyleAgent


class GreedyAgent(StyleAgent):
    """Accuses the likeliest culprit; trivial look (slot 0 unseen), never swaps."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__("greedy", seed)


def make(arg: str | None = None, seed: int | None = None) -> GreedyAgent:
    """Registry factory: ``greedy`` takes no argument and, being deterministic, no seed."""
    if arg is not None:
        raise ValueError(f"the greedy agent takes no argument, got {arg!r}")
    return GreedyAgent()
