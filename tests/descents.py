"""What the descent tests share: the config they train and a fresh network of it."""

from __future__ import annotations

from pathlib import Path

import torch

from grove_env.agents.learned.actor import Actor
from grove_env.training.config import load_config
from grove_env.training.run import checkpoint
from grove_env.training.run.network import ActorCritic

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "configs" / "revised_2p.yaml"


def fresh_actor(seed: int = 0) -> Actor:
    """The revised 2p config's network, from ``seed``, playing by sampling."""
    torch.manual_seed(seed)
    cfg = load_config(CONFIG).model_copy(update={"play": "sample"})
    return ActorCritic(checkpoint.policy_card(cfg, 0)).actor
