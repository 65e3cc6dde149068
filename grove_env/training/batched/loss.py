"""The batched backend's loss: GAE, the clipped PPO objective, and the terms that seek equilibrium.

Everything here is a function of tensors, so a test can check it against a reference
written step by step, and the next term is one more line of :func:`ppo_loss`:

==================  ===============================================================
term                what it is
==================  ===============================================================
policy              the clipped surrogate of PPO: ``-min(r A, clip(r, 1 +- eps) A)``
                    with ``r`` the probability ratio to the rollout's policy and
                    ``A`` the advantage, normalised per minibatch (as SB3 does)
value               ``(V(s) - G)^2``, the return ``G`` from GAE, unclipped (SB3)
entropy             ``-H(pi)`` over the legal moves
magnet              reverse KL ``KL(pi || rho)`` to a magnet policy ``rho``: the
                    uniform policy over the legal moves, or a frozen snapshot
                    (Magnetic Mirror Descent, Sokota et al., ICLR 2023); with
                    ``magnet_in: reward`` it leaves the loss for the rewards
                    (:func:`magnet_log_ratio`)
proximal            reverse KL ``KL(pi || pi_old)`` to the rollout's policy, MMD's
                    mirror-descent step (estimated as ``r log r - (r - 1)``)
==================  ===============================================================

``loss = policy + vf_coef value + ent_coef entropy + magnet_coef magnet + kl_coef
proximal``. With ``magnet_coef = kl_coef = 0`` this is SB3's MaskablePPO loss.

Illegal moves get the logit :data:`~grove_env.agents.learned.actor.MASKED_LOGIT`, as the
actor plays, so their probability is exactly 0 and each sum over moves is a sum over
the legal ones (``0 * -1e8`` is ``0``: no ``-inf``, no NaN).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from grove_env.agents.learned.actor import MASKED_LOGIT


def masked_log_probs(logits: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    """``log pi(a | s)`` for every move, illegal ones at about ``-1e8``."""
    return logits.masked_fill(~masks, MASKED_LOGIT).log_softmax(dim=-1)


def uniform_log_probs(masks: torch.Tensor) -> torch.Tensor:
    """The uniform policy over the legal moves, as log-probabilities (the uniform magnet)."""
    legal = masks.sum(dim=-1, keepdim=True).to(torch.float32)
    return torch.where(masks, -legal.log(), torch.full_like(legal, MASKED_LOGIT))


def magnet_log_ratio(
    log_probs: torch.Tensor,
    masks: torch.Tensor,
    actions: torch.Tensor,
    magnet: torch.Tensor | None,
) -> torch.Tensor:
    """``log pi(a|s) - log rho(a|s)`` of each decision's move, shaped as ``log_probs``:
    what ``magnet_in: reward`` takes from its reward, times ``magnet_coef``. ``magnet``
    is the snapshot's log-probabilities of every move, ``None`` for the uniform magnet.

    >>> masks = torch.tensor([[True, True, False], [True, False, False]])
    >>> magnet_log_ratio(torch.log(torch.tensor([0.5, 1.0])), masks, torch.tensor([1, 0]), None)
    tensor([0., 0.])
    """
    rho = uniform_log_probs(masks) if magnet is None else magnet
    return log_probs - rho.gather(-1, actions.unsqueeze(-1)).squeeze(-1)


def gae(
    rewards: torch.Tensor,
    values: torch.Tensor,
    dones: torch.Tensor,
    last_values: torch.Tensor,
    gamma: float,
    lam: float,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Advantages and returns ``[T, B]`` of a rollout (generalised advantage estimation).

    ``rewards[t]`` follows the decision at ``t``; ``dones[t]`` says its game ended there
    (a truncated game's bootstrap value is already in its reward); ``values[t]`` is the
    value of the observation at ``t`` and ``last_values`` that of the one after the
    rollout. The loop runs over the ``T`` steps, each over all games at once.
    """
    steps = rewards.shape[0]
    advantages = torch.zeros_like(rewards)
    running = torch.zeros_like(last_values)
    for t in range(steps - 1, -1, -1):
        following = last_values if t == steps - 1 else values[t + 1]
        going_on = 1.0 - dones[t].to(rewards.dtype)
        delta = rewards[t] + gamma * following * going_on - values[t]
        running = delta + gamma * lam * going_on * running
        advantages[t] = running
    return advantages, advantages + values


