"""Why the batched backend's PPO is plain torch: its loss and GAE against TorchRL's, timed.

    python benchmarks/ppo_loss_choice.py [--rows 4096] [--steps 4] [--games 4096] [--repeats 20]

Needs TorchRL (``pip install -c constraints.txt torchrl``; the ``suites`` extra has it).
On the same network (the default run's ``[128, 128]`` relu actor and critic over the
132 inputs of ``culprit_odds``) and the same random minibatch of ``--rows`` rows with
masks of three legal moves:

* **update step**: the loss, its backward and an Adam step, with
  :func:`grove_env.training.batched.loss.ppo_loss` and with TorchRL's ``ClipPPOLoss``
  (a ``ProbabilisticActor`` of ``MaskedCategorical``, a ``ValueOperator``, the same
  clip, entropy and value coefficients);
* **GAE** of a ``--steps`` x ``--games`` rollout: :func:`~grove_env.training.batched.
  loss.gae` and TorchRL's ``generalized_advantage_estimate``; the two agree (checked).

Prints the median milliseconds of ``--repeats`` timings of each, and their ratio.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable

import torch

from grove_env.agents.learned.safe_policy import PolicyCard
from grove_env.training.batched.loss import LossWeights, Minibatch, gae, ppo_loss
from grove_env.training.run.network import ActorCritic

try:
    from tensordict import TensorDict
    from tensordict.nn import TensorDictModule
    from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator
    from torchrl.objectives import ClipPPOLoss
    from torchrl.objectives.value.functional import generalized_advantage_estimate
except ModuleNotFoundError as e:  # an optional comparison: say what is missing
    sys.exit(f"this benchmark needs TorchRL ({e.name} is missing): pip install torchrl")

WEIGHTS = LossWeights(clip_range=0.2, vf_coef=0.5, ent_coef=0.01)


def median_ms(run: Callable[[], object], repeats: int) -> float:
    run()  # warm-up
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return 1000 * statistics.median(times)


def minibatch(rows: int, width: int) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    masks = torch.zeros(rows, 10, dtype=torch.bool)
    legal = torch.stack([torch.randperm(10, generator=g)[:3] for _ in range(rows)])
    masks[torch.arange(rows)[:, None], legal] = True
    return {
        "inputs": torch.rand(rows, width, generator=g),
        "masks": masks,
        "actions": legal[:, 0],
        "old": torch.full((rows,), -1.1),
        "adv": torch.randn(rows, generator=g),
        "ret": torch.randn(rows, generator=g),
    }


def plain_step(model: ActorCritic, data: dict, opt: torch.optim.Optimizer) -> Callable[[], None]:
    batch = Minibatch(data["masks"], data["actions"], data["old"], data["adv"], data["ret"])

    def step() -> None:
        logits, values = model.heads(data["inputs"])
        loss, _ = ppo_loss(logits, values, batch, WEIGHTS)
        opt.zero_grad()
        loss.backward()
        opt.step()

    return step


def torchrl_step(model: ActorCritic, data: dict, opt: torch.optim.Optimizer) -> Callable[[], None]:
    body = torch.nn.Sequential(model.actor.body, model.actor.head)
    logits = TensorDictModule(body, in_keys=["inputs"], out_keys=["logits"])
    actor = ProbabilisticActor(
        logits,
        in_keys={"logits": "logits", "mask": "action_mask"},
        distribution_class=MaskedCategorical,
        return_log_prob=True,
    )
    critic = ValueOperator(model.critic, in_keys=["inputs"])
    loss_module = ClipPPOLoss(
        actor,
        critic,
        clip_epsilon=WEIGHTS.clip_range,
        entropy_coeff=WEIGHTS.ent_coef,
        critic_coeff=WEIGHTS.vf_coef,
        normalize_advantage=True,
    )
    rows = len(data["actions"])
    td = TensorDict(
        {
            "inputs": data["inputs"],
            "action_mask": data["masks"],
            "action": data["actions"],
            "sample_log_prob": data["old"],
            "action_log_prob": data["old"],
            "advantage": data["adv"][:, None],
            "value_target": data["ret"][:, None],
        },
        batch_size=[rows],
    )

    def step() -> None:
        out = loss_module(td)
        loss = out["loss_objective"] + out["loss_critic"] + out["loss_entropy"]
        opt.zero_grad()
        loss.backward()
        opt.step()

    return step


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=4096)
    p.add_argument("--steps", type=int, default=4)
    p.add_argument("--games", type=int, default=4096)
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--threads", type=int, default=1)
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    card = PolicyCard("culprit_odds", (128, 128), "relu", ("classic",), (4,))
    model = ActorCritic(card)
    opt = torch.optim.Adam(model.parameters(), lr=1e-4, eps=1e-5)
    data = minibatch(args.rows, card.input_size)
    ours = median_ms(plain_step(model, data, opt), args.repeats)
    theirs = median_ms(torchrl_step(model, data, opt), args.repeats)
    print(
        f"update step, {args.rows} rows: plain torch {ours:.2f} ms, TorchRL ClipPPOLoss "
        f"{theirs:.2f} ms ({theirs / ours:.2f}x)"
    )

    g = torch.Generator().manual_seed(1)
    shape = (args.steps, args.games)
    rewards, values = torch.randn(shape, generator=g), torch.randn(shape, generator=g)
    dones = torch.rand(shape, generator=g) < 0.1
    last = torch.randn(args.games, generator=g)
    adv, _ = gae(rewards, values, dones, last, 1.0, 0.95)
    nxt = torch.cat([values[1:], last[None]])

    def theirs_gae() -> torch.Tensor:
        return generalized_advantage_estimate(
            1.0,
            0.95,
            values.T[..., None],
            nxt.T[..., None],
            rewards.T[..., None],
            dones.T[..., None],
            dones.T[..., None],
        )[0]

    np_close = torch.allclose(theirs_gae()[..., 0].T, adv, atol=1e-5)
    ours_gae = median_ms(lambda: gae(rewards, values, dones, last, 1.0, 0.95), args.repeats)
    torchrl_gae = median_ms(theirs_gae, args.repeats)
    print(
        f"GAE, {args.steps} x {args.games}: plain torch {ours_gae:.3f} ms, TorchRL "
        f"{torchrl_gae:.3f} ms ({torchrl_gae / ours_gae:.2f}x); equal: {np_close}"
    )
    print(f"({args.threads} torch thread(s); median of {args.repeats})")


if __name__ == "__main__":
    main()
