"""``cfr``: a solved strategy (CFR+), looked up by the seat's observation.

Two kinds of solution ship in the package for two-player tables, and the whole game
at revised 3p too, all solved by ``python -m grove_env.analysis solve``:

- ``cfr`` plays the **whole game** (``grove_env/data/cfr_<rules>_<n>p_game.npz``,
  ``solve --whole-game``): one strategy per public state (the marker counts at the
  round's start and the round number), each a CFR+ solution of the round whose payoffs
  are what the game is worth afterwards (the ``outcome`` reward);
- ``cfr-round`` plays **one round** (``grove_env/data/cfr_<rules>_<n>p.npz``): CFR+ on a
  round with the ``markers`` reward, the same strategy in every round.

Either picks the file of the table it sits at (read from the observation); ``cfr:PATH``
and ``cfr-round:PATH`` read another file of either kind. Files hold plain arrays (loaded
with ``allow_pickle=False``). A round file:

============ ================ ==================================================
array        type             content
============ ================ ==================================================
``keys``     uint8[M, 15]     :func:`strategy_key` of each information set
``probs``    float32[M, 3]    probability of each legal action, in sorted order
``table``    str              ``"<rules> <players>"``
``note``     str              how it was solved, and its NashConv
============ ================ ==================================================

A whole-game file (``S`` public states, ``U`` distinct stage strategies; seat ``k`` is
the seat ``k`` places after the round's first player):

============== ================== ================================================
array          type               content
============== ================== ================================================
``keys``       uint8[M, 15]       :func:`strategy_key` of each information set
``probs``      uint16[U, M, 3]    probability x 65535 of each legal action, in
                                  sorted order (each triple sums to 65535), per
                                  stage strategy and information set; or uint8,
                                  x 255 (triples sum to 255: half the size, for
                                  the three-player file)
``coloured``   int8[S, n]         coloured markers seat ``k`` holds as the round starts
``penalty``    int8[S, n]         penalty markers seat ``k`` holds as the round starts
``round``      int16[S]           the round number
``stage``      int32[S]           the stage strategy (index into ``U``) the state plays
``max_rounds`` int16              the round limit it was solved for
``table``      str                ``"<rules> <players>"``
``note``       str                how it was solved, and its NashConv
============== ================== ================================================

The key is the observation without the marker counts and the round number; in a
whole-game file those pick the stage. Mid-round an observation's coloured counts lack
the markers placed so far, so each seat that has accused gets its marker back to find
the state. Past ``max_rounds`` (a game with a longer limit) a state plays as the same
counts did at the earliest round they were solved for, the round furthest from the
limit. The agent samples its action (seeded).

>>> agent = make(seed=0)
>>> agent.name
'cfr'
"""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path

import numpy as np

from grove_env.messages import describe
from grove_env.observation import (
    COUNT_SCALE,
    MAX_PLAYERS,
    OFF_ACCUSATIONS,
    OFF_COLOURED,
    OFF_FIRST,
    OFF_PENALTY,
    OFF_PLAYERS,
    OFF_PRESENT,
    OFF_ROUND,
    ROUND_SCALE,
    decode,
)

from ..base import BaseAgent

KEY_INDICES = np.r_[0:OFF_COLOURED, OFF_PRESENT:OFF_ROUND]
"""Observation entries a strategy is keyed on: everything but counts and round."""

PROB_SCALE = 65535
"""A whole-game file's probabilities are integers out of this (``uint16``), or out of
:data:`PROB_SCALE_SMALL` (``uint8``)."""

PROB_SCALE_SMALL = 255
"""The scale of a whole-game file stored in ``uint8``."""


def prob_scale(dtype: np.dtype) -> int:
    """The integer a whole-game file's probabilities are out of, by their type."""
    scales = {np.dtype(np.uint16): PROB_SCALE, np.dtype(np.uint8): PROB_SCALE_SMALL}
    if np.dtype(dtype) not in scales:
        raise ValueError(f"a whole-game strategy's probabilities are uint16 or uint8, not {dtype}")
    return scales[np.dtype(dtype)]


def strategy_key(observation: np.ndarray) -> bytes:
    """The part of an observation a round strategy depends on, packed into bytes."""
    return np.packbits(np.asarray(observation)[KEY_INDICES] != 0).tobytes()


