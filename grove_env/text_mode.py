"""The text observation mode: a seat's information state as JSON and as prose, moves by name.

For agents that read and write text (a language model, a script, a person's tool). It
is made from the seat's observation vector (:mod:`grove_env.observation`), which holds
exactly the seat's information state, and it loses nothing: :func:`vector_of` gives the
vector back. The PettingZoo wrapper :class:`grove_env.wrappers.TextObservations` serves
it as each seat's observation; :func:`parse_move` turns a move's name back into an action.

The JSON (``schema`` ``"grove-observation"``, :data:`VERSION` 1; a field's meaning never
changes within a version, a new field or meaning is a new version). Seats are relative:
0 is the reader, ``r`` the seat ``r`` places clockwise. Tiles are numbers, 0 the blank
(``X`` in the revised rules); ``null`` is a tile the seat does not know.

====================  =============================================================
field                 meaning
====================  =============================================================
``schema``            ``"grove-observation"``
``version``           the schema's version, :data:`VERSION`
``players``           seats at the table, 2 to 5
``rules``             ``name`` (``classic``/``revised``, the registered set these
                      fields match) and its fields: ``victim_swap``,
                      ``culprit_markers_removed``, ``penalty_scoring``,
                      ``markers_per_player``, ``end_markers_held``,
                      ``end_penalty_held`` (0: no such end)
``tiles_in_play``     every tile of this table's deal, sorted
``round``             the round, from 1
``phase``             ``look``, ``swap``, ``accuse`` or ``over``
``to_act``            the relative seat to act (``null`` once the game is over)
``first_player``      the relative seat that began this round
``my_tiles``          ``dealt``: the tile you peeked and passed on; ``received``: the
                      tile passed to you (neither is a suspect)
``spare``             the face-up spare tile (revised two-player game), else ``null``
``suspects``          three slots: ``slot``, ``tile`` you know there (or ``null``),
                      ``unseen`` / ``tampered`` (bools), ``stack``: relative seats of
                      the markers under it, bottom to top
``victim``            the victim, if you swapped it out (else ``null``)
``accusations``       this round's accusations in order: ``[relative seat, slot]``
``markers``           per relative seat: ``seat``, ``coloured``, ``penalty`` held
``legal_moves``       the names of the legal moves (:func:`legal_moves`)
====================  =============================================================

>>> from grove_env.core import Game
>>> from grove_env.observation import ObservationEncoder
>>> g = Game("classic", 4, deals=[(2, 3, 4, 6, 5, 7, 8, 0)])
>>> obs = ObservationEncoder(g.rules, 4).encode(g, 0)
>>> view = seat_json(obs, [1, 1, 1, 0, 0, 0, 0, 0, 0, 0])
>>> view["phase"], view["my_tiles"], view["legal_moves"][0]
('look', {'dealt': 2, 'received': 3}, 'leave slot 0 unseen')
>>> parse_move("Leave slot 0 unseen"), (vector_of(view) == obs).all()
(0, np.True_)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from grove_env.actions import NUM_ACTIONS, Phase, action_name
from grove_env.messages import one_line
from grove_env.observation import (
    COUNT_SCALE,
    OBS_SIZE,
    OFF_ACCUSATIONS,
    OFF_COLOURED,
    OFF_DEALT,
    OFF_FIRST,
    OFF_PENALTY,
    OFF_PHASE,
    OFF_PLAYERS,
    OFF_PRESENT,
    OFF_RECEIVED,
    OFF_ROUND,
    OFF_RULES,
    OFF_SEEN,
    OFF_SPARE,
    OFF_TAMPERED,
    OFF_TILES_IN_PLAY,
    OFF_TO_ACT,
    OFF_UNSEEN,
    OFF_VICTIM,
    ROUND_SCALE,
    TILE_INDEX,
    DecodedObservation,
    decode,
)
from grove_env.text import describe_observation, rules_shown

SCHEMA = "grove-observation"
VERSION = 1
MOVES = {action_name(a): a for a in range(NUM_ACTIONS)}
"""Every move's name and its action."""


def legal_moves(mask: Sequence[int] | np.ndarray) -> list[str]:
    """The names of the actions ``mask`` allows, in action order."""
    return [action_name(a) for a in range(NUM_ACTIONS) if mask[a]]


def parse_move(text: str, mask: Sequence[int] | np.ndarray | None = None) -> int:
    """The action a move's name names (case and spacing aside); with ``mask``, it must
    be legal. Anything else is a ``ValueError`` of one line that lists the moves.

    >>> parse_move("  accuse   SLOT 2 ")
    9
    >>> parse_move("accuse the butler")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: 'accuse the butler' is not a move; the moves are: leave slot 0 unseen, ...
    """
    if not isinstance(text, str):
        raise ValueError(f"a move is a name (a string), got {type(text).__name__}")
    action = MOVES.get(" ".join(text.lower().split()))
    if action is None:
        names = list(MOVES) if mask is None else legal_moves(mask)
        raise ValueError(one_line(f"{text!r} is not a move; the moves are: {', '.join(names)}"))
    if mask is not None and not mask[action]:
        legal = ", ".join(legal_moves(mask))
        raise ValueError(one_line(f"{text!r} is not legal now; the legal moves are: {legal}"))
    return action


