"""Training throughput: the batched self-play VecEnv against a naive SB3 set-up, same run.

    python benchmarks/train_throughput.py [--num-envs 256] [--n-steps 32] [--rollouts 3]

Both sides train the same MaskablePPO (MLP ``--net-arch``) with every opponent seat
played by the learner's own current weights (pure self-play), on 4-player classic:

* **project**: :class:`grove_env.training.vec_env.GroveSelfPlayVecEnv` on the batched
  engine; opponents answered in one forward pass per engine step.
* **naive**: SB3 ``DummyVecEnv`` of single-game Gymnasium wrappers over ``grove_v1``;
  each wrapper plays the other seats by calling ``policy.predict`` once per move.

Reported: learner steps per second of collection alone (``collect_rollouts``) and of
whole iterations (collection + PPO update), and the ratio project / naive.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import DummyVecEnv

from grove_env.agents.learned.actor import Actor
from grove_env.grove_v1 import raw_env
from grove_env.observation import OBS_HIGH, OBS_SIZE
from grove_env.training.opponents import Opponents
from grove_env.training.vec_env import GroveSelfPlayVecEnv


class NaiveSelfPlayEnv(gym.Env):
    """One grove_v1 game; the learner holds one seat, ``policy`` plays the others one by one."""

    def __init__(self, seed: int, policy_holder: dict) -> None:
        self.game = raw_env(num_players=4, rules="classic")
        self.observation_space = gym.spaces.Box(0.0, OBS_HIGH, (OBS_SIZE,), np.float32)
        self.action_space = gym.spaces.Discrete(10)
        self.holder = policy_holder
        self.seed_ = seed
        self.games = 0

    def _learner_obs(self) -> np.ndarray:
        return self.game.observe(self.learner)["observation"]

    def action_masks(self) -> np.ndarray:
        return self.game.observe(self.learner)["action_mask"].astype(bool)

    def _play_others(self) -> float:
        g = self.game
        while not (g.terminations[self.learner] or g.truncations[self.learner]):
            if g.agent_selection == self.learner:
                break
            obs = g.observe(g.agent_selection)
            action, _ = self.holder["policy"].predict(
                obs["observation"], action_masks=obs["action_mask"].astype(bool)
            )
            g.step(int(action))
        return float(g._cumulative_rewards[self.learner])  # since the learner's last move

    def reset(self, seed=None, options=None):
        self.game.reset(seed=self.seed_ * 100_003 + self.games)
        self.learner = self.game.possible_agents[self.games % 4]
        self.games += 1
        self._play_others()
        return self._learner_obs(), {}

    def step(self, action):
        g = self.game
        g.step(int(action))
        reward = self._play_others()
        done = bool(g.terminations[self.learner])
        truncated = bool(g.truncations[self.learner])
        return self._learner_obs(), reward, done, truncated, {}


def build(kind: str, num_envs: int, n_steps: int, net_arch: list[int]) -> MaskablePPO:
    holder: dict = {}
    if kind == "project":
        env = GroveSelfPlayVecEnv(num_envs, Opponents({"live": 1.0}, seed=0), seed=0)
    else:
        env = DummyVecEnv([lambda i=i: NaiveSelfPlayEnv(i, holder) for i in range(num_envs)])
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=n_steps,
        batch_size=min(4096, num_envs * n_steps),
        n_epochs=4,
        seed=0,
        policy_kwargs={"net_arch": net_arch},
        verbose=0,
    )
    if kind == "project":
        env.opponents.live = Actor.of(model.policy)
    holder["policy"] = model
    return model


def collect_rate(model: MaskablePPO, rollouts: int) -> float:
    """Learner steps per second of ``collect_rollouts`` alone."""
    _, callback = model._setup_learn(10**9, None)  # resets the env, as learn() does
    model.collect_rollouts(model.env, callback, model.rollout_buffer, model.n_steps)  # warm-up
    start = time.perf_counter()
    for _ in range(rollouts):
        model.collect_rollouts(model.env, callback, model.rollout_buffer, model.n_steps)
    return rollouts * model.n_steps * model.env.num_envs / (time.perf_counter() - start)


def iteration_rate(model: MaskablePPO, rollouts: int) -> float:
    """Learner steps per second of whole PPO iterations (collect + update)."""
    size = model.n_steps * model.env.num_envs
    model.learn(size)  # warm-up
    start = time.perf_counter()
    model.learn(rollouts * size, reset_num_timesteps=False)
    return rollouts * size / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--num-envs", type=int, default=256)
    p.add_argument("--n-steps", type=int, default=32)
    p.add_argument("--rollouts", type=int, default=3, help="timed rollouts, project side")
    p.add_argument("--naive-rollouts", type=int, default=1, help="timed rollouts, naive side")
    p.add_argument("--net-arch", type=int, nargs="+", default=[128, 128])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--json", metavar="PATH", help="also write the figures to this file")
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)

    rates = {}
    for kind, rollouts in (("project", args.rollouts), ("naive", args.naive_rollouts)):
        model = build(kind, args.num_envs, args.n_steps, args.net_arch)
        collect = collect_rate(model, rollouts)
        whole = iteration_rate(model, rollouts)
        rates[kind] = (collect, whole)
        print(
            f"{kind:8s} collection {collect:9.0f} steps/s   collect+update {whole:9.0f} steps/s",
            flush=True,
        )
    (pc, pw), (nc, nw) = rates["project"], rates["naive"]
    print(f"ratio    collection {pc / nc:9.1f}x          collect+update {pw / nw:9.1f}x")
    print(
        f"({args.num_envs} envs x {args.n_steps} steps per rollout, net {args.net_arch}, "
        f"{args.threads} torch thread(s); learner steps, opponents = live weights)"
    )
    if args.json:
        figures = {
            "steps_per_s": {
                k: {"collection": c, "collect_update": w} for k, (c, w) in rates.items()
            },
            "ratio": {"collection": pc / nc, "collect_update": pw / nw},
        }
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
