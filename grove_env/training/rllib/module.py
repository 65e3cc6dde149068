"""The masked actor-critic that RLlib trains, laid out like SB3's ``MlpPolicy``.

One shared policy reads ``grove_env/SelfPlay-v0``'s ``Dict(observation, action_mask)``:
illegal moves get the logit :data:`~grove_env.agents.learned.actor.MASKED_LOGIT` before RLlib's
categorical distribution sees them. The layers mirror a MaskablePPO ``MlpPolicy``
with separate policy and value networks (``pi_body`` = ``mlp_extractor.policy_net``,
``pi_head`` = ``action_net``, ``vf_body``/``vf_head`` the value side), so
:func:`grove_env.training.rllib.backend.export_policy` copies the weights into a
policy file that the ``ppo:`` agent plays, and :func:`actor_of` gives the
:class:`~grove_env.agents.learned.actor.Actor` the quick evaluations use.

Needs Ray RLlib (``pip install grove-env[rllib]``); import this module only then.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
from torch import nn

from grove_env.agents.learned.actor import MASKED_LOGIT, Actor

ACTIVATIONS: dict[str, type[nn.Module]] = {"tanh": nn.Tanh, "relu": nn.ReLU}


def mlp(inputs: int, hidden: list[int], activation: str) -> nn.Sequential:
    """``Linear, act, Linear, act, ...``: the layout of SB3's ``mlp_extractor`` nets."""
    layers: list[nn.Module] = []
    for size in hidden:
        layers += [nn.Linear(inputs, size), ACTIVATIONS[activation]()]
        inputs = size
    return nn.Sequential(*layers)


class MaskedActorCritic(TorchRLModule, ValueFunctionAPI):
    """``model_config``: ``net_arch`` (hidden sizes) and ``activation`` (tanh or relu)."""

    def setup(self) -> None:
        assert isinstance(self.observation_space, spaces.Dict)
        assert isinstance(self.action_space, spaces.Discrete)
        config = self.model_config if isinstance(self.model_config, dict) else {}
        shape = self.observation_space["observation"].shape
        assert shape is not None
        inputs = int(np.prod(shape))
        hidden = list(config.get("net_arch", [128, 128]))
        activation = config.get("activation", "tanh")
        self.pi_body = mlp(inputs, hidden, activation)
        self.pi_head = nn.Linear(hidden[-1], int(self.action_space.n))
        self.vf_body = mlp(inputs, hidden, activation)
        self.vf_head = nn.Linear(hidden[-1], 1)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        logits = self.pi_head(self.pi_body(obs["observation"]))
        legal = obs["action_mask"] > 0
        return {Columns.ACTION_DIST_INPUTS: logits.masked_fill(~legal, MASKED_LOGIT)}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        return self.vf_head(self.vf_body(batch[Columns.OBS]["observation"])).squeeze(-1)


def actor_of(module: MaskedActorCritic) -> Actor:
    """The policy path as an :class:`Actor` (a frozen CPU copy)."""
    actor = Actor(nn.Flatten(), module.pi_body, module.pi_head).frozen_copy()
    return actor.cpu().eval()
