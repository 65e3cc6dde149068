"""``ppo:PATH``: a policy trained by ``train.py`` (a MaskablePPO ``.zip``) as an agent.

``PATH`` is a model file (``runs/x/best.zip``, ``runs/x/checkpoints/step_.../model.zip``)
or a run directory, which means its ``best.zip`` (else its latest checkpoint). The
agent plays the most likely legal action (``deterministic=True``, the default) or
samples from the masked policy. Loaded weights are cached per file, so building the
agent once per game (as tournaments do) reads the file once.

A missing path is a ``FileNotFoundError``; a file that is not a MaskablePPO model of
this game (corrupt, or other observation/action spaces) is a ``ValueError``.

Needs the ``train`` extra (torch, stable-baselines3, sb3-contrib).
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import torch

from .actor import Actor
from .base import BaseAgent
from .policy_files import BEST, ModelFileError, latest_checkpoint, load_model


def resolve(path: str | Path) -> Path:
    """The model file a ``ppo:`` argument names (see the module docstring)."""
    p = Path(path)
    if p.is_dir():
        if (p / BEST).is_file():
            return p / BEST
        ckpt = latest_checkpoint(p)
        if ckpt is not None:
            return ckpt / "model.zip"
        raise FileNotFoundError(f"ppo: run directory {str(p)!r} has no best.zip and no checkpoint")
    if not p.is_file():
        raise FileNotFoundError(
            f"ppo: no model at {str(p)!r} (give a .zip saved by train.py or a run directory)"
        )
    return p


@functools.lru_cache(maxsize=8)
def _load(path: str, mtime_ns: int, size: int) -> Actor:
    try:
        model = load_model(Path(path), device="cpu")
    except ModelFileError as e:
        raise ValueError(f"ppo: {e}") from None
    actor = Actor.of(model.policy).frozen_copy()
    actor.eval()
    return actor


def load_actor(path: str | Path) -> Actor:
    """The (cached, frozen) actor of a saved model; re-read if the file changed."""
    p = resolve(path).resolve()
    st = p.stat()
    return _load(str(p), st.st_mtime_ns, st.st_size)


class PPOAgent(BaseAgent):
    """Plays a trained policy; ``act`` and ``act_batch`` honour the action mask."""

    name = "ppo"

    def __init__(
        self, actor: Actor, deterministic: bool = True, seed: int | None = None, path: str = ""
    ) -> None:
        self.actor = actor
        self.deterministic = deterministic
        self.path = path
        self.generator = torch.Generator()
        self.seed(seed)

    def seed(self, seed: int | None) -> None:
        """Reseed the sampling (only used with ``deterministic=False``)."""
        if seed is None:
            self.generator.seed()
        else:
            self.generator.manual_seed(int(seed) % 2**63)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        mask = np.asarray(observation["action_mask"], dtype=bool)
        if not mask.any():
            raise ValueError("ppo agent asked to act with an all-zero action mask")
        obs = np.asarray(observation["observation"], dtype=np.float32)[None]
        return int(self.actor.act(obs, mask[None], self.deterministic, self.generator)[0])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(masks, dtype=bool)
        if not masks.any(axis=1).all():
            raise ValueError("ppo agent asked to act on a row with an all-zero action mask")
        return self.actor.act(observations, masks, self.deterministic, self.generator)


def make(arg: str | None = None, seed: int | None = None, deterministic: bool = True) -> PPOAgent:
    """Registry factory for ``ppo:PATH``."""
    if not arg:
        raise ValueError("the ppo agent needs a path: ppo:runs/<run>/best.zip or ppo:runs/<run>")
    return PPOAgent(load_actor(arg), deterministic=deterministic, seed=seed, path=arg)
