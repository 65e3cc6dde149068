"""``backend: sb3``: sb3-contrib's MaskablePPO, for SB3's tooling and zips.

=====================  ============================================================
:mod:`.vec_env`        the SB3 ``VecEnv`` face of the self-play core (one table, or
                       several as one)
:mod:`.features`       the derived network inputs as an SB3 features extractor
:mod:`.builders`       the run's pieces from its config: the VecEnv, the model, the
                       callback that hooks the schedule into ``learn``
:mod:`.trainer`        :class:`~.trainer.Trainer`, the run
=====================  ============================================================

The only part of the package that imports SB3. A learner: imports the shared parts
(config, run, selfplay, measure, schedule), never another learner.
"""
