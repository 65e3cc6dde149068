"""A text agent: the seat's view as JSON and prose, a move's name back.

``TextObservations`` serves each seat its information state as JSON and in words, with
the legal moves by name; ``TextAgent`` hands that to any *reader* and turns the name it
answers back into an action. The example the page shows plays a stand-in reader for a
language model; the shipped ``text`` agent then plays its gauntlet from the command line.
"""

from __future__ import annotations

from steps import sh

# The example the page shows: the view, a move by name, a reader in a tournament.
sh("python", "examples/text_agent.py", "--games", "40")

# The shipped text agent reads the JSON alone and picks by the heuristic's rule.
sh("grove-gauntlet", "--agent", "text", "--opponents", "random,piler", "--games", "20")
