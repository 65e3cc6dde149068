"""CleanRL-style single-file PPO with action masking over ``grove_env/SelfPlay-v0``.

    python examples/cleanrl_ppo.py --total-timesteps 500000

One network plays the learner seat of ``--num-envs`` games on the batched engine
(opponents: ``--opponents``, any agent specs); ``gymnasium.make_vec`` builds the vector
env through its ``vector_entry_point``. The loop is CleanRL's ``ppo.py`` read top to
bottom -- rollout, GAE, clipped updates -- with the illegal moves' logits masked.
Autoreset is gymnasium's ``NEXT_STEP``: the step after a game's end only shows the
new game's first observation, so that step's transition is left out of the loss.
At the end the greedy policy plays ``--eval-games`` games against the same opponents.
"""

from __future__ import annotations

import argparse
import sys

import gymnasium
import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

import grove_env.training.selfplay.gym_env  # noqa: F401 - registers grove_env/SelfPlay-v0

MASKED = -1e8


class Agent(nn.Module):
    def __init__(self, obs_size: int, actions: int, hidden: int = 128) -> None:
        super().__init__()
        self.critic = nn.Sequential(
            nn.Linear(obs_size, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
            nn.Linear(hidden, 1),
        )  # fmt: skip
        self.actor = nn.Sequential(
            nn.Linear(obs_size, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
            nn.Linear(hidden, actions),
        )  # fmt: skip

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(obs).squeeze(-1)

    def policy(self, obs: torch.Tensor, mask: torch.Tensor) -> Categorical:
        # A finished game's slot shows no legal move; any action is ignored there.
        mask = mask | ~mask.any(dim=1, keepdim=True)
        return Categorical(logits=self.actor(obs).masked_fill(~mask, MASKED))


def tensors(obs: dict) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.as_tensor(obs["observation"]), torch.as_tensor(obs["action_mask"] > 0)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--total-timesteps", type=int, default=500_000)
    p.add_argument("--num-envs", type=int, default=128)
    p.add_argument("--num-steps", type=int, default=32)
    p.add_argument("--opponents", default="random", help="comma-separated agent specs")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--minibatches", type=int, default=4)
    p.add_argument("--gamma", type=float, default=1.0)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--clip-coef", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--eval-games", type=int, default=400)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    opponents = args.opponents.split(",")
    envs = gymnasium.make_vec(
        "grove_env/SelfPlay-v0", num_envs=args.num_envs, opponents=opponents, seed=args.seed
    )
    n_obs = envs.single_observation_space["observation"].shape[0]
    agent = Agent(n_obs, int(envs.single_action_space.n))
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)

    shape = (args.num_steps, args.num_envs)
    obs_buf = torch.zeros((*shape, n_obs))
    mask_buf = torch.zeros((*shape, int(envs.single_action_space.n)), dtype=torch.bool)
    actions, logprobs, rewards, values = (torch.zeros(shape) for _ in range(4))
    dones = torch.zeros(shape)  # 1: this observation ends a game (its action is ignored)
    next_obs, next_mask = tensors(envs.reset(seed=args.seed)[0])
    next_done = torch.zeros(args.num_envs)
    batch = args.num_steps * args.num_envs
    returns_seen: list[float] = []
    for update in range(1, args.total_timesteps // batch + 1):
        for step in range(args.num_steps):
            obs_buf[step], mask_buf[step] = next_obs, next_mask
            dones[step] = next_done
            with torch.no_grad():
                dist = agent.policy(next_obs, next_mask)
                action = dist.sample()
                values[step] = agent.value(next_obs)
            actions[step], logprobs[step] = action, dist.log_prob(action)
            obs, reward, term, trunc, info = envs.step(action.numpy())
            rewards[step] = torch.as_tensor(reward, dtype=torch.float32)
            next_done = torch.as_tensor(term | trunc, dtype=torch.float32)
            next_obs, next_mask = tensors(obs)
            if "episode" in info:
                returns_seen += info["episode"]["r"][info["_episode"]].tolist()
        with torch.no_grad():  # GAE; a done step ends its game (NEXT_STEP autoreset)
            next_value = agent.value(next_obs)
            advantages, last = torch.zeros(shape), torch.zeros(args.num_envs)
            for t in reversed(range(args.num_steps)):
                after_done = next_done if t == args.num_steps - 1 else dones[t + 1]
                after_value = next_value if t == args.num_steps - 1 else values[t + 1]
                live = 1.0 - after_done
                delta = rewards[t] + args.gamma * after_value * live - values[t]
                last = delta + args.gamma * args.gae_lambda * live * last
                advantages[t] = last
            target = advantages + values
        idx_all = torch.nonzero(dones.reshape(-1) == 0).squeeze(1)  # the decisions only
        b_obs, b_mask = obs_buf.reshape(batch, -1)[idx_all], mask_buf.reshape(batch, -1)[idx_all]
        b_act, b_logp = actions.reshape(-1)[idx_all], logprobs.reshape(-1)[idx_all]
        b_adv, b_ret = advantages.reshape(-1)[idx_all], target.reshape(-1)[idx_all]
        size = len(idx_all)
        for _ in range(args.update_epochs):
            perm = torch.randperm(size)
            for mb in perm.chunk(args.minibatches):
                dist = agent.policy(b_obs[mb], b_mask[mb])
                ratio = (dist.log_prob(b_act[mb]) - b_logp[mb]).exp()
                adv = (b_adv[mb] - b_adv[mb].mean()) / (b_adv[mb].std() + 1e-8)
                pg = torch.max(
                    -adv * ratio, -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)
                )
                v_loss = 0.5 * (agent.value(b_obs[mb]) - b_ret[mb]).pow(2).mean()
                loss = pg.mean() + 0.5 * v_loss - args.ent_coef * dist.entropy().mean()
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optimizer.step()
        recent = returns_seen[-500:]
        print(
            f"update {update}: {update * batch:,} steps, {len(returns_seen)} games, "
            f"mean return (last {len(recent)}) {np.mean(recent) if recent else float('nan'):+.3f}",
            flush=True,
        )
    print(f"greedy play vs {args.opponents}: win share {evaluate(agent, args):.3f}")
    return 0


def evaluate(agent: Agent, args: argparse.Namespace) -> float:
    """Win share of the greedy policy over ``--eval-games`` games."""
    envs = gymnasium.make_vec(
        "grove_env/SelfPlay-v0", num_envs=64, opponents=args.opponents.split(","), seed=10**6
    )
    obs, _ = envs.reset(seed=10**6)
    points: list[float] = []
    while len(points) < args.eval_games:
        o, m = tensors(obs)
        with torch.no_grad():
            action = agent.policy(o, m).probs.argmax(dim=1)
        obs, _, _, _, info = envs.step(action.numpy())
        if "win_points" in info:
            points += info["win_points"][info["_win_points"]].tolist()
    return float(np.mean(points[: args.eval_games]))


if __name__ == "__main__":
    sys.exit(main())
