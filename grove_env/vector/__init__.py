"""The batched engine: thousands of games stepped at once with NumPy.

=====================  ==============================================================
:mod:`.state`          :class:`~.state.VectorState`, the arrays of B games
:mod:`.deals`          :class:`~.deals.Dealer`, random and forced deals of B games
:mod:`.rules`          one round's rules on those arrays, batched over games
:mod:`.obs`            :class:`~.obs.VectorEncoder`, observations of many seats at once
:mod:`.obs_tables`     the observation's chunks as tables, built from its index table
:mod:`.results`        :class:`~.results.StepResult` and :class:`~.results.RoundResults`
:mod:`.engine`         :class:`~.engine.VectorGame`, which strings them together
=====================  ==============================================================

The engine sits beside the PettingZoo adapter, above the pure game
(:mod:`grove_env.core`, :mod:`grove_env.rules`), and imports nothing above it. It
states no rule of its own: its tables are derived from the game layer's rules
(:mod:`grove_env.resolution`, :mod:`grove_env.standings`, the ``RuleSet``).
"""

from grove_env.vector.engine import REWARD_MODES, VectorGame
from grove_env.vector.results import RoundResults, StepResult

__all__ = ["REWARD_MODES", "RoundResults", "StepResult", "VectorGame"]
