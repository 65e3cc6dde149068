"""Derived input features for the policy (culprit odds, stack sizes, advice) as an SB3 extractor.

:class:`GroveFeatures` is part of the saved policy: it appends
:func:`~grove_env.agents.learned.policy_net.extra_features` to the 125 observation floats, and
passes on the advice (:mod:`grove_env.agents.heuristic.advice`) that an ``advice`` run's env
appended to them. The computation and its index table live in
:mod:`grove_env.agents.learned.policy_net`, in plain torch and NumPy, so that playing a saved
policy needs no stable-baselines3.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from grove_env.agents.learned.policy_net import (
    NUM_EXTRA,
    InputFeatures,
    culprit_odds,
    extra_features,
    input_size,
    reads,
)
from grove_env.observation import OBS_SIZE

__all__ = ["NUM_EXTRA", "GroveFeatures", "culprit_odds", "extra_features"]


class GroveFeatures(BaseFeaturesExtractor):
    """SB3 features extractor: :class:`~grove_env.agents.learned.policy_net.InputFeatures` of
    ``kind`` (``culprit_odds`` or ``advice``) over the env's rows."""

    def __init__(self, observation_space: gym.spaces.Box, kind: str = "culprit_odds") -> None:
        width = int(observation_space.shape[0])
        if width != reads(kind, OBS_SIZE):
            raise ValueError(
                f"input features {kind!r} read rows of {reads(kind, OBS_SIZE)} floats, "
                f"the env gives {width}"
            )
        super().__init__(observation_space, input_size(kind, OBS_SIZE))
        self.inputs = InputFeatures(kind)

    @property
    def kind(self) -> str:
        return self.inputs.kind

    def prepare(self, observations: np.ndarray) -> np.ndarray:
        """The rows this extractor reads, made from plain observations (see InputFeatures)."""
        return self.inputs.prepare(observations)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.inputs(observations)
