"""In a Grove registered with OpenSpiel (the ``openspiel`` extra): import, then load.

>>> import pyspiel, grove_env.openspiel                          # doctest: +SKIP
>>> pyspiel.load_game("python_grove(players=3,rules=revised)")   # doctest: +SKIP

============================ ==========================================================
``python_grove``             the whole game; parameters ``players`` (2), ``rules``
                             (``classic``), ``max_rounds`` (100). Utility: the env's
                             ``outcome`` reward (0 for a game cut off by ``max_rounds``)
``python_grove_round``       one round from a public marker state; parameters
                             ``players``, ``rules``, ``coloured`` and ``penalty`` (counts
                             per seat as ``"5 4"``; empty: the start of a game),
                             ``first_player`` (0), ``round`` (1). Utility: the env's
                             ``markers`` reward, the centred change of each score count
============================ ==========================================================

Both are sequential, zero-sum, with imperfect information and explicit stochastic chance:
each deal is dealt tile by tile in the deal's order (seats, suspects, victim, spare), a
chance outcome being the tile's value with probability (copies left) / (tiles left).
Actions are the env's ``Discrete(10)``. The observation tensor and string are the env's
observation (:class:`~grove_env.observation.ObservationEncoder`, and
:func:`~grove_env.text.describe_observation` of it); zeros and ``"dealing"`` while a deal
is in progress. The information state has perfect recall: within a round the observation
already has it; ``python_grove`` adds, per finished round, the seat's last observation of
that round, the last accusation and the revealed suspects.
At the end of a round the Game has applied the resolution; the round game then shows the
table after it (the Game re-deals the same tiles, so no randomness hides there).

Registration is per process: worker processes must import this module too.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyspiel

from grove_env.actions import ACCUSE_0, NUM_ACTIONS, action_name
from grove_env.core import Game, RoundRecord
from grove_env.observation import OBS_SIZE, TILE_INDEX, ObservationEncoder, decode
from grove_env.rules import MAX_PLAYERS, TILE_VALUES, RuleSet, get_rules
from grove_env.text import describe_observation, tile_name

ROUND_BLOCK = OBS_SIZE + 3 + 24
"""Per finished round in a ``python_grove`` information state: last observation, last
accusation (one-hot), revealed suspects (one-hot per slot)."""

_WHOLE_PARAMS = {"players": 2, "rules": "classic", "max_rounds": 100}
_ROUND_PARAMS = {
    "players": 2,
    "rules": "classic",
    "coloured": "",
    "penalty": "",
    "first_player": 0,
    "round": 1,
}


def _game_type(short_name: str, long_name: str, params: dict) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=MAX_PLAYERS,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=params,
    )


WHOLE_TYPE = _game_type("python_grove", "Python In a Grove", _WHOLE_PARAMS)
ROUND_TYPE = _game_type("python_grove_round", "Python In a Grove, one round", _ROUND_PARAMS)


def _counts(text: str, name: str, n: int) -> tuple[int, ...]:
    try:
        counts = tuple(int(c) for c in text.replace(",", " ").split())
    except ValueError:
        raise ValueError(f"{name} lists one int per seat, got {text!r}") from None
    if len(counts) != n:
        raise ValueError(f"{name} lists {n} counts (one per seat), got {text!r}")
    return counts


@dataclass(frozen=True)
class Table:
    """A loaded game's parameters, as plain values (states keep this, not the Game)."""

    rules: RuleSet
    num_players: int
    whole: bool
    max_rounds: int
    coloured: tuple[int, ...]
    penalty: tuple[int, ...]
    first_player: int
    round: int

    def __deepcopy__(self, memo: dict) -> Table:
        return self  # immutable: OpenSpiel's clone deep-copies every state attribute

    @classmethod
    def of(cls, params: dict, whole: bool) -> Table:
        p = {**(_WHOLE_PARAMS if whole else _ROUND_PARAMS), **(params or {})}
        rules = get_rules(str(p["rules"]))
        n = rules.check_players(int(p["players"]))
        coloured = _counts(p.get("coloured") or "", "coloured", n) if p.get("coloured") else ()
        penalty = _counts(p.get("penalty") or "", "penalty", n) if p.get("penalty") else ()
        first = int(p.get("first_player", 0))
        if not 0 <= first < n:
            raise ValueError(f"first_player must be in 0..{n - 1}, got {first}")
        if coloured and min(coloured) < 1:
            raise ValueError(f"every seat needs a coloured marker to place, got {coloured}")
        max_rounds = int(p.get("max_rounds", 1)) if whole else 1
        if max_rounds < 1:
            raise ValueError(f"max_rounds must be >= 1, got {max_rounds}")
        return cls(
            rules=rules,
            num_players=n,
            whole=whole,
            max_rounds=max_rounds,
            coloured=coloured or (rules.markers_per_player,) * n,
            penalty=penalty or (0,) * n,
            first_player=first,
            round=int(p.get("round", 1)),
        )

    def info(self) -> pyspiel.GameInfo:
        n, decisions = self.num_players, (2 if self.rules.victim_swap else 1) + self.num_players
        bound = 1.0 if self.whole else float(n)
        return pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=max(TILE_INDEX) + 1,
            num_players=n,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0,
            max_game_length=self.max_rounds * decisions,
        )


