"""The reference agent ``heuristic``: a one-round search over a mixture of playing styles.

- :mod:`.search`: the agent (the search over every deal, the swap and accusation values).
- :mod:`.style_model`: what each style would do at every deal, and how well each style
  explains the accusations so far.
- :mod:`.style_tables`: the look-ups behind it: the seats' views as codes, and each
  style's decisions as a table of its own rule over their culprit counts.
- :mod:`.advice`: the search taken apart as network input features.
- :mod:`.text_reader`: ``text``, the heuristic's rule read from the JSON view alone.

Imports: :mod:`grove_env.agents.base`, :mod:`~grove_env.agents.views`,
:mod:`~grove_env.agents.scripted` and the game layer.
"""