def lane_gae(
    rewards: torch.Tensor,
    values: torch.Tensor,
    dones: torch.Tensor,
    following: torch.Tensor,
    blocks: list[slice],
    gamma: float,
    lam: float,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """GAE over decisions linked per seat: advantages, returns and which decisions have them.

    Decision ``i`` is followed by its seat's next decision ``following[i]`` of the same
    game (``-1``: none yet, or its game ended there, ``dones[i]``); ``rewards[i]`` is
    what its seat got from ``i`` up to that next decision. ``blocks`` cut the decisions
    into slices in time order, every ``following`` pointing into a later slice, and the
    loop runs over the slices, each at once. A decision whose next one is not yet
    known (``-1`` and not done) has no advantage: it is left out (``False`` in the
    third result), and the decision before it bootstraps from its value.
    """
    advantages = torch.zeros_like(rewards)
    on = following >= 0
    nxt = following.clamp(min=0)
    known = on | dones
    for block in reversed(blocks):
        after, going_on = nxt[block], on[block].to(rewards.dtype)
        delta = rewards[block] + gamma * values[after] * going_on - values[block]
        running = delta + gamma * lam * going_on * advantages[after]
        advantages[block] = torch.where(known[block], running, torch.zeros_like(running))
    return advantages, advantages + values, known


@dataclass(frozen=True)
class LossWeights:
    """The coefficients of one update (the schedules make them per rollout)."""

    clip_range: float
    vf_coef: float
    ent_coef: float
    magnet_coef: float = 0.0
    kl_coef: float = 0.0


@dataclass(frozen=True)
class Minibatch:
    """What the loss reads of the rollout, ``N`` rows."""

    masks: torch.Tensor  # bool[N, 10]
    actions: torch.Tensor  # int64[N]
    old_log_probs: torch.Tensor  # [N], of the actions under the rollout's policy
    advantages: torch.Tensor  # [N]
    returns: torch.Tensor  # [N]
    magnet: torch.Tensor | None = None  # [N, 10] log-probabilities, where magnet_coef > 0


def ppo_loss(
    logits: torch.Tensor, values: torch.Tensor, batch: Minibatch, weights: LossWeights
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """The loss of one minibatch (module docstring) and its terms, detached, for the log."""
    log_probs = masked_log_probs(logits, batch.masks)
    probs = log_probs.exp()
    new = log_probs.gather(1, batch.actions[:, None])[:, 0]
    log_ratio = new - batch.old_log_probs
    ratio = log_ratio.exp()
    adv = batch.advantages
    if adv.numel() > 1:
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    clipped = ratio.clamp(1.0 - weights.clip_range, 1.0 + weights.clip_range)
    policy = -torch.min(ratio * adv, clipped * adv).mean()
    value = (values - batch.returns).pow(2).mean()
    entropy = -(probs * log_probs).sum(dim=1).mean()
    loss = policy + weights.vf_coef * value - weights.ent_coef * entropy
    terms = {"policy_gradient_loss": policy, "value_loss": value, "entropy_loss": -entropy}
    if weights.magnet_coef > 0.0:
        if batch.magnet is None:
            raise ValueError("magnet_coef > 0 needs the magnet's log-probabilities")
        magnet = (probs * (log_probs - batch.magnet)).sum(dim=1).mean()
        loss = loss + weights.magnet_coef * magnet
        terms["magnet_kl"] = magnet
    if weights.kl_coef > 0.0:
        proximal = (ratio * log_ratio - (ratio - 1.0)).mean()
        loss = loss + weights.kl_coef * proximal
        terms["proximal_kl"] = proximal
    with torch.no_grad():
        terms["approx_kl"] = ((ratio - 1.0) - log_ratio).mean()
        terms["clip_fraction"] = ((ratio - 1.0).abs() > weights.clip_range).float().mean()
    return loss, {k: v.detach() for k, v in terms.items()}


def scheduled(start: float, end: float | None, progress: float) -> float:
    """A coefficient at ``progress`` (0 at the first step, 1 at ``total_timesteps``):
    ``start`` throughout where ``end`` is ``None``, else linear from ``start`` to ``end``.

    >>> scheduled(0.2, None, 0.5), scheduled(1.0, 0.0, 0.25)
    (0.2, 0.75)
    """
    if end is None:
        return start
    progress = min(max(progress, 0.0), 1.0)
    return start + (end - start) * progress
