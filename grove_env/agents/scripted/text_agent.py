"""``TextAgent``: a seat played through the text observation mode alone.

At each decision the agent hands its *reader* what the text mode shows the seat
(:mod:`grove_env.text_mode`): the JSON view (a string), the same in words, and the legal
moves by name. The reader answers with a move's name, which
:func:`~grove_env.text_mode.parse_move` turns back into the action. The reader is any
callable: a script (``text``, :mod:`grove_env.agents.heuristic.text_reader`), a person's
tool, or a language model behind an API (``docs/tutorials/text_agents.md``).

>>> from grove_env.agents.arena.match import decision_positions
>>> rows, masks = decision_positions("classic", 4, 1)
>>> TextAgent(lambda view, prose, moves: moves[-1]).act(
...     {"observation": rows[0], "action_mask": masks[0]})
2
"""

from __future__ import annotations

import json
from collections.abc import Callable

import numpy as np

from grove_env.text_mode import parse_move, seat_json, seat_prose

from ..base import BaseAgent

Reader = Callable[[str, str, list[str]], str]
"""``reader(json_view, prose, legal_moves) -> the name of a move``."""


class TextAgent(BaseAgent):
    """Asks ``reader`` for each move, showing it only the text mode's view of the seat."""

    def __init__(self, reader: Reader, name: str = "text", deterministic: bool = False) -> None:
        self.reader = reader
        self.name = name
        self.deterministic = deterministic

    def act(self, observation: dict[str, np.ndarray]) -> int:
        obs, mask = observation["observation"], observation["action_mask"]
        view = seat_json(obs, mask)
        reply = self.reader(json.dumps(view, sort_keys=True), seat_prose(obs, mask),
                            list(view["legal_moves"]))  # fmt: skip
        return parse_move(reply, mask)