class GroveGame(pyspiel.Game):
    """``python_grove`` (``whole=True``) or ``python_grove_round``."""

    def __init__(self, params: dict | None = None, whole: bool = True) -> None:
        self.table = Table.of(params or {}, whole)
        game_type = WHOLE_TYPE if whole else ROUND_TYPE
        super().__init__(game_type, self.table.info(), params or {})

    def new_initial_state(self) -> GroveState:
        return GroveState(self, self.table)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> GroveObserver:
        if params:
            raise ValueError(f"python_grove observers take no parameters, got {params}")
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return GroveObserver(self.table, perfect_recall)


class GroveRoundGame(GroveGame):
    def __init__(self, params: dict | None = None) -> None:
        super().__init__(params, whole=False)


class Past(tuple):
    """Finished rounds' records (read-only arrays), shared between clones."""

    def __deepcopy__(self, memo: dict) -> Past:
        return self


class Round:
    """The round in play as a :class:`Game`, from a deal and a marker state.

    OpenSpiel clones a state by deep-copying its attributes; a copy of this replays the
    round's few actions, which is far cheaper than deep-copying a ``Game``.
    """

    def __init__(self, table: Table, deal: tuple[int, ...], state: tuple) -> None:
        self.table, self.deal, self.state = table, deal, state
        coloured, penalty, first_player, round_number = state
        game = Game(table.rules, table.num_players, seed=0, deals=[deal, deal])
        game.coloured, game.penalty = list(coloured), list(penalty)
        game.first_player = game.current_player = first_player
        game.round = round_number
        self.game = game
        self.start_scores = game.scores()
        self.actions: list[int] = []

    def play(self, action: int) -> RoundRecord | None:
        self.actions.append(action)
        return self.game.apply_action(action)

    def __deepcopy__(self, memo: dict) -> Round:
        twin = Round(self.table, self.deal, self.state)
        for action in self.actions:
            twin.play(action)
        return twin


