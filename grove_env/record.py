"""Game records as JSON: the deal, every action and every round result of one game.

A record is plain JSON data, built from a :class:`~grove_env.core.Game`'s history by
:func:`record_game` (tournaments, the web server and the environment's game all record
through it), checked and read back by :func:`load_record`, and played again by
:func:`replay`, which checks every round result against the rules::

    {"format": "grove-record", "version": 1, "rules": "classic", "num_players": 4,
     "players": ["heuristic", "random", ...],          # labels per seat, optional
     "rounds": [{"number": 1, "first_player": 0, "deal": [...],
                 "actions": [{"seat": 0, "action": 0, "name": "leave slot 0 unseen"}, ...],
                 "result": {"suspects": [...], "culprit": 1, "stacks": [[...], ...],
                            "unseen_slot": 0, "tampered_slot": null, "penalty_flows": [...],
                            "returned": [...], "removed": [...],
                            "coloured": [...], "penalty": [...]}}, ...],
     "final": {"terminal": true, "scores": [...], "standings": [...]}}

The actions of a finished round follow from its :class:`~grove_env.core.RoundRecord`
(the look leaves the unseen slot, the swap fills the tampered slot, then the
accusations), so a record needs nothing beyond the core's history.

>>> g = Game("classic", 3, seed=1)
>>> while not g.terminal:
...     _ = g.apply_action(g.legal_actions()[0])
>>> data = record_game(g)
>>> replay(load_record(data)).scores() == g.scores()
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from grove_env.actions import KEEP, accuse, action_name, leave, swap
from grove_env.core import Game, RoundRecord

FORMAT = "grove-record"
VERSION = 1
_RESULT_FIELDS = (
    "suspects",
    "culprit",
    "stacks",
    "unseen_slot",
    "tampered_slot",
    "penalty_flows",
    "returned",
    "removed",
    "coloured",
    "penalty",
)


def round_actions(game: Game, record: RoundRecord) -> list[tuple[int, int]]:
    """``(seat, action)`` for every move of a finished round, in order."""
    first = record.first_player
    moves = [(first, leave(record.unseen_slot))]
    if game.rules.victim_swap:
        tampered = record.tampered_slot
        moves.append((first, KEEP if tampered is None else swap(tampered)))
    moves += [(seat, accuse(slot)) for seat, slot in record.accusations]
    return moves


def _jsonable(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [_jsonable(v) for v in value]
    return value


def round_result(record: RoundRecord) -> dict[str, Any]:
    """The public outcome of a finished round as JSON data (its reveal and marker counts)."""
    return {name: _jsonable(getattr(record, name)) for name in _RESULT_FIELDS}


def record_game(game: Game, players: Sequence[str] | None = None) -> dict[str, Any]:
    """The record of ``game``'s finished rounds (see the module docstring)."""
    if players is not None and len(players) != game.num_players:
        raise ValueError(f"{game.num_players} seats need {game.num_players} player labels")
    rounds = [
        {
            "number": r.number,
            "first_player": r.first_player,
            "deal": list(r.deal),
            "actions": [
                {"seat": seat, "action": action, "name": action_name(action)}
                for seat, action in round_actions(game, r)
            ],
            "result": round_result(r),
        }
        for r in game.history
    ]
    return {
        "format": FORMAT,
        "version": VERSION,
        "rules": game.rules.name,
        "num_players": game.num_players,
        "players": list(players) if players is not None else None,
        "rounds": rounds,
        "final": {
            "terminal": game.terminal,
            "scores": game.scores(),
            "standings": game.standings(),
        },
    }


@dataclass(frozen=True)
class GameRecord:
    """A checked record: what :func:`replay` needs, read from the JSON data."""

    rules: str
    num_players: int
    players: tuple[str, ...] | None
    deals: tuple[tuple[int, ...], ...]
    actions: tuple[tuple[tuple[int, int], ...], ...]  # per round, (seat, action)
    results: tuple[dict[str, Any], ...]  # per round, as in the JSON
    data: dict[str, Any]

    @property
    def steps(self) -> list[tuple[int, int]]:
        """Every ``(seat, action)`` of the game, in order."""
        return [move for moves in self.actions for move in moves]


