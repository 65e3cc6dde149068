"""Ground truth for In a Grove: exact best response, NashConv and a CFR+ solver.

Layer 3 (beside training): it reads the game through its public API, the environment
for the ``markers`` reward, and agents through :mod:`grove_env.agents`.

- :mod:`~grove_env.analysis.round_tree`: one round as arrays over deals x histories.
- :mod:`~grove_env.analysis.policies`: any agent as action probabilities per observation.
- :mod:`~grove_env.analysis.best_response`: exact best response and NashConv of a round.
- :mod:`~grove_env.analysis.play`: an agent's exact first-round markers against copies
  of an opponent, and the best response's (the gauntlet's counterpart for one round).
- :mod:`~grove_env.analysis.cfr`: CFR+ on a round; strategies saved for ``cfr-round``.
- :mod:`~grove_env.analysis.state_views`: a round tree's information sets as seen from
  other public states, and a fixed policy asked about many states at once.
- :mod:`~grove_env.analysis.stage_maps`: a round under one profile as maps of its payoff
  table, so that the many states where a policy answers the same cost a product each.
- :mod:`~grove_env.analysis.whole_game`: NashConv of the whole game (exact at two and
  three seats), backward over the public marker states with the round as the stage.
- :mod:`~grove_env.analysis.game_solver`: the whole game solved the same way, CFR+ on
  each stage; strategies saved for the ``cfr`` agent.
- :mod:`~grove_env.analysis.measure`: :func:`nash_conv`, an agent's NashConv at a table
  in one call (the command line's, and a trainer's while it trains).

Command line: ``python -m grove_env.analysis nashconv|play|solve`` (see ``__main__``).
"""

from .measure import WHOLE_GAME_PLAYERS, WHOLE_GAME_ROUTINE, nash_conv

__all__ = ["WHOLE_GAME_PLAYERS", "WHOLE_GAME_ROUTINE", "nash_conv"]
