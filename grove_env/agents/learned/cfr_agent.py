"""``cfr``: a solved one-round strategy (CFR+), looked up by the seat's observation.

The strategies ship in the package as ``grove_env/data/cfr_<rules>_<n>p.npz``, solved by
``python -m grove_env.analysis solve``; ``cfr`` picks the file of the table it sits at
(read from the observation), ``cfr:PATH`` reads another file. Files hold plain arrays
(loaded with ``allow_pickle=False``):

============ ================ ==================================================
array        type             content
============ ================ ==================================================
``keys``     uint8[M, 15]     :func:`strategy_key` of each information set
``probs``    float32[M, 3]    probability of each legal action, in sorted order
``table``    str              ``"<rules> <players>"``
``note``     str              how it was solved, and its NashConv
============ ================ ==================================================

The key is the observation without the marker counts and the round number: the round's
payoff (the ``markers`` reward) does not depend on them, so one solved round serves
every round of a game. The agent samples its action (seeded).

>>> agent = make(seed=0)
>>> agent.name
'cfr'
"""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path

import numpy as np

from grove_env.observation import OFF_COLOURED, OFF_PRESENT, OFF_ROUND, decode

from ..base import BaseAgent

KEY_INDICES = np.r_[0:OFF_COLOURED, OFF_PRESENT:OFF_ROUND]
"""Observation entries a strategy is keyed on: everything but counts and round."""


def strategy_key(observation: np.ndarray) -> bytes:
    """The part of an observation a round strategy depends on, packed into bytes."""
    return np.packbits(np.asarray(observation)[KEY_INDICES] != 0).tobytes()


def data_file(rules: str, num_players: int) -> Path:
    """The shipped strategy file of a table (it may not exist)."""
    return Path(str(resources.files("grove_env") / "data" / f"cfr_{rules}_{num_players}p.npz"))


class Strategy:
    """A strategy table: key -> probabilities of the sorted legal actions."""

    def __init__(self, path: Path) -> None:
        with np.load(path, allow_pickle=False) as f:
            keys, self.probs = f["keys"], f["probs"].astype(np.float64)
            self.table, self.note = str(f["table"]), str(f["note"])
        self.index = {k.tobytes(): i for i, k in enumerate(keys)}

    def rows(self, observations: np.ndarray) -> np.ndarray:
        """``float64[K, 3]``: the strategy at each observation."""
        keys = np.packbits(np.asarray(observations)[:, KEY_INDICES] != 0, axis=1)
        found = [self.index.get(k.tobytes()) for k in keys]
        if None in found:
            raise ValueError(f"cfr strategy ({self.table}) has no entry for this observation")
        return self.probs[np.array(found, dtype=np.intp)]


@functools.lru_cache(maxsize=16)
def load_strategy(path: str) -> Strategy:
    if not Path(path).is_file():
        raise FileNotFoundError(f"cfr: no strategy file {path!r}")
    return Strategy(Path(path))


class CfrAgent(BaseAgent):
    """Plays a solved round strategy; ``action_probabilities`` gives it whole."""

    name = "cfr"

    def __init__(self, path: str | None = None, seed: int | None = None) -> None:
        self.path = path
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def strategy(self, observation: np.ndarray) -> Strategy:
        """The strategy file for the table an observation comes from."""
        if self.path is not None:
            return load_strategy(self.path)
        d = decode(observation)
        rules = "revised" if d.culprit_markers_removed else "classic"
        path = data_file(rules, d.num_players)
        if not path.is_file():
            raise ValueError(f"cfr: no solved strategy ships for {rules} with {d.num_players}")
        return load_strategy(str(path))

    def action_probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``float64[K, 10]`` for ``observations[K, 125]`` (all of one table), ``masks[K, 10]``."""
        observations = np.asarray(observations)
        masks = np.asarray(masks).astype(bool)
        if (masks.sum(axis=1) != 3).any():
            raise ValueError("cfr agent asked to act without the round's three legal actions")
        out = np.zeros(masks.shape)
        if len(observations):
            out[masks] = self.strategy(observations[0]).rows(observations).ravel()
        return out

    def act(self, observation: dict[str, np.ndarray]) -> int:
        mask = np.asarray(observation["action_mask"])
        probs = self.action_probabilities(np.asarray(observation["observation"])[None], mask[None])
        return int(self.rng.choice(len(probs[0]), p=probs[0] / probs[0].sum()))


def make(arg: str | None = None, seed: int | None = None) -> CfrAgent:
    """Registry factory: ``cfr`` (the shipped strategy of the table) or ``cfr:PATH``."""
    return CfrAgent(arg, seed=seed)
