"""Where a training run keeps its policies, and the error for a bad model file.

A run directory holds::

    best_policy.json, best_policy.pt      the best policy so far, safe format
    best.zip                              the same policy as a MaskablePPO zip
    checkpoints/step_<12 digits>/
        policy.json, policy.pt            the policy at that step, safe format
        model.zip, pool.pt, state.json    what ``--resume`` needs

The safe format (:mod:`grove_env.agents.learned.safe_policy`) is what the ``ppo:`` agent
plays; it loads without running code. The zips are stable-baselines3's: loading one
whole unpickles it (only the ``sb3:`` agent does, on request), while ``--resume``
reads only their tensors. A checkpoint folder is complete once its ``state.json``
exists. The trainer (:mod:`grove_env.training.checkpoint`) writes this layout and the
agents read it, so it is defined here, below both.
"""

from __future__ import annotations

from pathlib import Path

CHECKPOINTS = "checkpoints"
CHECKPOINT_PREFIX = "step_"
BEST = "best.zip"
BEST_POLICY = "best_policy.json"
POLICY = "policy.json"


class ModelFileError(ValueError):
    """A saved model or policy is missing, corrupt, unsafe to load, or not for this game."""


def checkpoints(run_dir: Path) -> list[Path]:
    """The complete checkpoint folders of a run, newest first."""
    folder = Path(run_dir) / CHECKPOINTS
    if not folder.is_dir():
        return []
    done = [
        p
        for p in folder.iterdir()
        if p.is_dir() and p.name.startswith(CHECKPOINT_PREFIX) and (p / "state.json").is_file()
    ]
    return sorted(done, key=lambda p: p.name, reverse=True)


def latest_checkpoint(run_dir: Path) -> Path | None:
    """The newest complete checkpoint folder of a run, or ``None``."""
    done = checkpoints(run_dir)
    return done[0] if done else None
