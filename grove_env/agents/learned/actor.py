"""The policy's actor as a plain torch module, and masked action choice from its logits.

SB3's ``MaskableActorCriticPolicy`` computes values and builds a distribution object on
every call; an opponent seat, an evaluation, the ``ppo:`` agent or the analysis only
needs ``observation -> logits -> masked argmax, sample or probabilities``. :class:`Actor` is
that path, sharing the policy's modules (live weights) or holding a frozen copy (a
snapshot).
Masked logits follow sb3-contrib: illegal actions get a logit of ``-1e8``, so sampling
here draws from the same distribution as ``MaskablePPO`` itself.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import torch
from torch import nn

MASKED_LOGIT = -1e8


class Actor(nn.Module):
    """``obs[K, 125] -> logits[K, 10]`` of a (Maskable) actor-critic policy."""

    def __init__(self, features: nn.Module, body: nn.Module, head: nn.Module) -> None:
        super().__init__()
        self.features = features
        self.body = body
        self.head = head

    @classmethod
    def of(cls, policy: Any) -> Actor:
        """The actor path of an SB3 actor-critic policy, sharing its parameters."""
        return cls(policy.pi_features_extractor, policy.mlp_extractor.policy_net, policy.action_net)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.from_features(self.features(obs))

    def from_features(self, inputs: torch.Tensor) -> torch.Tensor:
        """The logits of rows already through the input features (a descent makes a
        tree's features once and asks the network many times)."""
        return self.head(self.body(inputs))

    def frozen_copy(self) -> Actor:
        """An independent copy (an opponent-pool snapshot), without gradients."""
        twin = copy.deepcopy(self)
        twin.requires_grad_(False)
        return twin

    @torch.no_grad()
    def masked_logits(self, observations: np.ndarray, masks: np.ndarray) -> torch.Tensor:
        """Logits ``[K, 10]`` for plain ``observations[K, 125]``, illegal ones ``-1e8``.

        The one way in for play and analysis alike: input features computed in NumPy
        (the ``advice`` of :mod:`grove_env.agents.learned.policy_net`) are appended to the
        observations here first, as the training env appends them to its rows.
        """
        prepare = getattr(self.features, "prepare", None)  # appends what NumPy computes
        rows = observations if prepare is None else prepare(observations)
        # The games stay on the CPU; the weights may not.
        device = next(self.parameters()).device
        obs = torch.as_tensor(rows, dtype=torch.float32).to(device)
        legal = torch.as_tensor(np.asarray(masks, dtype=bool)).to(device)
        return self(obs).masked_fill(~legal, MASKED_LOGIT)

    def probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``float64[K, 10]``: the masked softmax that :meth:`act` samples from."""
        logits = self.masked_logits(observations, masks).double()
        return torch.softmax(logits, dim=1).cpu().numpy()

    @torch.no_grad()
    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        deterministic: bool = False,
        generator: torch.Generator | None = None,
    ) -> np.ndarray:
        """Actions ``int64[K]`` for ``observations[K, 125]`` under boolean ``masks[K, 10]``.

        Deterministic: the most likely legal action; otherwise a draw from the masked
        softmax (Gumbel-max with ``generator``), both from :meth:`masked_logits`.
        """
        logits = self.masked_logits(observations, masks)
        if not deterministic:
            u = torch.rand(logits.shape, generator=generator).clamp_(1e-12, 1.0 - 1e-7)
            logits = logits - torch.log(-torch.log(u.to(logits.device)))
        return logits.argmax(dim=1).cpu().numpy().astype(np.int64)
