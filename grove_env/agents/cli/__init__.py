"""The command lines built on the agents, and the seat of a person at the keyboard.

- :mod:`.tournament` (``grove-tournament``), :mod:`.gauntlet` (``grove-gauntlet``),
  :mod:`.league` (``grove-league``), :mod:`.play` (``grove-play``): each
  ``python -m grove_env.agents.cli.NAME``.
- :mod:`.human`: ``human``, a person reading the table as text and typing moves.
- :mod:`.command_line`: what they share: one-line errors, agent specs, output paths.

The only place in :mod:`grove_env.agents` where ``argparse`` is imported. Imports: every
sub-package of :mod:`grove_env.agents`.
"""
