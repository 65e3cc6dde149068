"""Where a training run keeps its policies, and reading a saved model with clear errors.

A run directory holds ``best.zip`` and ``checkpoints/step_<12 digits>/model.zip``
(MaskablePPO zips); a checkpoint folder is complete once its ``state.json`` exists.
The trainer (:mod:`grove_env.training.checkpoint`) writes this layout and the ``ppo:``
agent (:mod:`grove_env.agents.ppo`) reads it, so it is defined here, below both.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

from grove_env.actions import NUM_ACTIONS
from grove_env.observation import OBS_SIZE

CHECKPOINTS = "checkpoints"
CHECKPOINT_PREFIX = "step_"
BEST = "best.zip"


class ModelFileError(RuntimeError):
    """A saved model is missing, corrupt, or not a policy for this game."""


def latest_checkpoint(run_dir: Path) -> Path | None:
    """The newest complete checkpoint folder of a run, or ``None``."""
    folder = run_dir / CHECKPOINTS
    if not folder.is_dir():
        return None
    done = [
        p
        for p in folder.iterdir()
        if p.is_dir() and p.name.startswith(CHECKPOINT_PREFIX) and (p / "state.json").is_file()
    ]
    return max(done, key=lambda p: p.name) if done else None


def load_model(path: Path, env: Any = None, device: str = "cpu") -> Any:
    """``MaskablePPO.load`` with clear errors: missing, corrupt, or other spaces."""
    from sb3_contrib import MaskablePPO  # the train extra; deferred as a heavy optional

    path = Path(path)
    if not path.is_file():
        raise ModelFileError(f"no model file at {str(path)!r}")
    if not zipfile.is_zipfile(path):
        raise ModelFileError(f"{str(path)!r} is not a MaskablePPO checkpoint (not a zip file)")
    try:
        model = MaskablePPO.load(path, env=env, device=device)
    except ValueError as e:
        raise ModelFileError(
            f"checkpoint {str(path)!r} does not fit this environment: {e}"
        ) from None
    except (KeyError, OSError, RuntimeError, EOFError, zipfile.BadZipFile, TypeError) as e:
        raise ModelFileError(f"checkpoint {str(path)!r} is corrupt or unreadable: {e!r}") from None
    check_spaces(model, path)
    return model


def check_spaces(model: Any, path: Path) -> None:
    """The model must read 125-float observations and choose among 10 actions."""
    obs_shape = getattr(model.observation_space, "shape", None)
    n_actions = getattr(model.action_space, "n", None)
    if obs_shape != (OBS_SIZE,) or n_actions != NUM_ACTIONS:
        raise ModelFileError(
            f"checkpoint {str(path)!r} is a policy for observations of shape {obs_shape} and "
            f"{n_actions} actions; grove_env needs ({OBS_SIZE},) and {NUM_ACTIONS}"
        )
