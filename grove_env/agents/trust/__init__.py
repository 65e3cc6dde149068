"""``heuristic-trust``: the first heuristic, and its private models of the round.

- :mod:`.agent`: the agent, a one-round look-ahead that trusts the other seats.
- :mod:`.posterior`: suspect triples and culprit posteriors from what a seat knows.
- :mod:`.seat_model`, :mod:`.table_belief`, :mod:`.round_model`: how it models the other
  seats, Bayes' rule over the kind of table, and the rest of the round.

Imports: :mod:`grove_env.agents.base` and the game layer only (it shares nothing with the
batched agents, whose reference it was).
"""
