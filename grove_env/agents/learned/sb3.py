"""``sb3:PATH``: play a raw stable-baselines3 zip. LOADING IT CAN RUN CODE.

A MaskablePPO ``.zip`` stores its settings as cloudpickle inside the ``data`` entry,
and loading the zip unpickles them: a doctored zip runs whatever its author chose,
with your rights, the moment it is loaded. So the ``ppo:`` agent never opens a zip
(it plays the safe ``*_policy.json``/``.pt`` pair that training writes next to it);
this module is the explicit opt-in, for zips you made yourself or trust as you
would trust a program::

    python -m grove_env.agents.cli.tournament --agents sb3:runs/x/best.zip,heuristic,...

``PATH`` is a ``.zip`` file only (no run-directory lookup, so the file loaded is the
one named). Needs the ``train`` extra (torch, stable-baselines3, sb3-contrib).
:func:`load_model` is the one function of the package that unpickles a model.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

from grove_env.actions import NUM_ACTIONS
from grove_env.messages import describe
from grove_env.observation import OBS_SIZE

from .actor import Actor
from .policy_files import ModelFileError
from .policy_net import FEATURE_KINDS, reads
from .ppo import PPOAgent


def load_model(path: Path, env: Any = None, device: str = "cpu") -> Any:
    """``MaskablePPO.load`` (unpickles: trusted files only) with one-line errors."""
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
            f"checkpoint {str(path)!r} does not fit this environment: {describe(e)}"
        ) from None
    except Exception as e:  # a damaged zip fails in many ways (AssertionError among them)
        raise ModelFileError(
            f"checkpoint {str(path)!r} is corrupt or unreadable: {describe(e)}"
        ) from None
    check_spaces(model, path)
    return model


def check_spaces(model: Any, path: Path) -> None:
    """The model must read 125-float observations (followed by their advice, where its
    features read it: :mod:`grove_env.agents.heuristic.advice`) and choose among 10 actions."""
    obs_shape = getattr(model.observation_space, "shape", None)
    n_actions = getattr(model.action_space, "n", None)
    kind = getattr(getattr(model.policy, "features_extractor", None), "kind", "observation")
    width = reads(kind, OBS_SIZE) if kind in FEATURE_KINDS else OBS_SIZE
    if obs_shape != (width,) or n_actions != NUM_ACTIONS:
        raise ModelFileError(
            f"checkpoint {str(path)!r} is a policy for observations of shape {obs_shape} and "
            f"{n_actions} actions; grove_env needs ({width},) and {NUM_ACTIONS}"
        )


def zip_actor(path: str | Path) -> Actor:
    """The frozen actor of a MaskablePPO zip (unpickles it: trusted files only)."""
    model = load_model(Path(path), device="cpu")
    actor = Actor.of(model.policy).frozen_copy()
    actor.eval()
    return actor


def make(arg: str | None = None, seed: int | None = None, deterministic: bool = True) -> PPOAgent:
    """Registry factory for ``sb3:PATH`` (module docstring: this runs the zip's code)."""
    if not arg:
        raise ModelFileError("the sb3 agent needs a zip: sb3:runs/<run>/best.zip")
    if Path(arg).suffix != ".zip":
        raise ModelFileError(f"sb3: takes a .zip file, got {arg!r} (a safe policy plays as ppo:)")
    agent = PPOAgent(zip_actor(arg), deterministic=deterministic, seed=seed, path=arg)
    agent.name = "sb3"
    return agent
