"""Checkpoints that survive ``kill -9``, and loading them with clear errors.

A checkpoint is a folder ``checkpoints/step_<12 digits>/`` holding ``model.zip`` (the
whole MaskablePPO: weights, optimiser, ``num_timesteps``), ``pool.pt`` (the opponent
snapshots) and ``state.json`` (trainer state and the config that shaped the model).
It is written under a temporary name and renamed into place with ``os.replace``, so a
run killed at any moment leaves either a whole checkpoint or none, and
:func:`~grove_env.agents.policy_files.latest_checkpoint` ignores leftovers (that module
defines the layout). ``best.zip`` (model only, what the ``ppo:`` agent loads) is
replaced the same way.

Checkpoints are taken at rollout boundaries only (right after a PPO update), so
``num_timesteps`` is always a multiple of the rollout size and a resumed run ends on
exactly the step count of an uninterrupted one.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from grove_env.agents.policy_files import (
    BEST,
    CHECKPOINT_PREFIX,
    CHECKPOINTS,
    ModelFileError,
    load_model,
)
from grove_env.training.config import TrainConfig
from grove_env.training.run_dir import atomic_write_text

# Fields that shape the model or its data: a checkpoint only fits a run that agrees.
MODEL_FIELDS = (
    "rules",
    "num_players",
    "reward",
    "max_rounds",
    "num_envs",
    "n_steps",
    "net_arch",
    "activation",
    "features",
)


class CheckpointError(ModelFileError):
    """A checkpoint is missing, corrupt, or does not fit the run that loads it."""


def checkpoint_name(step: int) -> str:
    return f"{CHECKPOINT_PREFIX}{step:012d}"


def save(
    run_dir: Path,
    model: Any,
    pool_state: dict,
    state: dict[str, Any],
    cfg: TrainConfig,
    keep: int,
) -> Path:
    """Write a checkpoint for ``model.num_timesteps`` atomically; prune old ones."""
    import torch

    step = int(model.num_timesteps)
    folder = run_dir / CHECKPOINTS
    folder.mkdir(exist_ok=True)
    final = folder / checkpoint_name(step)
    tmp = folder / f".tmp-{final.name}-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    model.save(tmp / "model.zip")
    torch.save(pool_state, tmp / "pool.pt")
    meta = {"step": step, "config": cfg.to_dict(), **state}
    (tmp / "state.json").write_text(json.dumps(meta, indent=2) + "\n")
    for f in tmp.iterdir():
        with open(f, "rb") as fh:
            os.fsync(fh.fileno())
    if final.exists():  # the same step saved twice (e.g. interrupted right after one)
        shutil.rmtree(final)
    os.replace(tmp, final)
    old = sorted(p for p in folder.iterdir() if p.is_dir() and p.name.startswith(CHECKPOINT_PREFIX))
    for p in old[:-keep]:
        shutil.rmtree(p, ignore_errors=True)
    for p in folder.glob(".tmp-*"):  # leftovers of killed runs
        if p != tmp:
            shutil.rmtree(p, ignore_errors=True)
    return final


def save_best(run_dir: Path, model: Any, info: dict[str, Any]) -> None:
    """Replace ``best.zip`` and ``best.json`` atomically."""
    tmp = run_dir / f".best-{os.getpid()}.zip"
    model.save(tmp)
    os.replace(tmp, run_dir / BEST)
    atomic_write_text(run_dir / "best.json", json.dumps(info, indent=2) + "\n")


def check_fits(meta_config: dict[str, Any], cfg: TrainConfig, where: Path) -> None:
    """Raise :class:`CheckpointError` if the checkpoint's config differs where it matters."""
    now = cfg.to_dict()
    diff = [k for k in MODEL_FIELDS if meta_config.get(k) != now[k]]
    if diff:
        shown = ", ".join(f"{k}: checkpoint {meta_config.get(k)!r}, run {now[k]!r}" for k in diff)
        raise CheckpointError(f"checkpoint {str(where)!r} does not fit this run's config ({shown})")


def read_state(ckpt: Path) -> dict[str, Any]:
    """``state.json`` of a checkpoint folder, or :class:`CheckpointError`."""
    path = ckpt / "state.json"
    try:
        meta = json.loads(path.read_text())
    except FileNotFoundError:
        raise CheckpointError(f"checkpoint {str(ckpt)!r} has no state.json") from None
    except (OSError, ValueError) as e:
        raise CheckpointError(f"checkpoint {str(ckpt)!r}: state.json is corrupt ({e})") from None
    if not isinstance(meta, dict) or "step" not in meta or "config" not in meta:
        raise CheckpointError(f"checkpoint {str(ckpt)!r}: state.json lacks step/config")
    return meta


def load(ckpt: Path, env: Any, cfg: TrainConfig, device: str = "cpu") -> tuple[Any, dict, dict]:
    """Model (bound to ``env``), opponent-pool state and trainer state of a checkpoint."""
    import torch

    meta = read_state(ckpt)
    check_fits(meta["config"], cfg, ckpt)
    model = load_model(ckpt / "model.zip", env=env, device=device)
    if int(model.num_timesteps) != int(meta["step"]):
        raise CheckpointError(
            f"checkpoint {str(ckpt)!r}: model is at step {model.num_timesteps}, "
            f"state.json says {meta['step']}"
        )
    try:
        pool = torch.load(ckpt / "pool.pt", weights_only=True)
    except FileNotFoundError:
        raise CheckpointError(f"checkpoint {str(ckpt)!r} has no pool.pt") from None
    except Exception as e:  # torch raises many kinds for a damaged file
        raise CheckpointError(f"checkpoint {str(ckpt)!r}: pool.pt is corrupt ({e!r})") from None
    return model, pool, meta
