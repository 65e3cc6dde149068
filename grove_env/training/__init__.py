"""Training for grove-env (needs the ``train`` extra: torch, pydantic; SB3 for ``backend: sb3``).

One front door (``grove-train`` / ``train.py``, :mod:`.cli`) runs every method from one
YAML config. The parts, lowest first; each imports only those above it in this table,
and the four learners never import each other (``tests/test_layers.py``,
``TRAINING_ORDER``):

======================  ====================================================================
:mod:`.config`          the typed, validated :class:`~.config.TrainConfig` (pydantic; YAML
                        and ``--set key=value``) and its ``descent:`` section; no torch
:mod:`.run`             a run's directory (``config.yaml``, ``run.json``, ``metrics.csv``),
                        its lock, checkpoints, the torch device, the actor-critic network
:mod:`.selfplay`        the self-play core over the batched engine (one learner seat per
                        game, opponents batched), the opponents and snapshot pool, the
                        tables of a run, the teacher's games, the Gymnasium face
                        ``grove_env/SelfPlay-v0``
:mod:`.measure`         quick evaluation while training, the final gauntlet, exact NashConv
                        while training (``exploit_every``)
:mod:`.schedule`        :class:`~.schedule.RunSchedule`: what a PPO run does on a schedule
                        (evaluations, NashConv, the best policy, checkpoints, Ctrl-C)
:mod:`.sb3`             ``backend: sb3``: MaskablePPO on an SB3 ``VecEnv`` face of the core
:mod:`.batched`         ``backend: batched``: this package's own PPO, every step a batch; the
                        loss the equilibrium-seeking terms (MMD's magnet) extend
:mod:`.rllib`           ``backend: rllib``: Ray RLlib's PPO on ``grove_env/SelfPlay-v0``
:mod:`.descent`         a ``descent:`` section: exploitability descent on the exact game
:mod:`.front`           the one backend table, :func:`~.front.train` and
                        :func:`~.front.resume`: the run protocol every learner shares
:mod:`.cli`             ``grove-train``: the command line and its one-line errors
:mod:`.sweep`           ``grove-sweep``: Optuna tunes a config's settings for exact NashConv,
                        each trial a run of the front door (the ``sweep`` extra)
:mod:`.bestresponse`    a learned best response to a frozen policy, each seat's gain and
                        their sum, a lower bound on NashConv where the exact one is out of reach
                        (``python -m grove_env.training.bestresponse``)
======================  ====================================================================

The policy's actor (masked logits as a plain torch function) and the model files are
agents (:mod:`grove_env.agents.learned.actor`, :mod:`grove_env.agents.learned.policy_files`).
:mod:`.config`, :mod:`.front` and :mod:`.cli` import without torch; a backend's library
(SB3, Ray) loads only when a run asks for it. Nothing here is imported by
:mod:`grove_env` itself.
"""
