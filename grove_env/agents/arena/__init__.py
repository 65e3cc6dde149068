"""Where agents meet: one game, tournaments, ratings and the gauntlet.

- :mod:`.match`: one game between agents, the loop every caller shares.
- :mod:`.tournament`: round-robin-seated tournaments (:func:`~.tournament.run_tournament`),
  with :mod:`.tournament_games` (seating, workers), :mod:`.tournament_report` (records
  and statistics), :mod:`.tournament_plot` and :mod:`.ratings` (Wilson intervals,
  OpenSkill).
- :mod:`.gauntlet`: one agent against ``N - 1`` copies of each playing style.
- :mod:`.league`: the shipped agents (and any added) against each other, rated by one
  Bradley–Terry fit (:mod:`.bradley_terry`, through ``choix``) with bootstrap intervals.

Imports: every sub-package of :mod:`grove_env.agents` but :mod:`~grove_env.agents.cli`.
"""
