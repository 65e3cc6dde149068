"""Self-play PPO training for grove-env (needs the ``train`` extra: torch, SB3, pydantic).

Data flows one way, one module per step:

=====================  ==============================================================
:mod:`.config`         the typed, validated :class:`~.config.TrainConfig` (pydantic
                       models; YAML + ``--set key=value``), its fields grouped in
                       ``config_types``, ``config_groups`` and ``config_learning``;
                       imports neither torch nor SB3
:mod:`.features`       derived network inputs (culprit odds, stack sizes, advice)
:mod:`.opponents`      who plays the other seats: live weights, snapshots, heuristic,
                       random, each in one batched call per step
:mod:`.selfplay`       :class:`~.selfplay.SelfPlayGames`, the self-play core over the
                       batched engine: one learner seat per game, opponents batched
:mod:`.vec_env`        :class:`~.vec_env.GroveSelfPlayVecEnv`, its SB3 ``VecEnv`` face
:mod:`.selfplay_env`   ``grove_env/SelfPlay-v0``, its ``gymnasium.vector.VectorEnv``
                       face (no SB3), for any single-agent library and RLlib
:mod:`.evaluate`       quick evaluation on the batched engine, and the final
                       tournament table
:mod:`.checkpoint`     atomic checkpoints, resume, clear errors for bad files
:mod:`.run_dir`        the run directory: config, versions, metrics.csv, curve
:mod:`.run_lock`       ``train.lock``: one writer per run directory
:mod:`.builders`       the pieces of a run from its config: opponents, VecEnv,
                       MaskablePPO, the callback that hooks the loop into ``learn``
:mod:`.run_schedule`   :class:`~.run_schedule.RunSchedule`, what every backend's run
                       does alike: schedule, evaluations, best policy, Ctrl-C
:mod:`.exploit`        exact NashConv of the policy while training (``exploit_every``)
:mod:`.trainer`        ``backend: sb3``: :class:`~.trainer.Trainer`, MaskablePPO
:mod:`.batched`        ``backend: batched``: this package's own PPO, every step a
                       batch; the loss the equilibrium-seeking terms extend
:mod:`.runs`           what ``train.py`` calls: :func:`~.runs.train`, ``resume``
:mod:`.rllib_module`   the masked actor-critic RLlib trains, laid out like SB3's
                       ``MlpPolicy`` (needs the ``rllib`` extra)
:mod:`.rllib_backend`  ``backend: rllib``: RLlib's PPO with env runners on
                       ``grove_env/SelfPlay-v0``, checkpoints, resume, policy export
=====================  ==============================================================

The policy's actor (masked logits as a plain torch function) and the model files are
agents (:mod:`grove_env.agents.learned.actor`, :mod:`grove_env.agents.learned.policy_files`). Only
:mod:`.config`, :mod:`.run_dir` and :mod:`.run_lock` import without torch; nothing here is
imported by :mod:`grove_env` itself.
"""
