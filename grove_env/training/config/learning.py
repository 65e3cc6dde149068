"""The training config's learning fields: PPO, the backend, and the equilibrium-seeking terms.

:class:`PPOFields` are read by every backend; :class:`EquilibriumFields` by ``backend:
batched`` only, whose loss (:mod:`grove_env.training.batched.loss`) they shape: a
reverse-KL term towards a magnet policy and a proximal KL term (Magnetic Mirror
Descent, Sokota et al., ICLR 2023), and schedules for the entropy bonus and the
magnet's weight. ``configs/tuned_ppo.yaml`` and ``configs/mmd.yaml`` name settings from
the literature. No torch here.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, ValidationInfo, field_validator

from grove_env.training.config.fields import STRICT, Float, Int, Text


class RLlibSettings(BaseModel):
    """Ray RLlib's workers for ``backend: rllib`` (:mod:`grove_env.training.rllib.backend`)."""

    model_config = STRICT

    env_runners: Int = Field(2, ge=0)
    """Env runner processes that sample in parallel (0: sample in the driver process)."""
    envs_per_runner: Int = Field(256, ge=1)
    """Games each env runner steps at once on the batched engine (``grove_env/SelfPlay-v0``)."""
    learners: Int = Field(0, ge=0)
    """Learner processes (0: the PPO update runs in the driver process)."""
    cpus_per_env_runner: Float = Field(1.0, gt=0.0)
    """CPUs Ray reserves for each env runner (fractions share a core)."""
    num_cpus: Int | None = Field(None, ge=1)
    """CPUs of the local Ray instance (``null``: all); ignored when joining a cluster
    through ``RAY_ADDRESS``."""
    node_ip_address: Text | None = None
    """This machine's address when it joins a cluster through ``RAY_ADDRESS`` (``null``:
    Ray's guess); ``127.0.0.1`` for nodes started with ``--node-ip-address=127.0.0.1``."""


class PPOFields(BaseModel):
    """The PPO run: budget, batch, optimiser, network, seed and backend."""

    model_config = STRICT

    total_timesteps: Int = Field(1_000_000, ge=1)
    """Learner decisions to train for (one per VecEnv slot per step)."""
    max_seconds: Annotated[Float, Field(gt=0.0)] | None = None
    """Wall seconds of learning after which a ``backend: batched`` run ends as if it had
    reached ``total_timesteps`` (the annealed settings, ``lr_schedule`` and the ``_end``
    values, follow the larger of the two fractions; counted from the start of this
    process's learning, so a resume gets them again); ``null``: the steps alone. The
    seconds include the run's evaluations and exact NashConv measurements, the one at
    step 0 too, so wherever the seconds' fraction leads, two runs of the same seed and
    steps anneal differently under another limit or another load on the machine."""
    num_envs: Int = Field(512, ge=1)
    """Games played side by side; each is one VecEnv slot with one learner seat."""
    n_steps: Int = Field(32, ge=1)
    """Learner decisions per slot per rollout (rollout size = num_envs * n_steps)."""
    batch_size: Int = Field(4096, ge=2)
    """Minibatch size of the PPO update; must divide num_envs * n_steps."""
    n_epochs: Int = Field(4, ge=1)
    """Passes over each rollout in the PPO update."""
    learning_rate: Float = Field(3e-4, gt=0.0)
    """Adam step size (at the start, see ``lr_schedule``)."""
    lr_schedule: Literal["constant", "linear"] = "constant"
    """``linear``: the step size falls linearly to ``learning_rate_end`` at
    ``total_timesteps``."""
    gamma: Float = Field(1.0, ge=0.0, le=1.0)
    """Discount per learner decision; 1.0 suits a terminal-only reward."""
    gae_lambda: Float = Field(0.95, ge=0.0, le=1.0)
    """GAE lambda."""
    ent_coef: Float = Field(0.01, ge=0.0)
    """Entropy bonus coefficient (at the start, see ``ent_coef_end``)."""
    vf_coef: Float = Field(0.5, ge=0.0)
    """Value loss coefficient."""
    clip_range: Float = Field(0.2, gt=0.0)
    """PPO ratio clipping."""
    max_grad_norm: Float = Field(0.5, gt=0.0)
    """Gradient norm clipping."""
    target_kl: Annotated[Float, Field(gt=0.0)] | None = None
    """Stop an update's epochs early past this KL (``null``: never)."""
    net_arch: list[Annotated[Int, Field(ge=1)]] = [128, 128]
    """Hidden layer sizes, used for both the policy and the value network."""
    activation: Literal["tanh", "relu"] = "tanh"
    """Hidden layer activation."""
    features: Literal["observation", "culprit_odds", "advice"] = "observation"
    """Network input: the observation; or it followed by derived culprit odds and stack
    sizes (``culprit_odds``, :mod:`grove_env.training.sb3.features`); or those and the
    heuristic's search, the value of each move at each kind of table
    (``advice``, :mod:`grove_env.agents.heuristic.advice`: costs about as much as a heuristic
    seat per decision, at training and at play)."""
    seed: Int = Field(0, ge=0)
    """Seeds torch, numpy, the games and the opponents; part of the run name."""
    backend: Literal["sb3", "batched", "rllib"] = "batched"
    """``batched`` (the default, as in ``make train`` and the zoo's configs): this
    package's own PPO over the batched engine, every step a batch
    (:mod:`grove_env.training.batched`: several times SB3's steps per second, the
    equilibrium-seeking terms below, no SB3 needed); ``sb3``: sb3-contrib's MaskablePPO
    in this process, for SB3's tooling and zips; ``rllib``: Ray RLlib's PPO with env
    runners on the batched engine (``pip install grove-env[rllib]``; random and
    heuristic opponents only, ``features: observation``)."""
    rllib: RLlibSettings = RLlibSettings()  # frozen, so one shared default is safe
    """Ray RLlib's workers (read with ``backend: rllib`` only)."""

    @field_validator("batch_size")
    @classmethod
    def _divides_the_rollout(cls, batch_size: int, info: ValidationInfo) -> int:
        if "num_envs" in info.data and "n_steps" in info.data:
            rollout = info.data["num_envs"] * info.data["n_steps"]
            if rollout % batch_size:
                raise ValueError(f"must divide num_envs * n_steps = {rollout}")
        return batch_size


