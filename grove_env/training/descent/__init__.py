"""Exploitability descent: a policy trained on the exact game, not on samples.

=====================  ============================================================
:mod:`.tree`           what a descent reads off one round tree: branch
                       probabilities (a network's or a :class:`~.tree.TabularPolicy`'s),
                       the play term's opponents and floors, the values it reports
:mod:`.exact`          :func:`~.exact.descend` on a round tree: the descent and play
                       terms, floors, the loop, later public states
:mod:`.loop`           the loop every descent runs: checks, Adam steps,
                       measurements, the weights kept
:mod:`.game`           :func:`~.game.descend_game`: the whole game at two players
:mod:`.fit`            the network fitted to a table, weighted by reach
:mod:`.stages`         one stage of a ``descent:`` section, and ``descent.csv``
:mod:`.run`            :class:`~.run.DescentRun`: the stages in a run directory
=====================  ============================================================

A learner: imports the shared parts (config, run, measure) and the analysis, never
another learner.
"""
