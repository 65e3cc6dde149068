"""Scripted agents: ``random``, ``greedy`` and the gauntlet's playing styles.

- :mod:`.random_agent`: ``random``, uniform over the legal actions.
- :mod:`.styles`: the rule-based styles (``stack-avoider``, ``piler``, ``follower``,
  ``contrarian``, ``bluffer``), each one small idea stated once.
- :mod:`.greedy`: ``greedy``, the likeliest culprit (a style of :mod:`.styles`).
- :mod:`.text_agent`: a seat played through the text observation mode by a reader
  (a script, a language model) that answers with move names.

Imports: :mod:`grove_env.agents.base`, :mod:`grove_env.agents.views` and the game layer.
"""
