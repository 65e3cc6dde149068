"""grove-env: the bluffing-and-deduction game In a Grove as an RL environment.

The pure game imports only numpy: the rule sets (:mod:`grove_env.rules`), the round's
reveal and resolution (:mod:`grove_env.resolution`), scores, ranks and rewards
(:mod:`grove_env.standings`), actions (:mod:`grove_env.actions`), the game core
(:mod:`grove_env.core`), the observation encoder (:mod:`grove_env.observation`), the
centralised critic's state (:mod:`grove_env.global_state`) and text
(:mod:`grove_env.text`). Each rule is written once there; the PettingZoo environment
(:mod:`grove_env.grove_v1`), the batched engine (:mod:`grove_env.vector`) and the
agents import it.
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
