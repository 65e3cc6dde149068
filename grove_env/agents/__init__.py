"""Agents for grove-env: baselines, the reference heuristic, trained policies, the arena.

Every agent is made from a spec (``"random"``, ``"heuristic:noise=0.2"``,
``"ppo:runs/x"``) by :func:`make_agent` and plays through one ``act``/``act_batch``
path (:mod:`grove_env.agents.base`). The sub-packages, lowest first; a module imports
only its own sub-package, those listed before it and the game layer
(``tests/test_layers.py`` holds the order):

=================  ========================================================================
``base``           the :class:`Agent` protocol, :class:`BaseAgent`, the registry of specs
``views``          observation rows as arrays, every deal a view allows, the row-agent frame
``scripted``       ``random``, ``greedy`` and the gauntlet's playing styles
``heuristic``      the reference ``heuristic`` (a search over a mixture of styles), advice
``trust``          ``heuristic-trust`` and its private models (imports only ``base``)
``learned``        ``ppo:``, ``sb3:``, ``cfr``: the policy network and its safe files
``arena``          one game, tournaments, ratings, the gauntlet
``cli``            the command lines (the only ``argparse`` here) and the ``human`` seat
=================  ========================================================================
"""

from .base import Agent, BaseAgent, agent_names, make_agent, parse_spec, register_agent

__all__ = ["Agent", "BaseAgent", "agent_names", "make_agent", "parse_spec", "register_agent"]
