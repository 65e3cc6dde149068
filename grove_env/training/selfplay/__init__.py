"""Self-play over the batched engine, shared by every learner (none of them imports SB3 here).

=====================  ============================================================
:mod:`.opponents`      who plays the other seats: live weights, snapshots, any agent
                       spec, each kind in one batched call per step
:mod:`.games`          :class:`~.games.SelfPlayGames`, the core: one learner seat per
                       game (or every live seat), opponents batched, the credit
                       assignment's design note
:mod:`.tables`         a run's games split over its tables and seeded; the tables
                       stepped as one batch
:mod:`.teacher`        the warm start: the teacher's games and the fit to them
:mod:`.gym_env`        ``grove_env/SelfPlay-v0``, the core's ``gymnasium.vector``
                       face for any single-agent library and RLlib
=====================  ============================================================

May import :mod:`grove_env.training.config`, :mod:`grove_env.training.run`, the agents,
the batched engine and the game layer.
"""
