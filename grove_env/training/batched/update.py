"""The update: advantages of a rollout, then epochs of shuffled minibatches of the loss.

As SB3's MaskablePPO does it: GAE over the rollout, ``n_epochs`` passes over it in a
random order of ``batch_size`` rows each, Adam with gradient-norm clipping, and with
``target_kl`` a pass stops before the step whose approximate KL to the rollout's
policy exceeds ``1.5 target_kl``.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from grove_env.training.run.network import ActorCritic

from .loss import LossWeights, Minibatch, ppo_loss, uniform_log_probs


@dataclass
class Samples:
    """The decisions an update learns from, ``N`` rows, with their advantages and returns."""

    inputs: torch.Tensor  # float32[N, input_size]
    masks: torch.Tensor  # bool[N, 10]
    actions: torch.Tensor  # int64[N]
    log_probs: torch.Tensor  # [N], under the policy that played them
    values: torch.Tensor  # [N], of the critic that played them
    advantages: torch.Tensor  # [N]
    returns: torch.Tensor  # [N]
    magnet: torch.Tensor | None  # [N, 10] log-probabilities of a snapshot magnet


def ppo_update(
    model: ActorCritic,
    optimizer: torch.optim.Optimizer,
    samples: Samples,
    weights: LossWeights,
    settings: UpdateSettings,
    generator: torch.Generator,
) -> dict[str, float]:
    """Train ``model`` on ``samples``; the mean of each loss term over the last pass.

    Each pass splits a random order of the ``N`` rows into ``round(N / batch_size)``
    minibatches of equal size (within one row): exactly ``batch_size`` rows where it
    divides ``N``, as in a rollout of the learner's decisions alone.
    """
    inputs, masks, actions = samples.inputs, samples.masks, samples.actions
    old, adv, ret = samples.log_probs, samples.advantages, samples.returns
    magnet = None
    if weights.magnet_coef > 0.0:
        magnet = samples.magnet if samples.magnet is not None else uniform_log_probs(masks)
    model.train()
    size = len(actions)
    totals: dict[str, float] = {}
    passes = 0
    stop = False
    parts = max(1, round(size / settings.batch_size))
    columns = [inputs, masks, actions, old, adv, ret] + ([] if magnet is None else [magnet])
    for _ in range(settings.n_epochs):
        order = torch.randperm(size, generator=generator).to(inputs.device)
        sums: dict[str, float] = {}
        # One gather per column and pass; each minibatch is then a view of it.
        shuffled = [torch.tensor_split(column[order], parts) for column in columns]
        for k in range(parts):
            rows, masks_k, actions_k, old_k, adv_k, ret_k, *pulled = (p[k] for p in shuffled)
            batch = Minibatch(masks_k, actions_k, old_k, adv_k, ret_k, *pulled)
            logits, values = model.heads(rows)
            loss, terms = ppo_loss(logits, values, batch, weights)
            if settings.target_kl is not None and terms["approx_kl"] > 1.5 * settings.target_kl:
                stop = True
                break
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), settings.max_grad_norm)
            optimizer.step()
            for key, value in terms.items():
                sums[key] = sums.get(key, 0.0) + float(value) * len(rows)
            sums["loss"] = sums.get("loss", 0.0) + float(loss.detach()) * len(rows)
        if sums:
            totals = {k: v / size for k, v in sums.items()}
            passes += 1
        if stop:
            break
    totals["n_epochs_run"] = float(passes)
    totals["explained_variance"] = explained_variance(samples.values, ret)
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
