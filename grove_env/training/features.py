"""Derived input features for the policy (culprit odds and stack sizes) as an SB3 extractor.

:class:`GroveFeatures` is part of the saved policy: it appends
:func:`~grove_env.agents.policy_net.extra_features` to the 125 observation floats. The
computation and its index table live in :mod:`grove_env.agents.policy_net`, in plain
torch, so that playing a saved policy needs no stable-baselines3.
"""

from __future__ import annotations

import gymnasium as gym
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from grove_env.agents.policy_net import NUM_EXTRA, culprit_odds, extra_features

__all__ = ["NUM_EXTRA", "GroveFeatures", "culprit_odds", "extra_features"]


class GroveFeatures(BaseFeaturesExtractor):
    """SB3 features extractor: the observation followed by :func:`extra_features`."""

    def __init__(self, observation_space: gym.spaces.Box) -> None:
        super().__init__(observation_space, int(observation_space.shape[0]) + NUM_EXTRA)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        obs = observations.float()
        return torch.cat([obs, extra_features(obs)], dim=1)
