"""Masked DQN with Tianshou over the AEC environment: one shared Q-network plays every seat.

    pip install "grove-env[suites]"
    python examples/tianshou_dqn.py --epochs 10

Tianshou's :class:`~tianshou.env.PettingZooEnv` turns ``grove_v1`` into one stream of
``{"agent_id", "obs", "mask"}`` observations; the DQN policy reads ``mask`` and never
picks an illegal move. The same :class:`~tianshou.algorithm.DQN` is handed to every
seat, so the seats share one network. As in Tianshou's own tic-tac-toe example, the
next observation of a stored transition is the next player's: fine for a demo, but
for self-play credit done right see :mod:`grove_env.training.sb3.vec_env`.

Each epoch collects games with epsilon-greedy exploration and updates the network;
the script then plays ``--eval-episodes`` games greedily and prints the mean return
per seat (zero-sum: every seat is the same network).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import torch
from tianshou.algorithm import DQN
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv
from tianshou.utils.net.common import Net
from tianshou.utils.torch_utils import policy_within_training_step

from grove_env import grove_v1


def make_env(num_players: int, rules: str) -> PettingZooEnv:
    return PettingZooEnv(grove_v1.env(num_players=num_players, rules=rules))


def make_algorithm(env: PettingZooEnv, hidden: int = 128, lr: float = 1e-3) -> DQN:
    """The multi-agent wrapper around one DQN shared by every seat."""
    net = Net(
        state_shape=env.observation_space["observation"].shape,
        action_shape=env.action_space.n,
        hidden_sizes=[hidden, hidden],
    )
    policy = DiscreteQLearningPolicy(
        model=net, action_space=env.action_space, eps_training=0.2, eps_inference=0.0
    )
    dqn = DQN(
        policy=policy,
        optim=AdamOptimizerFactory(lr=lr),
        gamma=0.99,
        n_step_return_horizon=1,
        target_update_freq=100,
    )
    return MultiAgentOffPolicyAlgorithm(algorithms=[dqn] * len(env.agents), env=env)


def collect_episodes(
    algorithm: MultiAgentOffPolicyAlgorithm, envs: DummyVectorEnv, episodes: int
) -> CollectStats:
    """Play ``episodes`` whole games greedily into a fresh buffer (the stats hold returns)."""
    buffer = VectorReplayBuffer(200 * episodes, len(envs))
    collector = Collector(algorithm.policy, envs, buffer)
    collector.reset()
    algorithm.policy.eval()
    return collector.collect(n_episode=episodes)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rules", default="classic")
    parser.add_argument("--envs", type=int, default=8)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--steps-per-epoch", type=int, default=2000)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--eval-episodes", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    env = make_env(args.players, args.rules)
    train_envs = DummyVectorEnv([lambda: make_env(args.players, args.rules)] * args.envs)
    test_envs = DummyVectorEnv([lambda: make_env(args.players, args.rules)] * args.envs)
    train_envs.seed(args.seed)
    test_envs.seed(args.seed + 1)
    algorithm = make_algorithm(env)
    buffer = VectorReplayBuffer(20_000, args.envs)
    collector = Collector(algorithm.policy, train_envs, buffer, exploration_noise=True)
    collector.reset()
    for epoch in range(1, args.epochs + 1):
        with policy_within_training_step(algorithm.policy):
            stats = collector.collect(n_step=args.steps_per_epoch)
            for _ in range(args.steps_per_epoch // args.envs):
                algorithm.update(buffer=buffer, sample_size=args.batch_size)
        print(f"epoch {epoch}: {stats.n_collected_episodes} games, {stats.n_collected_steps} moves")
    result = collect_episodes(algorithm, test_envs, args.eval_episodes)
    returns = np.asarray(result.returns)
    print(
        f"greedy self-play, {result.n_collected_episodes} games: mean return per seat "
        f"{np.round(returns.mean(axis=0), 3).tolist()}, "
        f"largest |sum over seats| {np.abs(returns.sum(axis=1)).max():.2g}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
