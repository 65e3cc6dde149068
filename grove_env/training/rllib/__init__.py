"""``backend: rllib``: Ray RLlib's PPO with env runners on ``grove_env/SelfPlay-v0``.

=====================  ============================================================
:mod:`.module`         the masked actor-critic RLlib trains, laid out like the
                       project's actor
:mod:`.backend`        :class:`~.backend.RLlibRun`: the run, its checkpoints and the
                       policy export
=====================  ============================================================

Needs the ``rllib`` extra. A learner: imports the shared parts, never another learner.
"""
