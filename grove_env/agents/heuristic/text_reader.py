"""``text``: the heuristic's rule, read from the text observation mode alone.

A scripted stand-in for a language model behind
:class:`~grove_env.agents.scripted.text_agent.TextAgent`: :class:`HeuristicReader` parses
the JSON view it is handed (never the vector the environment holds), rebuilds the
position from it (:func:`grove_env.text_mode.vector_of`), and answers with the *name* of
the move the reference heuristic picks there. So the whole text path (JSON out, a name
back, :func:`~grove_env.text_mode.parse_move`) is played end to end, and the ``text``
agent's gauntlet should equal the heuristic's.

>>> agent = make()
>>> agent.name, agent.deterministic
('text', True)
"""

from __future__ import annotations

import json

import numpy as np

from grove_env.actions import NUM_ACTIONS, action_name
from grove_env.text_mode import parse_move, vector_of

from ..scripted.text_agent import TextAgent
from .search import HeuristicAgent, parse_params


class HeuristicReader:
    """Reads a JSON view and names the move the heuristic (with ``params``) would play."""

    def __init__(self, arg: str | None = None) -> None:
        self.heuristic = HeuristicAgent(parse_params(arg))

    def __call__(self, view_json: str, prose: str, moves: list[str]) -> str:
        view = json.loads(view_json)
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        for name in view["legal_moves"]:
            mask[parse_move(name)] = 1
        action = self.heuristic.act({"observation": vector_of(view), "action_mask": mask})
        return action_name(action)


def make(arg: str | None = None, seed: int | None = None) -> TextAgent:
    """Registry factory: ``text`` (``text:noise=0.2`` passes options to the heuristic)."""
    return TextAgent(HeuristicReader(arg), deterministic=True)
