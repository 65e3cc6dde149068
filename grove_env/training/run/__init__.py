"""A run's home: everything a run writes and reads back, whatever trains it.

=====================  ============================================================
:mod:`.directory`      the run directory: ``config.yaml``, ``run.json``,
                       ``versions.json``, ``metrics.csv`` and its curve
:mod:`.lock`           ``train.lock``: one writer per run directory
:mod:`.checkpoint`     atomic checkpoints, resume, clear errors for damaged files
:mod:`.device`         the torch device a config asks for, checked before any write
:mod:`.network`        the actor-critic every torch learner starts from, its
                       ``model.pt`` read without pickle
=====================  ============================================================

May import :mod:`grove_env.training.config`, the agents and the game layer.
"""
