"""The frame of the agents that decide batches of observations read as :class:`Rows`.

The styles and the heuristic decide ``K`` observations at once: the rows are split by
table (:func:`~grove_env.agents.views.rows.tables`), read once, and each phase's rows go to
the subclass's :meth:`RowAgent.accuse` or :meth:`RowAgent.swap`; the look is always
slot 0 unseen (before anyone looks the slots are exchangeable). :meth:`RowAgent.act`
is one row of :meth:`RowAgent.act_batch`, so one observation is decided exactly as in a
batch.
"""

from __future__ import annotations

import numpy as np

from grove_env.actions import KEEP, LEAVE_0, Phase
from grove_env.observation import OFF_PHASE
from grove_env.rules import RuleSet

from ..base import BaseAgent
from .rows import Rows, tables


class RowAgent(BaseAgent):
    """Deterministic: the decision depends on the observation alone."""

    deterministic = True
    fork_safe = True
    """NumPy alone: an exact analysis may ask it from forked worker processes."""

    def act(self, observation: dict[str, np.ndarray]) -> int:
        """One row of :meth:`act_batch`."""
        obs = np.asarray(observation["observation"], dtype=np.float64)[None]
        return int(self.act_batch(obs, np.asarray(observation["action_mask"])[None])[0])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Actions for ``observations[K, 125]`` with ``masks[K, 10]``, as ``int64[K]``."""
        obs = np.asarray(observations, dtype=np.float64)
        masks = np.asarray(masks) != 0
        if not masks.any(axis=1).all():
            raise ValueError(f"{self.name} agent asked to act with an all-zero action mask")
        phase = obs[:, OFF_PHASE : OFF_PHASE + 4].argmax(axis=1)
        actions = np.where(phase == int(Phase.LOOK), LEAVE_0, KEEP).astype(np.int64)
        for rules, _, idx in tables(obs):
            rows = Rows.of(obs[idx])
            for stage, decide in ((Phase.ACCUSE, self.accuse), (Phase.SWAP, self.swap)):
                at = np.flatnonzero(rows.phase == int(stage))
                if at.size:
                    actions[idx[at]] = decide(rows.take(at), rules, masks[idx[at]])
        legal = masks[np.arange(len(obs)), actions]
        return np.where(legal, actions, masks.argmax(axis=1)).astype(np.int64)

    def accuse(self, rows: Rows, rules: RuleSet, masks: np.ndarray) -> np.ndarray:
        """Actions (``ACCUSE_0 + slot``) for rows in the accuse phase."""
        raise NotImplementedError

    def swap(self, rows: Rows, rules: RuleSet, masks: np.ndarray) -> np.ndarray:
        """Actions for the first player's swap (``KEEP`` or ``SWAP_0 + slot``): keep."""
        return np.full(len(rows), KEEP, dtype=np.int64)