class EquilibriumFields(BaseModel):
    """Schedules and the terms of Magnetic Mirror Descent (``backend: batched``; module doc)."""

    model_config = STRICT

    shared_trunk: bool = False
    """The value is one linear layer on the policy's last hidden layer, instead of a
    network of its own (``backend: batched``): about half the update's work; the policy
    file is the same."""

    learn_from: Literal["learner", "live_seats"] = "learner"
    """Whose decisions the update learns from (``backend: batched``): the learner seat's
    of each game alone; or ``live_seats``: every seat that the live weights play as well
    (in pure self-play, every seat), each seat's decisions a trajectory of its own
    (:mod:`grove_env.training.batched.lanes`). A learner step is still one learnt
    decision, so a self-play run of the same ``total_timesteps`` plays a quarter of the
    games at four players, and takes less time."""
    overlap: bool = False
    """Collect the next rollout in a process of its own while the learner updates on the
    last one (``backend: batched``, :mod:`grove_env.training.batched.remote`): each update
    then learns from a rollout that the weights one update older played (a staleness of
    one rollout, recorded in ``run.json``), and a run is reproducible at a seed but not
    the same as one without it. Pays where a second core is free for the games."""

    learning_rate_end: Float = Field(0.0, ge=0.0)
    """Where ``lr_schedule: linear`` ends at ``total_timesteps``."""
    ent_coef_end: Float | None = Field(None, ge=0.0)
    """``ent_coef`` moves linearly to this at ``total_timesteps`` (``null``: constant)."""
    magnet: Literal["none", "uniform", "snapshot"] = "none"
    """The magnet policy ``rho`` of the reverse-KL term ``magnet_coef * KL(pi || rho)``:
    ``uniform`` over the legal moves (then the term is an entropy bonus measured from
    the uniform policy); ``snapshot``: a frozen copy of the learner, refreshed every
    ``magnet_every`` steps (the magnet follows the policy, as in NashPG); ``none``: plain
    PPO."""
    magnet_coef: Float = Field(0.0, ge=0.0)
    """Weight ``alpha`` of the magnet term (at the start, see ``magnet_coef_end``)."""
    magnet_coef_end: Float | None = Field(None, ge=0.0)
    """``magnet_coef`` moves linearly to this at ``total_timesteps`` (``null``: constant)."""
    magnet_every: Int = Field(500_000, ge=1)
    """Learner steps between refreshes of a ``snapshot`` magnet."""
    magnet_in: Literal["loss", "reward"] = "loss"
    """Where the magnet term acts: ``loss``, the term ``magnet_coef * KL(pi || rho)`` of
    each decision's own state; ``reward``, R-NaD's reward transformation (Perolat et
    al., 2022): each decision's reward less ``magnet_coef * log(pi(a|s) / rho(a|s))`` of
    the move it played, so the returns, the critic and the advantages carry the
    regularisation of every later decision too (a uniform magnet there is
    maximum-entropy RL's soft return)."""
    kl_coef: Float = Field(0.0, ge=0.0)
    """Weight of the proximal term ``KL(pi || pi_old)`` to the rollout's policy (MMD's
    mirror-descent step, ``1/eta``); 0: the clipping alone keeps updates small."""
