"""The batched backend's network: the safe-format actor, a critic beside it, and their files.

:class:`ActorCritic` holds the :class:`~grove_env.agents.learned.actor.Actor` that a
:class:`~grove_env.agents.learned.safe_policy.PolicyCard` builds, so its weights are
saved as they are and play as ``ppo:`` with no renaming, and a critic of the same
hidden widths. The input features (culprit odds, stack sizes) are computed once per
forward pass and read by both. Initialisation follows SB3's ``MlpPolicy`` (orthogonal,
gain ``sqrt 2`` for hidden layers, 0.01 for the policy head, 1 for the value head), so
the two backends start alike.

A checkpoint's ``model.pt`` holds the actor's, the critic's and the optimiser's state
dicts and the learner's random-generator state: tensors and plain containers only,
written with ``torch.save`` and read with ``torch.load(..., weights_only=True)``, which
never runs code.
"""

from __future__ import annotations

import io
import math
from pathlib import Path
from typing import Any

import torch
from torch import nn

from grove_env.agents.learned.policy_files import ModelFileError
from grove_env.agents.learned.policy_net import ACTIVATIONS
from grove_env.agents.learned.safe_policy import PolicyCard
from grove_env.messages import describe

MODEL_FILE = "model.pt"
"""A batched run's checkpoint: network, optimiser and generator state (module docstring)."""


class ActorCritic(nn.Module):
    """``rows -> (logits, values)``: the card's actor and a critic over the same features.

    With ``shared_trunk`` the critic is one linear layer on the actor's last hidden
    layer (one network's passes instead of two; the actor, and so the policy file, is
    the same either way). Its ReLUs work in place (about 5% off an update at 2048-row
    minibatches, the same weights bit for bit).
    """

    def __init__(self, card: PolicyCard, shared_trunk: bool = False) -> None:
        super().__init__()
        self.card = card
        self.shared_trunk = shared_trunk
        self.actor = card.build()
        layers: list[nn.Module] = []
        width = card.input_size
        for hidden in () if shared_trunk else card.net_arch:
            layers += [nn.Linear(width, hidden), ACTIVATIONS[card.activation]()]
            width = hidden
        width = card.net_arch[-1] if shared_trunk else width
        self.critic = nn.Sequential(*layers, nn.Linear(width, 1))
        self.actor.requires_grad_(True)
        for module in self.modules():  # no copy of each hidden layer: the same values
            if isinstance(module, nn.ReLU):
                module.inplace = True
        _orthogonal(self.actor.body, self.actor.head, head_gain=0.01)
        _orthogonal(self.critic, self.critic[-1], head_gain=1.0)

    def forward(self, rows: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.heads(self.actor.features(rows))

    def heads(self, inputs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits and values from the network's input (the rows after the features):
        the update reads the inputs the rollout kept, so the features are computed once."""
        hidden = self.actor.body(inputs)
        values = self.critic(hidden if self.shared_trunk else inputs)[:, 0]
        return self.actor.head(hidden), values

    def value(self, rows: torch.Tensor) -> torch.Tensor:
        """The values alone (bootstrap values)."""
        return self.heads(self.actor.features(rows))[1]


def _orthogonal(body: nn.Module, head: nn.Module, head_gain: float) -> None:
    for layer in body.modules():
        if isinstance(layer, nn.Linear):
            gain = head_gain if layer is head else math.sqrt(2.0)
            nn.init.orthogonal_(layer.weight, gain=gain)
            nn.init.zeros_(layer.bias)


def save_model(
    path: Path, model: ActorCritic, optimizer: torch.optim.Optimizer, generator: torch.Generator
) -> None:
    """Write ``model.pt`` (module docstring)."""
    state = {
        "actor": {k: v.detach().cpu() for k, v in model.actor.state_dict().items()},
        "critic": {k: v.detach().cpu() for k, v in model.critic.state_dict().items()},
        "optimizer": _to_cpu(optimizer.state_dict()),
        "generator": generator.get_state(),
    }
    buffer = io.BytesIO()
    torch.save(state, buffer)
    path.write_bytes(buffer.getvalue())


def read_model(path: Path, device: str | torch.device = "cpu") -> dict[str, Any]:
    """The state of ``model.pt``, read without unpickling code; :class:`ModelFileError` else."""
    try:
        state = torch.load(path, map_location=device, weights_only=True)
    except FileNotFoundError:
        raise ModelFileError(f"no model file at {str(path)!r}") from None
    except Exception as e:  # torch raises many kinds for a damaged file
        raise ModelFileError(f"{str(path)!r} is corrupt or unreadable: {describe(e)}") from None
    if not isinstance(state, dict) or {"actor", "critic", "optimizer", "generator"} - set(state):
        raise ModelFileError(f"{str(path)!r} is not a batched run's model file")
    return state


def load_model(
    state: dict[str, Any],
    model: ActorCritic,
    optimizer: torch.optim.Optimizer,
    generator: torch.Generator,
    where: Path,
) -> None:
    """Put :func:`read_model`'s state into a freshly built model, optimiser and generator."""
    try:
        model.actor.load_state_dict(state["actor"])
        model.critic.load_state_dict(state["critic"])
        optimizer.load_state_dict(state["optimizer"])
        generator.set_state(state["generator"].cpu())
    except Exception as e:  # shapes or keys of another network
        raise ModelFileError(
            f"{str(where)!r} does not fit this run's network: {describe(e)}"
        ) from None


def _to_cpu(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.detach().cpu()
    if isinstance(value, dict):
        return {k: _to_cpu(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_to_cpu(v) for v in value]
    return value
