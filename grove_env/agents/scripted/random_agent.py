"""``random``: uniform over the legal actions, seeded."""

from __future__ import annotations

import numpy as np

from ..base import BaseAgent


def random_actions(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """int64[B]: one uniformly drawn legal action per row of ``masks`` (bool[B, A]),
    the legal action whose random key is largest (one draw of ``rng`` per entry)."""
    keys = rng.random(masks.shape)
    return np.where(masks, keys, -1.0).argmax(axis=1).astype(np.int64)


def uniform(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """``float64[K, 10]``: uniform over each row's legal actions (``observations`` unread)."""
    legal = np.asarray(masks, dtype=np.float64)
    return legal / legal.sum(axis=1, keepdims=True)


uniform.mask_only = True  # type: ignore[attr-defined]
"""It reads the action mask alone: an exact analysis may ask it once for many states."""


class RandomAgent(BaseAgent):
    """Picks uniformly among the actions the mask allows.

    >>> agent = RandomAgent(seed=0)
    >>> agent.act({"observation": np.zeros(125), "action_mask": np.array([0] * 7 + [1] * 3)})
    9
    """

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError("random agent asked to act with an all-zero action mask")
        return int(legal[self.rng.integers(legal.size)])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One draw per row: the first legal action whose random key is largest."""
        masks = np.asarray(masks, dtype=bool)
        if not masks.any(axis=1).all():
            raise ValueError("random agent asked to act on a row with an all-zero action mask")
        return random_actions(self.rng, masks)

    def action_probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The distribution ``act`` draws from: :func:`uniform`."""
        return uniform(observations, masks)

    action_probabilities.mask_only = True  # type: ignore[attr-defined]


def make(arg: str | None = None, seed: int | None = None) -> RandomAgent:
    if arg is not None:
        raise ValueError(f"the random agent takes no argument, got {arg!r}")
    return RandomAgent(seed=seed)
