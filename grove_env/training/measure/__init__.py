"""How good the policy is, while training and at its end.

=====================  ============================================================
:mod:`.evaluate`       quick batched evaluations against one opponent kind, the score
                       that picks the best policy, the final gauntlet
:mod:`.exploit`        exact NashConv of the policy while training (``exploit_every``)
=====================  ============================================================

May import the parts of :mod:`grove_env.training` before it (config, run, selfplay),
the analysis and the agents.
"""
