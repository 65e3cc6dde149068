"""Derived input features for the policy: culprit odds and stack sizes, from the observation.

The raw observation holds the whole information state, but the step from "which tiles
could be where" to "which suspect is the culprit" is exact counting that an MLP learns
only slowly from a noisy game outcome. :class:`GroveFeatures` (an SB3 features
extractor, so it is part of the saved policy) appends to the 125 observation floats:

======  ====  ==================================================================
index   size  content
======  ====  ==================================================================
125     3     P(culprit is slot k), k = 0, 1, 2, from what this seat knows alone
128     3     markers on each suspect so far / 5
131     1     seats still to accuse after this one / 5 (0 outside the accuse phase)
======  ====  ==================================================================

The culprit odds treat every tile this seat has not seen (in its hand, the passed
tile, the seen suspects, a known victim, the face-up spare) as equally likely to be
in any unseen slot, drawn without replacement, and apply the culprit rule to every
possible triple. What the earlier accusations reveal about others' tiles is not
used (the raw accusations are still in the input). Before the first look, with all
three slots unseen, the odds are uniform.

>>> import torch
>>> from grove_env.core import Game
>>> from grove_env.observation import ObservationEncoder
>>> g = Game("classic", 4, deals=[(2, 3, 4, 6, 5, 7, 8, 0)])
>>> g.apply_action(0)  # seat 0 leaves slot 0 unseen: it sees the 7 and the 8
>>> obs = torch.as_tensor(ObservationEncoder(g.rules, 4).encode(g, 0))[None]
>>> culprit_odds(obs).numpy().round(3)  # slot 0 is the 4, 5, 6 or blank: 5 -> slot 0
array([[0.25, 0.  , 0.75]], dtype=float32)
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from grove_env.observation import (
    NUM_TILE_VALUES,
    OFF_ACCUSATIONS,
    OFF_DEALT,
    OFF_PHASE,
    OFF_PLAYERS,
    OFF_RECEIVED,
    OFF_SEEN,
    OFF_SPARE,
    OFF_TILES_IN_PLAY,
    OFF_VICTIM,
)
from grove_env.resolution import CULPRIT_TABLE
from grove_env.rules import MAX_PLAYERS

NUM_EXTRA = 7
T = NUM_TILE_VALUES


def _culprit_tables() -> tuple[torch.Tensor, ...]:
    """The culprit table ``[T, T, T, 3]`` (one-hot culprit slot of every triple of tile
    indices, zero if none: :data:`grove_env.resolution.CULPRIT_TABLE`) and its three
    diagonals where two slots hold the same tile."""
    slots = torch.as_tensor(CULPRIT_TABLE.astype(np.int64))
    table = (slots[..., None] == torch.arange(3)).to(torch.float32)
    i = torch.arange(T)
    return table, table[i, i], table[i, :, i], table[:, i, i]


CULPRIT_TABLES = _culprit_tables()


def culprit_odds(obs: torch.Tensor) -> torch.Tensor:
    """``[B, 3]`` probability that each suspect slot holds the culprit (module docstring).

    A slot's tile is a one-hot where seen, else the counts of the unseen tiles; the
    triple product is contracted with the culprit table one slot at a time, minus, for
    two unseen slots, the placements that would use one tile twice.
    """
    table, same01, same02, same12 = (t.to(obs.device, obs.dtype) for t in CULPRIT_TABLES)
    b = obs.shape[0]
    seen = obs[:, OFF_SEEN : OFF_SEEN + 3 * T].reshape(b, 3, T)
    counts = obs[:, OFF_TILES_IN_PLAY : OFF_TILES_IN_PLAY + T] * 2.0
    for off in (OFF_DEALT, OFF_RECEIVED, OFF_SPARE, OFF_VICTIM):
        counts = counts - obs[:, off : off + T]
    counts = (counts - seen.sum(1)).clamp(min=0.0)
    known = seen.sum(2) > 0.5
    unseen = (~known).to(obs.dtype)
    a0, a1, a2 = torch.where(known[:, :, None], seen, counts[:, None, :]).unbind(1)
    odds = torch.einsum(
        "bi,bic->bc", a0, torch.einsum("bj,bijc->bic", a1, torch.einsum("bk,ijkc->bijc", a2, table))
    )
    odds = odds - (unseen[:, 0] * unseen[:, 1])[:, None] * torch.einsum(
        "bi,bk,ikc->bc", counts, a2, same01
    )
    odds = odds - (unseen[:, 0] * unseen[:, 2])[:, None] * torch.einsum(
        "bi,bj,ijc->bc", counts, a1, same02
    )
    odds = odds - (unseen[:, 1] * unseen[:, 2])[:, None] * torch.einsum(
        "bi,bj,ijc->bc", a0, counts, same12
    )
    total = odds.sum(1, keepdim=True)
    usable = (total > 0) & (unseen.sum(1, keepdim=True) < 3)
    return torch.where(usable, odds / total.clamp(min=1e-9), torch.full_like(odds, 1.0 / 3.0))


def extra_features(obs: torch.Tensor) -> torch.Tensor:
    """``[B, 7]``: culprit odds, stack sizes / 5, later accusers / 5."""
    b = obs.shape[0]
    accused = obs[:, OFF_ACCUSATIONS : OFF_ACCUSATIONS + 3 * MAX_PLAYERS].reshape(b, MAX_PLAYERS, 3)
    stacks = accused.sum(1)
    players = obs[:, OFF_PLAYERS : OFF_PLAYERS + 4].argmax(1).to(obs.dtype) + 2.0
    accusing = obs[:, OFF_PHASE + 2]
    later = (players - stacks.sum(1) - 1.0).clamp(min=0.0) * accusing
    return torch.cat([culprit_odds(obs), stacks / 5.0, later[:, None] / 5.0], dim=1)


class GroveFeatures(BaseFeaturesExtractor):
    """SB3 features extractor: the observation followed by :func:`extra_features`."""

    def __init__(self, observation_space: gym.spaces.Box) -> None:
        super().__init__(observation_space, int(observation_space.shape[0]) + NUM_EXTRA)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        obs = observations.float()
        return torch.cat([obs, extra_features(obs)], dim=1)