def _need(cond: bool, what: str) -> None:
    if not cond:
        raise ValueError(f"not a game record: {what}")


def _int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def load_record(data: object) -> GameRecord:
    """Check the shape of record ``data`` (parsed JSON); ``ValueError`` says what is wrong.

    The rules themselves are checked by :func:`replay`.
    """
    _need(isinstance(data, dict), "the top level is not an object")
    assert isinstance(data, dict)
    _need(data.get("format") == FORMAT, f"'format' is not {FORMAT!r}")
    _need(data.get("version") == VERSION, f"'version' is not {VERSION}")
    _need(isinstance(data.get("rules"), str), "'rules' is not a string")
    _need(_int(data.get("num_players")), "'num_players' is not an int")
    players = data.get("players")
    _need(
        players is None or (isinstance(players, list) and all(isinstance(p, str) for p in players)),
        "'players' is not a list of strings",
    )
    rounds = data.get("rounds")
    _need(isinstance(rounds, list) and len(rounds) > 0, "'rounds' is not a non-empty list")
    assert isinstance(rounds, list)
    deals, actions, results = [], [], []
    for k, r in enumerate(rounds, start=1):
        _need(isinstance(r, dict), f"round {k} is not an object")
        deal, moves, result = r.get("deal"), r.get("actions"), r.get("result")
        _need(isinstance(deal, list) and all(_int(t) for t in deal), f"round {k}: bad 'deal'")
        _need(isinstance(moves, list), f"round {k}: 'actions' is not a list")
        _need(isinstance(result, dict), f"round {k}: 'result' is not an object")
        assert isinstance(deal, list) and isinstance(moves, list) and isinstance(result, dict)
        for m in moves:
            _need(
                isinstance(m, dict) and _int(m.get("seat")) and _int(m.get("action")),
                f"round {k}: an action is not {{'seat': int, 'action': int}}",
            )
        deals.append(tuple(deal))
        actions.append(tuple((m["seat"], m["action"]) for m in moves))
        results.append(result)
    return GameRecord(
        rules=data["rules"],
        num_players=data["num_players"],
        players=tuple(players) if players is not None else None,
        deals=tuple(deals),
        actions=tuple(actions),
        results=tuple(results),
        data=data,
    )


def replay(record: GameRecord, steps: int | None = None) -> Game:
    """The game after the first ``steps`` actions of ``record`` (all when ``None``).

    Raises ``ValueError`` if the record breaks the rules: a bad deal, a move out of turn
    or illegal, a round whose actions do not end it, or a result that differs from the
    one the rules give.
    """
    game = Game(record.rules, record.num_players, deals=record.deals)
    budget = len(record.steps) if steps is None else steps
    for number, moves in enumerate(record.actions, start=1):
        for k, (seat, action) in enumerate(moves):
            if budget == 0:
                return game
            if game.terminal or seat != game.current_player:
                raise ValueError(
                    f"record round {number}, move {k + 1}: seat {seat} moves, but "
                    + (
                        "the game is over"
                        if game.terminal
                        else f"seat {game.current_player} is to act"
                    )
                )
            ended = game.apply_action(action)
            budget -= 1
            if (ended is not None) != (k == len(moves) - 1):
                raise ValueError(f"record round {number}: its actions do not end the round")
            if ended is not None:
                _check_result(number, round_result(ended), record.results[number - 1])
    return game


def _check_result(number: int, actual: dict[str, Any], claimed: dict[str, Any]) -> None:
    for name in _RESULT_FIELDS:
        if name in claimed and claimed[name] != actual[name]:
            raise ValueError(
                f"record round {number}: {name} is {claimed[name]!r}, "
                f"the rules give {actual[name]!r}"
            )