def data_file(rules: str, num_players: int, whole_game: bool = True) -> Path:
    """The shipped strategy file of a table (it may not exist)."""
    name = f"cfr_{rules}_{num_players}p{'_game' if whole_game else ''}.npz"
    return Path(str(resources.files("grove_env") / "data" / name))


def round_start_states(observations: np.ndarray) -> np.ndarray:
    """``int64[K, 2n + 1]``: each observation's state as the round started.

    Coloured then penalty counts from the round's first player on, then the round.
    """
    obs = np.asarray(observations)
    n = int(obs[0, OFF_PLAYERS : OFF_PLAYERS + 4].argmax()) + 2
    first = obs[:, OFF_FIRST : OFF_FIRST + MAX_PLAYERS].argmax(axis=1)
    seats = (first[:, None] + np.arange(n)) % n
    coloured = np.take_along_axis(obs[:, OFF_COLOURED : OFF_COLOURED + n], seats, axis=1)
    penalty = np.take_along_axis(obs[:, OFF_PENALTY : OFF_PENALTY + n], seats, axis=1)
    placed = obs[:, OFF_ACCUSATIONS : OFF_ACCUSATIONS + 3 * n].reshape(len(obs), n, 3).sum(axis=2)
    counts = np.rint(np.concatenate([coloured, penalty], axis=1) * COUNT_SCALE)
    counts[:, :n] += placed
    rounds = np.rint(obs[:, OFF_ROUND : OFF_ROUND + 1] * ROUND_SCALE) + 1
    return np.concatenate([counts, rounds], axis=1).astype(np.int64)


class Strategy:
    """A round strategy table: key -> probabilities of the sorted legal actions."""

    def __init__(self, files: np.lib.npyio.NpzFile) -> None:
        self.probs = self.read_probs(files)
        self.table, self.note = str(files["table"]), str(files["note"])
        self.index = {k.tobytes(): i for i, k in enumerate(files["keys"])}

    @staticmethod
    def read_probs(files: np.lib.npyio.NpzFile) -> np.ndarray:
        return files["probs"].astype(np.float64)  # type: ignore[no-any-return]

    def found(self, observations: np.ndarray) -> np.ndarray:
        """``intp[K]``: each observation's row of ``keys``."""
        keys = np.packbits(np.asarray(observations)[:, KEY_INDICES] != 0, axis=1)
        found = [self.index.get(k.tobytes()) for k in keys]
        if None in found:
            raise ValueError(f"cfr strategy ({self.table}) has no entry for this observation")
        return np.array(found, dtype=np.intp)

    def rows(self, observations: np.ndarray) -> np.ndarray:
        """``float64[K, 3]``: the strategy at each observation."""
        return self.probs[self.found(observations)]  # type: ignore[no-any-return]


class GameStrategy(Strategy):
    """A whole-game strategy table: (public state, key) -> probabilities."""

    def __init__(self, files: np.lib.npyio.NpzFile) -> None:
        super().__init__(files)
        states = np.concatenate(
            [files["coloured"], files["penalty"], files["round"][:, None]], axis=1
        ).astype(np.int64)
        self.stage = {tuple(s): int(i) for s, i in zip(states.tolist(), files["stage"])}
        self.max_rounds = int(files["max_rounds"])
        self.scale = prob_scale(self.probs.dtype)
        self.earliest: dict[tuple, int] = {}
        for s in sorted(self.stage, key=lambda s: s[-1], reverse=True):
            self.earliest[s[:-1]] = self.stage[s]

    @staticmethod
    def read_probs(files: np.lib.npyio.NpzFile) -> np.ndarray:
        return files["probs"]  # type: ignore[no-any-return]  # uint16: floats row by row

    def stage_of(self, state: tuple) -> int:
        """The stage strategy of a state (coloured counts, penalty counts, round)."""
        if state in self.stage:
            return self.stage[state]
        if state[-1] > self.max_rounds and state[:-1] in self.earliest:
            return self.earliest[state[:-1]]
        n = len(state) // 2
        raise ValueError(
            f"cfr strategy ({self.table}) has no public state: coloured {state[:n]}, "
            f"penalty {state[n:-1]} from the first player on, round {state[-1]}"
        )

    def rows(self, observations: np.ndarray) -> np.ndarray:
        """``float64[K, 3]``: the strategy at each observation, at its public state."""
        states, where = np.unique(round_start_states(observations), axis=0, return_inverse=True)
        stages = np.array([self.stage_of(tuple(s)) for s in states.tolist()], dtype=np.intp)
        rows = self.probs[stages[where.ravel()], self.found(observations)]
        return rows.astype(np.float64) / self.scale  # type: ignore[no-any-return]


