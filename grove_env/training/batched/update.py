"""The update: advantages of a rollout, then epochs of shuffled minibatches of the loss.

As SB3's MaskablePPO does it: GAE over the rollout, ``n_epochs`` passes over it in a
random order of ``batch_size`` rows each, Adam with gradient-norm clipping, and with
``target_kl`` a pass stops before the step whose approximate KL to the rollout's
policy exceeds ``1.5 target_kl``.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .loss import LossWeights, Minibatch, gae, ppo_loss, uniform_log_probs
from .model import ActorCritic
from .rollout import Rollout


def ppo_update(
    model: ActorCritic,
    optimizer: torch.optim.Optimizer,
    rollout: Rollout,
    weights: LossWeights,
    settings: UpdateSettings,
    generator: torch.Generator,
) -> dict[str, float]:
    """Train ``model`` on ``rollout``; the mean of each loss term over the last pass."""
    advantages, returns = gae(
        rollout.rewards,
        rollout.values,
        rollout.dones,
        rollout.last_values,
        settings.gamma,
        settings.gae_lambda,
    )
    inputs = rollout.inputs.flatten(0, 1)
    masks = rollout.masks.flatten(0, 1)
    actions = rollout.actions.flatten()
    old = rollout.log_probs.flatten()
    adv, ret = advantages.flatten(), returns.flatten()
    magnet = None
    if weights.magnet_coef > 0.0:
        magnet = rollout.magnet.flatten(0, 1) if rollout.magnet is not None else None
        magnet = uniform_log_probs(masks) if magnet is None else magnet
    model.train()
    size = len(actions)
    totals: dict[str, float] = {}
    passes = 0
    stop = False
    for _ in range(settings.n_epochs):
        order = torch.randperm(size, generator=generator).to(inputs.device)
        sums: dict[str, float] = {}
        for lo in range(0, size, settings.batch_size):
            at = order[lo : lo + settings.batch_size]
            pulled = None if magnet is None else magnet[at]
            batch = Minibatch(masks[at], actions[at], old[at], adv[at], ret[at], pulled)
            logits, values = model.heads(inputs[at])
            loss, terms = ppo_loss(logits, values, batch, weights)
            if settings.target_kl is not None and terms["approx_kl"] > 1.5 * settings.target_kl:
                stop = True
                break
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), settings.max_grad_norm)
            optimizer.step()
            for key, value in terms.items():
                sums[key] = sums.get(key, 0.0) + float(value) * len(at)
            sums["loss"] = sums.get("loss", 0.0) + float(loss.detach()) * len(at)
        if sums:
            totals = {k: v / size for k, v in sums.items()}
            passes += 1
        if stop:
            break
    totals["n_epochs_run"] = float(passes)
    totals["explained_variance"] = explained_variance(rollout.values.flatten(), ret)
    return totals


def explained_variance(predicted: torch.Tensor, target: torch.Tensor) -> float:
    """``1 - Var(target - predicted) / Var(target)`` (NaN where the target is constant)."""
    var = float(target.var())
    return float("nan") if var == 0.0 else 1.0 - float((target - predicted).var()) / var


@dataclass(frozen=True)
class UpdateSettings:
    """The update's fixed settings, read from the config."""

    n_epochs: int
    batch_size: int
    gamma: float
    gae_lambda: float
    max_grad_norm: float
    target_kl: float | None
