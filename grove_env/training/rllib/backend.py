"""``backend: rllib``: PPO on Ray RLlib, with env runners sampling on the batched engine.

``train.py`` imports this module only for a config with ``backend: rllib`` (it needs
``pip install grove-env[rllib]``). The run directory is the SB3 path's (config.yaml,
versions.json, metrics.csv, learning_curve.png, tb/, best_policy.*, final_eval.*), with
RLlib's own checkpoints in ``rllib_checkpoints/step_<12 digits>/``.

* **Where Ray runs**: ``RAY_ADDRESS`` set: the driver joins that cluster (``ray start
  --head`` / ``ray start --address``); unset: a local Ray instance with
  ``rllib.num_cpus`` CPUs.
* **Sampling**: each of ``rllib.env_runners`` env runners steps one
  ``grove_env/SelfPlay-v0`` of ``rllib.envs_per_runner`` games (gymnasium's
  ``vector_entry_point``), so a runner plays thousands of moves per second; the
  opponents are ``random`` and ``heuristic``, weighted as ``opponents`` says.
* **Learning**: one shared policy, :class:`~grove_env.training.rllib.module.
  MaskedActorCritic`, trained by PPO with the config's hyper-parameters: a train batch
  of ``num_envs * n_steps`` learner decisions, minibatches of ``batch_size``,
  ``n_epochs`` passes.
* **Logging**: TensorBoard scalars named as on the SB3 path (``rollout/ep_rew_mean``,
  ``train/value_loss``, ``eval/win_share_vs_random``, ``time/fps``...).
* **Policy export**: :func:`export_policy` writes the policy in the project's safe policy
  format; ``best_policy.json``/``.pt`` is the best quick evaluation, and the final
  tournament plays it as ``ppo:<run>/best_policy.json``.
* **Resume**: ``train.py --resume <run>`` restores the newest RLlib checkpoint.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import time
from pathlib import Path
from typing import Any

import ray
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from torch.utils.tensorboard import SummaryWriter

from grove_env.agents.learned.policy_files import BEST_POLICY
from grove_env.agents.learned.safe_policy import save_policy
from grove_env.training.config import TrainConfig
from grove_env.training.measure.evaluate import (
    eval_names,
    eval_score,
    evaluators,
    finish_run,
    metrics_row,
)
from grove_env.training.rllib.module import MaskedActorCritic, actor_of
from grove_env.training.run import checkpoint
from grove_env.training.run.directory import (
    MetricsLog,
    atomic_write_text,
    metrics_columns,
    plot_learning_curve,
)
from grove_env.training.selfplay.gym_env import ENV_ID

CHECKPOINTS = "rllib_checkpoints"
ENV = f"grove_env.training.selfplay.gym_env:{ENV_ID}"
"""The env id the runners make: the module part imports (and registers) it in each worker."""
TB_NAMES = {  # RLlib's learner metric -> the SB3 path's scalar
    "policy_loss": "train/policy_gradient_loss",
    "vf_loss": "train/value_loss",
    "entropy": "train/entropy",
    "mean_kl_loss": "train/approx_kl",
    "vf_explained_var": "train/explained_variance",
    "total_loss": "train/loss",
    "default_optimizer_learning_rate": "train/learning_rate",
}


def rllib_config(cfg: TrainConfig) -> PPOConfig:
    """RLlib's PPO config for a run: env runners on ``grove_env/SelfPlay-v0``, masked module."""
    r = cfg.rllib
    mix = {k: w for k, w in cfg.opponents.weights().items() if k not in ("live", "pool")}
    specs = [k for k, w in mix.items() if w > 0]
    env_config = {
        "opponents": specs,
        "opponent_weights": [mix[k] for k in specs],
        "opponent_sampling": cfg.opponent_sampling,
        "rules": cfg.rules,
        "num_players": cfg.num_players,
        "reward": cfg.reward,
        "max_rounds": cfg.max_rounds,
        "learner_seat": cfg.learner_seat,
    }
    module = RLModuleSpec(
        module_class=MaskedActorCritic,
        model_config={"net_arch": list(cfg.net_arch), "activation": cfg.activation},
    )
    return (
        PPOConfig()
        .environment(ENV, env_config=env_config, disable_env_checking=True)
        .env_runners(
            num_env_runners=r.env_runners,
            num_envs_per_env_runner=r.envs_per_runner,
            num_cpus_per_env_runner=r.cpus_per_env_runner,  # type: ignore[arg-type]  # Ray takes fractions
            gym_env_vectorize_mode="vector_entry_point",
            episodes_to_numpy=False,  # left True, sampling slows as the batch grows
            rollout_fragment_length="auto",
        )
        .learners(num_learners=r.learners)
        .rl_module(rl_module_spec=module)
        .training(
            train_batch_size_per_learner=cfg.rollout_size // max(1, r.learners),
            minibatch_size=cfg.batch_size,
            num_epochs=cfg.n_epochs,
            lr=cfg.learning_rate,
            gamma=cfg.gamma,
            lambda_=cfg.gae_lambda,
            clip_param=cfg.clip_range,
            vf_loss_coeff=cfg.vf_coef,
            entropy_coeff=cfg.ent_coef,
            grad_clip=cfg.max_grad_norm,
            use_kl_loss=False,
        )
        .debugging(seed=cfg.seed)
    )