@functools.lru_cache(maxsize=16)
def load_strategy(path: str) -> Strategy:
    """A strategy file of either kind (told apart by its arrays)."""
    if not Path(path).is_file():
        raise FileNotFoundError(f"cfr: no strategy file {path!r}")
    with np.load(path, allow_pickle=False) as files:
        return GameStrategy(files) if "stage" in files.files else Strategy(files)


class CfrAgent(BaseAgent):
    """Plays a solved strategy; ``action_probabilities`` gives it whole."""

    def __init__(
        self, path: str | None = None, seed: int | None = None, whole_game: bool = True
    ) -> None:
        self.path = path
        self.whole_game = whole_game
        self.name = "cfr" if whole_game else "cfr-round"
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def strategy(self, observation: np.ndarray) -> Strategy:
        """The strategy file for the table an observation comes from."""
        if self.path is not None:
            return load_strategy(self.path)
        d = decode(observation)
        rules = "revised" if d.culprit_markers_removed else "classic"
        refusal = _refusal(None, rules, d.num_players, self.whole_game)
        if refusal is not None:
            raise ValueError(refusal)
        return load_strategy(str(data_file(rules, d.num_players, self.whole_game)))

    def action_probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``float64[K, 10]`` for ``observations[K, 125]`` (all of one table), ``masks[K, 10]``."""
        observations = np.asarray(observations)
        masks = np.asarray(masks).astype(bool)
        if (masks.sum(axis=1) != 3).any():
            raise ValueError(
                f"{self.name} agent asked to act without the round's three legal actions"
            )
        out = np.zeros(masks.shape)
        if len(observations):
            out[masks] = self.strategy(observations[0]).rows(observations).ravel()
        return out

    def act(self, observation: dict[str, np.ndarray]) -> int:
        mask = np.asarray(observation["action_mask"])
        probs = self.action_probabilities(np.asarray(observation["observation"])[None], mask[None])
        return int(self.rng.choice(len(probs[0]), p=probs[0] / probs[0].sum()))


def _refusal(path: str | None, rules: str, num_players: int, whole_game: bool) -> str | None:
    name = "cfr" if whole_game else "cfr-round"
    if path is None:
        if data_file(rules, num_players, whole_game).is_file():
            return None
        return f"{name}: no solved strategy ships for {rules} with {num_players} players"
    try:
        table = load_strategy(path).table
    except FileNotFoundError as err:
        return str(err)
    except (OSError, ValueError, KeyError) as err:
        return f"{name}: cannot read {path!r}: {describe(err)}"
    if table != f"{rules} {num_players}":
        return f"{name}: {path!r} is solved for {table}, not {rules} with {num_players} players"
    return None


def table_refusal(arg: str | None, rules: str, num_players: int) -> str | None:
    """Registry table check of ``cfr``: why it cannot play that table (``None``: it can)."""
    return _refusal(arg, rules, num_players, whole_game=True)


def round_table_refusal(arg: str | None, rules: str, num_players: int) -> str | None:
    """Registry table check of ``cfr-round`` (as :func:`table_refusal`)."""
    return _refusal(arg, rules, num_players, whole_game=False)


def make(arg: str | None = None, seed: int | None = None) -> CfrAgent:
    """Registry factory: ``cfr`` (the table's whole-game strategy) or ``cfr:PATH``."""
    return CfrAgent(arg, seed=seed)


def make_round(arg: str | None = None, seed: int | None = None) -> CfrAgent:
    """Registry factory: ``cfr-round`` (the table's one-round strategy) or ``cfr-round:PATH``."""
    return CfrAgent(arg, seed=seed, whole_game=False)
