"""The policy network in plain torch: its input features, and the actor rebuilt from a card.

A saved policy (:mod:`grove_env.agents.learned.safe_policy`) is weights plus a JSON card; this
module turns the card back into the network, with torch alone (no stable-baselines3),
so that playing a policy never needs the training stack. Training wraps the same
feature computation in an SB3 features extractor
(:class:`grove_env.training.sb3.features.GroveFeatures`), so the two cannot drift.

Input features (the card's ``features`` field):

- ``observation``: the 125 observation floats as they are;
- ``culprit_odds``: the observation followed by :func:`extra_features`;
- ``advice``: as ``culprit_odds``, then the heuristic's search as
  :func:`grove_env.agents.heuristic.advice.advice` gives it (the value of each move at each kind
  of table, and the posterior over the tables). The search runs in NumPy, not torch, so
  it is computed once per observation where the observation is made: the training env
  appends it to the observation (the network reads ``observation_size +
  ADVICE_SIZE`` floats, :func:`reads`), and :meth:`Actor.act
  <grove_env.agents.learned.actor.Actor.act>` appends it to the plain observations it is given.

Indices after the 125 observation floats:

======  ====  ==================================================================
index   size  content
======  ====  ==================================================================
125     3     P(culprit is slot k), k = 0, 1, 2, from what this seat knows alone
128     3     markers on each suspect so far / 5
131     1     seats still to accuse after this one / 5 (0 outside the accuse phase)
132     63    ``advice`` only: :func:`~grove_env.agents.heuristic.advice.advice` (its own table)
======  ====  ==================================================================

The culprit odds treat every tile this seat has not seen (in its hand, the passed
tile, the seen suspects, a known victim, the face-up spare) as equally likely to be
in any unseen slot, drawn without replacement, and apply the culprit rule to every
possible triple. What the earlier accusations reveal about others' tiles is not
used (the raw accusations are still in the input). Before the first look, with all
three slots unseen, the odds are uniform.

>>> from grove_env.core import Game
>>> from grove_env.observation import ObservationEncoder
>>> g = Game("classic", 4, deals=[(2, 3, 4, 6, 5, 7, 8, 0)])
>>> g.apply_action(0)  # seat 0 leaves slot 0 unseen: it sees the 7 and the 8
>>> obs = torch.as_tensor(ObservationEncoder(g.rules, 4).encode(g, 0))[None]
>>> culprit_odds(obs).numpy().round(3)  # slot 0 is the 4, 5, 6 or blank: 5 -> slot 0
array([[0.25, 0.  , 0.75]], dtype=float32)
>>> build_actor("culprit_odds", 125, [8], "relu", 10)(obs).shape
torch.Size([1, 10])
>>> actor_shapes("culprit_odds", 125, [8], 10)["body.0.weight"]
(8, 132)
>>> reads("advice", 125) - 125 == ADVICE_SIZE, input_size("advice", 125) - 132 == ADVICE_SIZE
(True, True)
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from grove_env.observation import OFF_ACCUSATIONS, OFF_PHASE, OFF_PLAYERS, OFF_ROUND
from grove_env.odds import culprit_counts
from grove_env.rules import MAX_PLAYERS

from ..heuristic.advice import ADVICE_SIZE, advised
from ..views.rows import VIEW_WEIGHTS, split_view
from .actor import Actor

NUM_EXTRA = 7
VIEW_WIDTH = VIEW_WEIGHTS.shape[1]
FEATURE_KINDS = ("observation", "culprit_odds", "advice")
ACTIVATIONS: dict[str, type[nn.Module]] = {"tanh": nn.Tanh, "relu": nn.ReLU}


def _input_weights() -> torch.Tensor:
    """``float32[15, 125]``: one product gives the seat's view (11 columns,
    :data:`~grove_env.agents.views.rows.VIEW_WEIGHTS`), the markers on each suspect (3:
    the accusation blocks summed over seats) and the player count (1: its one-hot block
    times 2 .. 5). Stored transposed: ``W @ obs.T`` is the faster product for 15 outputs."""
    w = np.zeros((OFF_ROUND + 1, VIEW_WIDTH + 4), dtype=np.float32)
    w[:, :VIEW_WIDTH] = VIEW_WEIGHTS
    for seat in range(MAX_PLAYERS):
        for slot in range(3):
            w[OFF_ACCUSATIONS + 3 * seat + slot, VIEW_WIDTH + slot] = 1.0
    w[OFF_PLAYERS : OFF_PLAYERS + 4, VIEW_WIDTH + 3] = np.arange(2, 6)
    return torch.from_numpy(np.ascontiguousarray(w.T))


_INPUT_WEIGHTS = _input_weights()


def _products(obs: torch.Tensor) -> torch.Tensor:
    """``float32[B, 15]`` of :func:`_input_weights`, on the CPU (exact: small integers)."""
    flat = obs.detach().to("cpu", torch.float32)
    return (_INPUT_WEIGHTS @ flat[:, : OFF_ROUND + 1].T).T


def _odds(view: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    counts = culprit_counts(*split_view(view.numpy()))
    total = counts.sum(axis=1, keepdims=True)
    odds = np.where(total > 0, counts / np.maximum(total, 1), 1.0 / 3.0)
    return torch.as_tensor(odds, dtype=like.dtype, device=like.device)


def culprit_odds(obs: torch.Tensor) -> torch.Tensor:
    """``[B, 3]`` probability that each suspect slot holds the culprit (module docstring):
    :func:`grove_env.odds.culprit_counts` of the seat's view over their total, and 1/3
    each where nothing is counted (all three slots unseen). It is an input, not a
    weight: computed without gradient, on the rows' own device afterwards."""
    return _odds(_products(obs)[:, :VIEW_WIDTH], obs)