def seat_json(observation: np.ndarray, mask: Sequence[int] | np.ndarray) -> dict[str, Any]:
    """The JSON view (a dict of JSON types) of one seat's observation and action mask."""
    d = decode(observation)
    stacks = d.stacks
    return {
        "schema": SCHEMA, "version": VERSION, "players": d.num_players,
        "rules": {
            "name": rules_shown(d).name, "victim_swap": d.victim_swap,
            "culprit_markers_removed": d.culprit_markers_removed,
            "penalty_scoring": d.penalty_scoring, "markers_per_player": d.markers_per_player,
            "end_markers_held": d.end_markers_held, "end_penalty_held": d.end_penalty_held,
        },
        "tiles_in_play": sorted(d.tiles_in_play), "round": d.round,
        "phase": d.phase.name.lower(), "to_act": d.to_act, "first_player": d.first_player,
        "my_tiles": {"dealt": d.my_tiles[0], "received": d.my_tiles[1]}, "spare": d.spare,
        "suspects": [
            {"slot": s, "tile": d.seen[s], "unseen": d.unseen_slot == s,
             "tampered": d.tampered_slot == s, "stack": list(stacks[s])}
            for s in range(3)
        ],
        "victim": d.victim, "accusations": [list(a) for a in d.accusations],
        "markers": [
            {"seat": r, "coloured": c, "penalty": p}
            for r, (c, p) in enumerate(zip(d.coloured, d.penalty))
        ],
        "legal_moves": legal_moves(mask),
    }  # fmt: skip


def seat_prose(observation: np.ndarray, mask: Sequence[int] | np.ndarray) -> str:
    """The same view in words (:func:`grove_env.text.describe_observation`), then the moves."""
    moves = "\n".join(f"  - {name}" for name in legal_moves(mask))
    return f"{describe_observation(decode(observation))}\nLegal moves:\n{moves}"


def vector_of(view: dict[str, Any]) -> np.ndarray:
    """The observation vector a JSON view was made from (a ``ValueError`` for a view of
    another schema or version): nothing of the information state is lost in the JSON."""
    if view.get("schema") != SCHEMA or view.get("version") != VERSION:
        raise ValueError(f"not a {SCHEMA} view of version {VERSION}")
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    n, rules = view["players"], view["rules"]
    obs[OFF_PLAYERS + n - 2] = 1.0
    counts = ("markers_per_player", "end_markers_held", "end_penalty_held")
    flags = ("victim_swap", "culprit_markers_removed", "penalty_scoring")
    obs[OFF_RULES : OFF_RULES + 6] = [float(rules[f]) for f in flags] + [
        rules[c] / COUNT_SCALE for c in counts
    ]
    for tile in view["tiles_in_play"]:
        obs[OFF_TILES_IN_PLAY + TILE_INDEX[tile]] += 0.5
    obs[OFF_PRESENT : OFF_PRESENT + n] = 1.0
    tiles = [(OFF_DEALT, view["my_tiles"]["dealt"]), (OFF_RECEIVED, view["my_tiles"]["received"]),
             (OFF_SPARE, view["spare"]), (OFF_VICTIM, view["victim"])]  # fmt: skip
    tiles += [(OFF_SEEN + 8 * s["slot"], s["tile"]) for s in view["suspects"]]
    for offset, tile in tiles:
        if tile is not None:
            obs[offset + TILE_INDEX[tile]] = 1.0
    for s in view["suspects"]:
        obs[OFF_UNSEEN + s["slot"]] = float(s["unseen"])
        obs[OFF_TAMPERED + s["slot"]] = float(s["tampered"])
    obs[OFF_FIRST + view["first_player"]] = 1.0
    if view["to_act"] is not None:
        obs[OFF_TO_ACT + view["to_act"]] = 1.0
    obs[OFF_PHASE + int(Phase[view["phase"].upper()])] = 1.0
    for k, (_, slot) in enumerate(view["accusations"]):
        obs[OFF_ACCUSATIONS + 3 * k + slot] = 1.0
    for m in view["markers"]:
        obs[OFF_COLOURED + m["seat"]] = m["coloured"] / COUNT_SCALE
        obs[OFF_PENALTY + m["seat"]] = m["penalty"] / COUNT_SCALE
    obs[OFF_ROUND] = (view["round"] - 1) / ROUND_SCALE
    return obs


def decoded_of(view: dict[str, Any]) -> DecodedObservation:
    """The :class:`~grove_env.observation.DecodedObservation` of a JSON view."""
    return decode(vector_of(view))