def start_ray(cfg: TrainConfig) -> None:
    """Join ``RAY_ADDRESS``'s cluster if set, else start a local Ray instance."""
    if ray.is_initialized():
        return
    if os.environ.get("RAY_ADDRESS"):
        ray.init(log_to_driver=False, _node_ip_address=cfg.rllib.node_ip_address)
    else:
        ray.init(num_cpus=cfg.rllib.num_cpus, include_dashboard=False, log_to_driver=False)


def export_policy(module: MaskedActorCritic, cfg: TrainConfig, step: int, path: Path) -> Path:
    """Write ``module``'s policy in the project's safe policy format (what ``ppo:`` plays).

    The actor path (:func:`~grove_env.training.rllib.module.actor_of`) has the layers of
    the SB3 path's, so its weights go under the same card (:func:`checkpoint.policy_card`).
    """
    return save_policy(actor_of(module), checkpoint.policy_card(cfg, step), path)


class RLlibRun:
    """One RLlib run: its algorithm, schedule, evaluations, checkpoints and logs."""

    def __init__(
        self, cfg: TrainConfig, run_dir: Path, ckpt: Path | None = None, device: str = "cpu"
    ) -> None:
        self.cfg = cfg
        self.run_dir = run_dir
        start_ray(cfg)
        self.algo = rllib_config(cfg).build_algo()
        state: dict[str, Any] = {}
        if ckpt is not None:
            self.algo.restore_from_path(str((ckpt / "algorithm").resolve()))
            state = json.loads((ckpt / "state.json").read_text())
        self.steps = int(state.get("step", 0))
        self.last_eval = int(state.get("last_eval", -(10**18)))
        self.last_checkpoint = self.steps
        self.best_score = float(state.get("best_score", -math.inf))
        self.metrics = MetricsLog(
            run_dir / "metrics.csv",
            metrics_columns(eval_names(cfg)),
            resume_step=self.steps if ckpt else None,
        )
        self.evaluators = evaluators(cfg)
        self.writer = SummaryWriter(str(run_dir / "tb"))
        self.started = time.time()
        self._rollout_share: float | None = None

    @staticmethod
    def check(cfg: TrainConfig) -> None:
        """Nothing beyond the config's own checks (Ray starts with the run)."""

    @staticmethod
    def latest_checkpoint(run_dir: Path) -> Path | None:
        """The newest complete RLlib checkpoint folder of a run, or ``None``."""
        folder = run_dir / CHECKPOINTS
        done = [p for p in folder.glob("step_*") if (p / "state.json").is_file()]
        return max(done, key=lambda p: p.name) if done else None

    @property
    def step(self) -> int:
        return self.steps

    def complete(self) -> bool:
        """Trained to ``total_timesteps`` and finally evaluated (``final_eval.json``)."""
        done = self.steps >= self.cfg.total_timesteps
        return done and (self.run_dir / "final_eval.json").is_file()

    @property
    def module(self) -> MaskedActorCritic:
        module = self.algo.get_module()
        assert isinstance(module, MaskedActorCritic)
        return module

    def learn(self) -> bool:
        """Train to ``total_timesteps``; False if interrupted (a checkpoint is written)."""
        cfg = self.cfg
        try:
            if self.steps - self.last_eval >= cfg.eval_every or self.steps == 0:
                self.evaluate(self.steps)
            while self.steps < cfg.total_timesteps:
                began, before = time.time(), self.steps
                result = self.algo.train()
                self.steps = int(result["num_env_steps_sampled_lifetime"])
                self.log(result, (self.steps - before) / max(time.time() - began, 1e-9))
                if self.steps - self.last_eval >= cfg.eval_every:
                    self.evaluate(self.steps)
                if self.steps - self.last_checkpoint >= cfg.checkpoint_every:
                    self.save_checkpoint()
        except KeyboardInterrupt:
            print("interrupted: writing a checkpoint", flush=True)
            self.save_checkpoint()
            return False
        if self.last_eval != self.steps:
            self.evaluate(self.steps)
        self.save_checkpoint()
        return True

    def log(self, result: dict[str, Any], fps: float) -> None:
        runners = result.get("env_runners", {})
        learner = result.get("learners", {}).get("default_policy", {})
        scalars = {
            "rollout/ep_rew_mean": runners.get("episode_return_mean"),
            "rollout/ep_len_mean": runners.get("episode_len_mean"),
            "time/fps": fps,
            "time/iterations": result.get("training_iteration"),
        }
        scalars.update({TB_NAMES[k]: v for k, v in learner.items() if k in TB_NAMES})
        for name, value in scalars.items():
            if isinstance(value, (int, float)) and math.isfinite(value):
                self.writer.add_scalar(name, value, self.steps)
        self.writer.flush()
        print(
            f"step {self.steps:,}: {fps:,.0f} learner steps/s, "
            f"mean return {runners.get('episode_return_mean', float('nan')):+.3f}",
            flush=True,
        )

    def evaluate(self, step: int) -> None:
        """Quick evaluations on the batched engine; the best one becomes ``best_policy``."""
        self.last_eval = step
        actor = actor_of(self.module)
        results = {e.name: e.run(actor, seed=self.cfg.seed + step) for e in self.evaluators}
        shares = {k: r.win_share for k, r in results.items()}
        score = eval_score(shares, self.cfg.best_by)
        for name, r in results.items():
            self.writer.add_scalar(f"eval/win_share_vs_{name}", r.win_share, step)
            self.writer.add_scalar(f"eval/mean_reward_vs_{name}", r.mean_reward, step)
        self.writer.add_scalar("eval/score", score, step)
        is_best = score > self.best_score
        if is_best:
            self.best_score = score
            export_policy(self.module, self.cfg, step, self.run_dir / BEST_POLICY)
            info = {"step": step, "score": score, "criterion": self.cfg.best_by, **shares}
            atomic_write_text(self.run_dir / "best.json", json.dumps(info, indent=2) + "\n")
        self.metrics.append(
            metrics_row(step, time.time() - self.started, shares, score, pool_size=0)
        )
        plot_learning_curve(self.run_dir / "metrics.csv", self.run_dir / "learning_curve.png")
        shown = ", ".join(f"vs {k} {v:.3f}" for k, v in shares.items())
        print(f"step {step:,}: win share {shown}{'  (best)' if is_best else ''}", flush=True)

    def save_checkpoint(self) -> Path:
        """RLlib's checkpoint plus ``state.json`` (the schedule), atomically; prune old ones."""
        self.last_checkpoint = self.steps
        folder = self.run_dir / CHECKPOINTS
        folder.mkdir(exist_ok=True)
        final = folder / checkpoint.checkpoint_name(self.steps)
        tmp = folder / f".tmp-{final.name}-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        self.algo.save_to_path(str((tmp / "algorithm").resolve()))
        state = {
            "step": self.steps,
            "last_eval": self.last_eval,
            "best_score": self.best_score,
            "config": self.cfg.to_dict(),
            "saved_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
        }
        (tmp / "state.json").write_text(json.dumps(state, indent=2) + "\n")
        if final.exists():
            shutil.rmtree(final)
        os.replace(tmp, final)
        for old in sorted(p for p in folder.iterdir() if p.name.startswith("step_"))[
            : -self.cfg.keep_checkpoints
        ]:
            shutil.rmtree(old, ignore_errors=True)
        return final

    def finish(self) -> str | None:
        """Stop Ray's workers; the final tournament on ``best_policy`` (unless skipped)."""
        self.writer.close()
        self.algo.stop()
        plot_learning_curve(self.run_dir / "metrics.csv", self.run_dir / "learning_curve.png")
        return finish_run(self.cfg, self.run_dir, self.run_dir / BEST_POLICY)

    def close(self) -> None:
        """Stop the local Ray instance (or leave the cluster)."""
        ray.shutdown()