def extra_features(obs: torch.Tensor) -> torch.Tensor:
    """``[B, 7]``: culprit odds, stack sizes / 5, later accusers / 5.

    The seat's view, the stacks and the player count are one matrix product of the
    rows (:func:`_input_weights`); the rest is a few operations per row."""
    products = _products(obs)
    stacks = products[:, VIEW_WIDTH : VIEW_WIDTH + 3].to(obs.device, obs.dtype)
    players = products[:, VIEW_WIDTH + 3].to(obs.device, obs.dtype)
    accusing = obs[:, OFF_PHASE + 2].detach()
    later = (players - stacks.sum(1) - 1.0).clamp(min=0.0) * accusing
    odds = _odds(products[:, :VIEW_WIDTH], obs)
    return torch.cat([odds, stacks / 5.0, later[:, None] / 5.0], dim=1)


def reads(features: str, observation_size: int) -> int:
    """Width of the rows the network reads: the observation, and the advice where used."""
    check_kind(features)
    return observation_size + (ADVICE_SIZE if features == "advice" else 0)


def input_size(features: str, observation_size: int) -> int:
    """Width of the network's input for a kind of input features."""
    return reads(features, observation_size) + (NUM_EXTRA if features != "observation" else 0)


def check_kind(features: str) -> str:
    """``features`` if it is a kind of input features; else ValueError."""
    if features not in FEATURE_KINDS:
        raise ValueError(f"input features are one of {FEATURE_KINDS}, got {features!r}")
    return features


class InputFeatures(nn.Module):
    """``rows[B, reads] -> input[B, input_size]``; no parameters (module docstring)."""

    def __init__(self, features: str) -> None:
        super().__init__()
        self.kind = check_kind(features)

    def prepare(self, observations: np.ndarray) -> np.ndarray:
        """The rows this network reads, made from plain ``observations[K, 125]``."""
        return advised(observations) if self.kind == "advice" else observations

    def forward(self, rows: torch.Tensor) -> torch.Tensor:
        rows = rows.float().flatten(1)
        if self.kind == "observation":
            return rows
        width = rows.shape[1] - (ADVICE_SIZE if self.kind == "advice" else 0)
        obs = rows[:, :width]
        return torch.cat([obs, extra_features(obs), rows[:, width:]], dim=1)


def actor_shapes(
    features: str, observation_size: int, net_arch: list[int], num_actions: int
) -> dict[str, tuple[int, ...]]:
    """The ``state_dict`` shapes of :func:`build_actor`'s actor, without building it."""
    shapes: dict[str, tuple[int, ...]] = {}
    width = input_size(features, observation_size)
    for i, hidden in enumerate(net_arch):
        shapes[f"body.{2 * i}.weight"] = (hidden, width)
        shapes[f"body.{2 * i}.bias"] = (hidden,)
        width = hidden
    shapes["head.weight"] = (num_actions, width)
    shapes["head.bias"] = (num_actions,)
    return shapes


def build_actor(
    features: str, observation_size: int, net_arch: list[int], activation: str, num_actions: int
) -> Actor:
    """A fresh actor of this shape: its ``state_dict`` keys are those training saves.

    The body is ``Linear, activation`` per hidden layer (SB3's ``mlp_extractor.policy_net``),
    the head one ``Linear`` to the action logits (SB3's ``action_net``).
    """
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation is one of {sorted(ACTIVATIONS)}, got {activation!r}")
    if not net_arch or any(not isinstance(w, int) or w < 1 for w in net_arch):
        raise ValueError(f"net_arch is a non-empty list of positive widths, got {net_arch!r}")
    layers: list[nn.Module] = []
    width = input_size(features, observation_size)
    for hidden in net_arch:
        layers += [nn.Linear(width, hidden), ACTIVATIONS[activation]()]
        width = hidden
    return Actor(InputFeatures(features), nn.Sequential(*layers), nn.Linear(width, num_actions))