class GroveState(pyspiel.State):
    """A position: the deal being dealt, or a :class:`Game` in its round."""

    def __init__(self, game: pyspiel.Game, table: Table) -> None:
        super().__init__(game)
        self.table = table
        self.coloured = list(table.coloured)
        self.penalty = list(table.penalty)
        self.first_player = table.first_player
        self.round = table.round
        self.deal: list[int] = []
        self.play: Round | None = None
        self.past = Past()
        """Per finished round, ``float32[n, ROUND_BLOCK]``: each seat's record of it."""
        self.over = False
        self.utility = [0.0] * table.num_players

    def current_player(self) -> int:
        if self.over:
            return int(pyspiel.PlayerId.TERMINAL)
        if self.play is None:
            return int(pyspiel.PlayerId.CHANCE)
        return self.play.game.current_player

    @property
    def game(self) -> Game | None:
        """The round's :class:`Game` (``None`` while dealing)."""
        return None if self.play is None else self.play.game

    def _legal_actions(self, player: int) -> list[int]:
        assert self.play is not None
        return self.play.game.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = Counter(self.table.rules.tiles(self.table.num_players))
        left.subtract(self.deal)
        total = sum(left.values())
        return [(t, c / total) for t, c in sorted(left.items()) if c > 0]

    def _apply_action(self, action: int) -> None:
        t = self.table
        if self.play is None:
            self.deal.append(int(action))
            if len(self.deal) == len(t.rules.tiles(t.num_players)):
                marker_state = (self.coloured, self.penalty, self.first_player, self.round)
                self.play = Round(t, tuple(self.deal), marker_state)
            return
        game = self.play.game
        if not (len(game.accusations) == t.num_players - 1 and action >= ACCUSE_0):
            self.play.play(action)
            return
        encoder = ObservationEncoder(t.rules, t.num_players)
        seen = [encoder.encode(game, s) for s in range(t.num_players)]
        record = self.play.play(action)
        assert record is not None
        block = np.zeros((t.num_players, ROUND_BLOCK), np.float32)
        block[:, :OBS_SIZE] = seen
        block[:, OBS_SIZE + action - ACCUSE_0] = 1.0
        for slot, tile in enumerate(record.suspects):
            block[:, OBS_SIZE + 3 + 8 * slot + TILE_INDEX[tile]] = 1.0
        block.flags.writeable = False
        self.past = Past((*self.past, block))
        if not t.whole:
            delta = [s - b for s, b in zip(game.scores(), self.play.start_scores)]
            mean = sum(delta) / len(delta)
            self.utility = [-(d - mean) for d in delta]
            self.over = True
        elif game.terminal:
            self.utility = game.returns()
            self.over = True
        elif record.number - t.round + 1 >= t.max_rounds:
            self.over = True  # cut off: truncated, no terminal reward
        else:
            self.coloured, self.penalty = list(record.coloured), list(record.penalty)
            self.first_player = game.first_player
            self.round = record.number + 1
            self.deal, self.play = [], None

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {tile_name(action, self.table.rules.name)}"
        return action_name(action)

    def is_terminal(self) -> bool:
        return self.over

    def returns(self) -> list[float]:
        return list(self.utility) if self.over else [0.0] * self.table.num_players

    def __str__(self) -> str:
        if self.game is None:
            return f"round {self.round}: dealing, {len(self.deal)} tiles dealt"
        return str(self.game)


class GroveObserver:
    """Observation (``perfect_recall=False``) or information state of a seat."""

    def __init__(self, table: Table, perfect_recall: bool) -> None:
        self.table = table
        self.encoder = ObservationEncoder(table.rules, table.num_players)
        self.recall = perfect_recall and table.whole
        rounds = table.max_rounds - 1 if self.recall else 0
        self.tensor = np.zeros(OBS_SIZE + rounds * ROUND_BLOCK, np.float32)
        self.dict = {
            "observation": self.tensor[:OBS_SIZE],
            "past_rounds": self.tensor[OBS_SIZE:].reshape(rounds, ROUND_BLOCK),
        }

    def set_from(self, state: GroveState, player: int) -> None:
        self.tensor.fill(0.0)
        if state.game is not None:
            self.encoder.encode(state.game, player, self.dict["observation"])
        if self.recall:
            for k, block in enumerate(state.past[: len(self.dict["past_rounds"])]):
                self.dict["past_rounds"][k] = block[player]

    def string_from(self, state: GroveState, player: int) -> str:
        now = (
            describe_observation(decode(self.encoder.encode(state.game, player)))
            if state.game is not None
            else f"round {state.round}: dealing"
        )
        if not self.recall:
            return now
        rules = self.table.rules.name
        done = []
        for block in state.past:
            d = decode(block[player, :OBS_SIZE])
            last = int(np.flatnonzero(block[player, OBS_SIZE : OBS_SIZE + 3])[0])
            tiles = block[player, OBS_SIZE + 3 :].reshape(3, 8).argmax(axis=1)
            shown = " ".join(tile_name(TILE_VALUES[i], rules) for i in tiles)
            done.append(
                f"{describe_observation(d)}\n  last accusation: slot {last}; "
                f"suspects revealed: {shown}"
            )
        return "\n".join([*done, now])


pyspiel.register_game(WHOLE_TYPE, GroveGame)
pyspiel.register_game(ROUND_TYPE, GroveRoundGame)
