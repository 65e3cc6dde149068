"""RLlib scaling: env steps/s with 1 and 2 env runners, learner throughput, vs SB3's collection.

    pip install "grove-env[rllib]"
    python benchmarks/rllib_scaling.py [--runners 1,2] [--envs-per-runner 256]

Every figure comes from this one run, on this machine:

* **sampling**: each env runner steps one ``grove_env/SelfPlay-v0`` of
  ``--envs-per-runner`` games with the masked policy; all runners sample ``--steps``
  env steps each, in parallel, and the driver times the whole call (env steps/s of
  the group, and per runner);
* **learner**: env steps of a train batch (``--batch``) per second of RLlib's PPO
  update on it (``n_epochs`` 4, minibatch 4096; its ``learner_update_timer``);
* **SB3 path**: ``collect_rollouts`` of the project's MaskablePPO VecEnv with as many
  games and the same opponents, in this process: the ratio says what the runners
  give beyond the single-process path. Opponents are random unless ``--heuristic``
  gives the heuristic a share (it costs far more per move than the engine).
"""

from __future__ import annotations

import argparse
import os
import time

import ray
from sb3_contrib import MaskablePPO

from grove_env.training.config import TrainConfig, config_from_dict
from grove_env.training.rllib.backend import rllib_config, start_ray
from grove_env.training.sb3.builders import policy_kwargs
from grove_env.training.sb3.vec_env import GroveSelfPlayVecEnv
from grove_env.training.selfplay.opponents import Opponents


def config(runners: int, envs: int, batch: int, heuristic: float) -> TrainConfig:
    return config_from_dict(
        {
            "backend": "rllib",
            "num_envs": batch // 32,
            "n_steps": 32,
            "batch_size": min(4096, batch),
            "n_epochs": 4,
            "features": "observation",
            "net_arch": [128, 128],
            "activation": "relu",
            "opponents": {"live": 0, "pool": 0, "random": 1 - heuristic, "heuristic": heuristic},
            "rllib": {"env_runners": runners, "envs_per_runner": envs, "num_cpus": runners + 1},
        }
    )


def rllib_rates(cfg: TrainConfig, steps: int, repeats: int) -> tuple[float, float]:
    """``(env steps/s of the runner group, learner steps/s)``, best of ``repeats``."""
    algo = rllib_config(cfg).build_algo()
    group = algo.env_runner_group
    assert group is not None

    def sample(runner: object) -> int:
        episodes = runner.sample(num_timesteps=steps, explore=True)  # type: ignore[attr-defined]
        return sum(len(e) for e in episodes)

    group.foreach_env_runner(sample, local_env_runner=False)  # warm-up
    best = 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        counts = group.foreach_env_runner(sample, local_env_runner=False)
        best = max(best, sum(counts) / (time.perf_counter() - start))
    learner = 0.0
    for _ in range(repeats):
        result = algo.train()
        timer = result["timers"].get("learner_update_timer")
        batch = result["env_runners"].get("num_env_steps_sampled")
        if timer and batch:
            learner = max(learner, batch / timer)
    algo.stop()
    return best, learner


def sb3_collect_rate(cfg: TrainConfig, num_envs: int, steps: int, repeats: int) -> float:
    """Learner steps/s of the SB3 path's ``collect_rollouts`` with ``num_envs`` games."""
    mix = {k: w for k, w in cfg.opponents.weights().items() if k not in ("live", "pool")}
    env = GroveSelfPlayVecEnv(num_envs, Opponents(mix, seed=0), seed=0)
    n_steps = max(1, steps // num_envs)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=n_steps,
        batch_size=min(4096, n_steps * num_envs),
        policy_kwargs=policy_kwargs(cfg),
        device="cpu",
        seed=0,
    )
    _, callback = model._setup_learn(10**9, None)
    model.collect_rollouts(env, callback, model.rollout_buffer, n_steps)  # warm-up
    best = 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        model.collect_rollouts(env, callback, model.rollout_buffer, n_steps)
        best = max(best, n_steps * num_envs / (time.perf_counter() - start))
    return best


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runners", default="1,2", help="env runner counts to measure")
    p.add_argument("--envs-per-runner", type=int, default=256)
    p.add_argument("--steps", type=int, default=16384, help="env steps per runner per sample")
    p.add_argument("--batch", type=int, default=16384, help="PPO train batch (learner)")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--heuristic", type=float, default=0.0, help="share of heuristic opponents")
    args = p.parse_args(argv)
    counts = [int(c) for c in args.runners.split(",")]
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs", flush=True)
    rows = []
    for runners in counts:
        cfg = config(runners, args.envs_per_runner, args.batch, args.heuristic)
        start_ray(cfg)
        sampling, learner = rllib_rates(cfg, args.steps, args.repeats)
        ray.shutdown()
        rows.append((runners, sampling, learner))
        print(
            f"{runners} env runner(s) x {args.envs_per_runner} games: sampling "
            f"{sampling:,.0f} env steps/s ({sampling / runners:,.0f} per runner), "
            f"learner {learner:,.0f} steps/s",
            flush=True,
        )
    cfg = config(1, args.envs_per_runner, args.batch, args.heuristic)
    sb3 = sb3_collect_rate(cfg, args.envs_per_runner, args.steps, args.repeats)
    print(f"SB3 path collect_rollouts, {args.envs_per_runner} games: {sb3:,.0f} steps/s")
    for runners, sampling, _ in rows:
        print(f"ratio RLlib {runners} runner(s) / SB3 collection: {sampling / sb3:.2f}")


if __name__ == "__main__":
    main()
