"""Shared-policy masked PPO with Ray RLlib over the AEC environment (one Python game per env).

    pip install "grove-env[rllib]"
    python examples/rllib_ppo.py --iterations 5

RLlib's :class:`~ray.rllib.env.wrappers.pettingzoo_env.PettingZooEnv` turns
``grove_v1`` into a multi-agent env; every seat maps to one policy, ``shared``, whose
module (:class:`grove_env.training.rllib.module.MaskedActorCritic`) reads the
observation dict as ``grove_v1`` gives it and masks illegal moves. Two RLlib settings
matter here: ``disable_env_checking=True`` (RLlib's pre-check steps an unmasked random
action, which the game refuses), and ``episodes_to_numpy=False`` (left True, sampling
slows as the batch grows). ``--runners 0`` samples in this process, the stand-in for
the local mode RLlib no longer has.

For throughput, ``train.py`` with ``backend: rllib`` samples on the batched engine
instead (``grove_env/SelfPlay-v0``); this script shows the plain multi-agent route.
"""

from __future__ import annotations

import argparse
import sys

import ray
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.tune.registry import register_env

from grove_env import grove_v1
from grove_env.training.rllib.module import MaskedActorCritic


def make_env(config: dict) -> PettingZooEnv:
    return PettingZooEnv(grove_v1.env(num_players=config.get("num_players", 4)))


def ppo_config(players: int, runners: int, batch: int, seed: int) -> PPOConfig:
    module = RLModuleSpec(
        module_class=MaskedActorCritic, model_config={"net_arch": [64, 64], "activation": "relu"}
    )
    return (
        PPOConfig()
        .environment("grove_aec", env_config={"num_players": players}, disable_env_checking=True)
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, *a, **k: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": module}))
        .env_runners(num_env_runners=runners, episodes_to_numpy=False)
        .learners(num_learners=0)
        .training(train_batch_size_per_learner=batch, minibatch_size=min(256, batch), num_epochs=2)
        .debugging(seed=seed)
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--batch", type=int, default=2000, help="env steps per iteration")
    parser.add_argument("--runners", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    ray.init(num_cpus=max(2, args.runners + 1), include_dashboard=False, log_to_driver=False)
    register_env("grove_aec", make_env)
    algo = ppo_config(args.players, args.runners, args.batch, args.seed).build_algo()
    try:
        for i in range(1, args.iterations + 1):
            result = algo.train()
            runners = result["env_runners"]
            seats = runners.get("agent_episode_returns_mean", {})
            print(
                f"iteration {i}: {runners['num_env_steps_sampled_lifetime']:,.0f} env steps, "
                f"{runners['num_episodes_lifetime']:,.0f} games; mean return per seat "
                f"{ {a: round(float(r), 3) for a, r in sorted(seats.items())} }, summed over seats "
                f"{runners.get('episode_return_mean', float('nan')):+.3f} (zero-sum)",
                flush=True,
            )
    finally:
        algo.stop()
        ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
