"""An agent from another package: it plays the lowest legal action.

grove-env finds it through the entry point ``example-plugin`` of the group
``grove_env.agents`` (see ``pyproject.toml``); the factory takes the spec's argument
(``example-plugin:ARG``, here unused) and a seed, and returns anything with ``act``.
The agent reads only the observation's ``action_mask``: of the legal actions it plays
the lowest (a deterministic rule, so grove-env may batch its decisions).
"""

from __future__ import annotations

import numpy as np


class FirstLegal:
    """Plays the lowest legal action."""

    name = "example-plugin"
    deterministic = True

    def reset(self) -> None:
        return None

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return int(np.flatnonzero(observation["action_mask"])[0])


def make_agent(arg: str | None = None, seed: int | None = None) -> FirstLegal:
    """The registry's factory: ``example-plugin`` takes no argument."""
    if arg is not None:
        raise ValueError(f"example-plugin takes no argument, got {arg!r}")
    return FirstLegal()
