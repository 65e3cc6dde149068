"""Views: observations read as arrays, and what a seat's view allows.

- :mod:`.rows`: ``float[K, 125]`` observation rows read as fields (:class:`~.rows.Rows`),
  split by table, and the exact culprit odds of any seat's view.
- :mod:`.possible_deals`: every deal an observation allows, for batches of rows.
- :mod:`.row_agent`: the frame of the agents that decide batches of rows.

Imports: :mod:`grove_env.agents.base` and the game layer only.
"""
