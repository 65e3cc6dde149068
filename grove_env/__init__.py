"""grove-env: the bluffing-and-deduction game In a Grove as an RL environment.

The game core (:mod:`grove_env.core`), rules (:mod:`grove_env.rules`), actions
(:mod:`grove_env.actions`) and observation encoder (:mod:`grove_env.observation`) import
only numpy; the PettingZoo environment lives in :mod:`grove_env.grove_v0`.
"""

from grove_env.actions import NUM_ACTIONS, Phase
from grove_env.core import Game, RoundRecord
from grove_env.observation import OBS_SIZE, DecodedObservation, ObservationEncoder, decode
from grove_env.resolution import culprit_slot
from grove_env.rules import CLASSIC, REVISED, RuleSet, get_rules

__version__ = "0.1.0"

__all__ = [
    "CLASSIC",
    "NUM_ACTIONS",
    "OBS_SIZE",
    "REVISED",
    "DecodedObservation",
    "Game",
    "ObservationEncoder",
    "Phase",
    "RoundRecord",
    "RuleSet",
    "culprit_slot",
    "decode",
    "get_rules",
]
