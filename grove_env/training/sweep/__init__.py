"""Sweeps: Optuna draws training settings, the front door trains them, exact NashConv judges.

=====================  ===============================================================
:mod:`.spec`           the sweep file (``configs/sweeps/*.yaml``): base config, budget,
                       search space, seeds; checked when it loads
:mod:`.study`          the Optuna study in ``<folder>/study.db`` and its trials, each a
                       :func:`~grove_env.training.front.train` run per seed
:mod:`.report`         the ranked table, the settings' importances, the best settings as
                       configs, the fresh seeds' curves
:mod:`.cli`            ``grove-sweep`` (``python -m grove_env.training.sweep``)
=====================  ===============================================================

Sits above :mod:`grove_env.training.front` (it runs trainings as ``train.py`` does) and
may import every part of the training package; nothing in it imports this. Needs the
``sweep`` extra (Optuna).
"""
