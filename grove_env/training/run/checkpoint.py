"""Checkpoints that survive ``kill -9``, resumed without unpickling anything.

A checkpoint is a folder ``checkpoints/step_<12 digits>/`` holding ``model.zip`` (the
whole MaskablePPO as stable-baselines3 saves it; ``model.pt`` for ``backend: batched``,
:mod:`~grove_env.training.run.network`, written through :func:`write`), ``pool.pt`` (the opponent
snapshots), ``policy.json``/``policy.pt`` (the policy in the safe format of
:mod:`grove_env.agents.learned.safe_policy`, what the ``ppo:`` agent plays) and ``state.json``
(step counters, trainer state and the config that shaped the model). It is written
under a temporary name and renamed into place with ``os.replace``, so a run killed at
any moment leaves either a whole checkpoint or none, and
:func:`~grove_env.agents.learned.policy_files.latest_checkpoint` ignores leftovers (that module
defines the layout). ``best.zip`` and ``best_policy.json``/``.pt`` are replaced the
same way.

Resuming never unpickles: :func:`load` takes a model freshly built from the config
(as a new run builds it) and reads only the tensors of ``model.zip`` (its
``policy.pth`` and ``policy.optimizer.pth`` entries, with ``weights_only=True``) and the
step counters of ``state.json``. The zip's ``data`` entry, which SB3 would unpickle
with cloudpickle, is never read. (A run made before the safe format gets its
``best_policy`` files then, from the tensors of its ``best.zip``.)
:func:`latest_intact` picks the newest checkpoint whose files all read, warning about
each damaged one it skips.

Checkpoints are taken at rollout boundaries only (right after a PPO update), so
``num_timesteps`` is always a multiple of the rollout size and a resumed run ends on
exactly the step count of an uninterrupted one.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from grove_env.agents.learned.actor import Actor
from grove_env.agents.learned.policy_files import (
    BEST,
    BEST_POLICY,
    CHECKPOINT_PREFIX,
    CHECKPOINTS,
    POLICY,
    ModelFileError,
    checkpoints,
)
from grove_env.agents.learned.safe_policy import PolicyCard, save_policy
from grove_env.messages import describe
from grove_env.training.config import TrainConfig
from grove_env.training.run.directory import atomic_write_text

# Fields that shape the model or its data: a checkpoint only fits a run that agrees.
MODEL_FIELDS = (
    "rules",
    "num_players",
    "tables",
    "reward",
    "max_rounds",
    "num_envs",
    "n_steps",
    "net_arch",
    "activation",
    "features",
    "shared_trunk",
)
# The entries of an SB3 zip that hold tensors only; "data" (cloudpickle) is never read.
WEIGHTS, OPTIMIZER = "policy.pth", "policy.optimizer.pth"


class CheckpointError(ModelFileError):
    """A checkpoint is missing, corrupt, or does not fit the run that loads it."""


def checkpoint_name(step: int) -> str:
    return f"{CHECKPOINT_PREFIX}{step:012d}"


def policy_card(cfg: TrainConfig, step: int) -> PolicyCard:
    """The card of a policy trained with ``cfg`` (what it reads, its shape, its table)."""
    return PolicyCard(
        features=cfg.features,
        net_arch=tuple(cfg.net_arch),
        activation=cfg.activation,
        rules=tuple(dict.fromkeys(rules for rules, _ in cfg.table_list())),
        player_counts=tuple(sorted({n for _, n in cfg.table_list()})),
        step=step,
        play=cfg.play,
    )


def save(
    run_dir: Path,
    model: Any,
    pool_state: dict,
    state: dict[str, Any],
    cfg: TrainConfig,
    keep: int,
) -> Path:
    """Write a checkpoint of an SB3 ``model`` at its ``num_timesteps`` (:func:`write`)."""
    return write(
        run_dir,
        int(model.num_timesteps),
        lambda folder: model.save(folder / "model.zip"),
        Actor.of(model.policy),
        pool_state,
        {"n_updates": int(model._n_updates), **state},
        cfg,
        keep,
    )


def write(
    run_dir: Path,
    step: int,
    save_model: Callable[[Path], None],
    actor: Actor,
    pool_state: dict,
    state: dict[str, Any],
    cfg: TrainConfig,
    keep: int,
) -> Path:
    """Write the checkpoint of ``step`` atomically (``save_model`` writes the backend's
    model file into the folder it is given); prune old ones."""
    folder = run_dir / CHECKPOINTS
    folder.mkdir(exist_ok=True)
    final = folder / checkpoint_name(step)
    tmp = folder / f".tmp-{final.name}-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    save_model(tmp)
    save_policy(actor, policy_card(cfg, step), tmp / POLICY)
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


def save_best(run_dir: Path, model: Any, info: dict[str, Any], cfg: TrainConfig) -> None:
    """Replace ``best.zip``, ``best_policy.json``/``.pt`` and ``best.json`` atomically."""
    tmp = run_dir / f".best-{os.getpid()}.zip"
    model.save(tmp)
    os.replace(tmp, run_dir / BEST)
    card = policy_card(cfg, int(model.num_timesteps))
    save_policy(Actor.of(model.policy), card, run_dir / BEST_POLICY)
    atomic_write_text(run_dir / "best.json", json.dumps(info, indent=2) + "\n")


def check_fits(meta_config: dict[str, Any], cfg: TrainConfig, where: Path) -> None:
    """Raise :class:`CheckpointError` if the checkpoint's config differs where it matters."""
    now = cfg.to_dict()
    # A field newer than the checkpoint had its default then.
    saved = {k: meta_config.get(k, TrainConfig.model_fields[k].default) for k in MODEL_FIELDS}
    diff = [k for k in MODEL_FIELDS if saved[k] != now[k]]
    if diff:
        shown = ", ".join(f"{k}: checkpoint {saved[k]!r}, run {now[k]!r}" for k in diff)
        raise CheckpointError(f"checkpoint {str(where)!r} does not fit this run's config ({shown})")


def read_state(ckpt: Path) -> dict[str, Any]:
    """``state.json`` of a checkpoint folder, or :class:`CheckpointError`."""
    path = ckpt / "state.json"
    try:
        meta = json.loads(path.read_bytes().decode("utf-8"))
    except FileNotFoundError:
        raise CheckpointError(f"checkpoint {str(ckpt)!r} has no state.json") from None
    except (OSError, ValueError) as e:
        raise CheckpointError(
            f"checkpoint {str(ckpt)!r}: state.json is corrupt ({describe(e)})"
        ) from None
    if not isinstance(meta, dict) or "step" not in meta or not isinstance(meta.get("config"), dict):
        raise CheckpointError(f"checkpoint {str(ckpt)!r}: state.json lacks step/config")
    if not isinstance(meta["step"], int) or meta["step"] < 0:
        raise CheckpointError(f"checkpoint {str(ckpt)!r}: state.json has step {meta['step']!r}")
    return meta


def read_tensors(path: Path, device: str | torch.device = "cpu") -> tuple[dict, dict]:
    """The policy and optimiser state dicts of an SB3 zip, without unpickling its ``data``."""
    try:
        with zipfile.ZipFile(path) as z:
            return tuple(  # type: ignore[return-value]
                torch.load(io.BytesIO(z.read(name)), map_location=device, weights_only=True)
                for name in (WEIGHTS, OPTIMIZER)
            )
    except FileNotFoundError:
        raise CheckpointError(f"no model file at {str(path)!r}") from None
    except KeyError as e:  # a cut zip can show the directory of one it holds (policy.pth)
        raise CheckpointError(
            f"{str(path)!r} is truncated or not a MaskablePPO zip ({describe(e)})"
        ) from None
    except Exception as e:  # a damaged zip or tensor file fails in many ways
        raise CheckpointError(f"{str(path)!r} is corrupt or unreadable: {describe(e)}") from None


def read_pool(ckpt: Path) -> dict:
    """The opponent-pool state of a checkpoint (tensors and plain data only)."""
    try:
        return torch.load(ckpt / "pool.pt", map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise CheckpointError(f"checkpoint {str(ckpt)!r} has no pool.pt") from None
    except Exception as e:  # torch raises many kinds for a damaged file
        raise CheckpointError(
            f"checkpoint {str(ckpt)!r}: pool.pt is corrupt ({describe(e)})"
        ) from None


def latest_intact(run_dir: Path, read_model: Callable[[Path], Any] | None = None) -> Path | None:
    """The newest checkpoint whose files all read (warning of each one skipped), or ``None``.

    ``read_model(folder)`` reads the backend's model file (default: SB3's ``model.zip``).
    :class:`CheckpointError` if the run has checkpoints but none of them is intact.
    """
    skipped = []
    for ckpt in checkpoints(run_dir):
        try:
            read_state(ckpt)
            if read_model is None:
                read_tensors(ckpt / "model.zip")
            else:
                read_model(ckpt)
            read_pool(ckpt)
        except ModelFileError as e:
            print(f"warning: skipping damaged checkpoint {ckpt.name}: {e}", file=sys.stderr)
            skipped.append(ckpt.name)
            continue
        return ckpt
    if skipped:
        raise CheckpointError(f"{str(run_dir)!r} has no intact checkpoint (all damaged)")
    return None


def load(ckpt: Path, model: Any, cfg: TrainConfig) -> tuple[Any, dict, dict]:
    """``model`` (freshly built from ``cfg``) with the checkpoint's weights, optimiser state
    and step counters, the opponent-pool state and the trainer state."""
    meta = read_state(ckpt)
    check_fits(meta["config"], cfg, ckpt)
    weights, optimizer = read_tensors(ckpt / "model.zip", model.device)
    try:
        model.policy.load_state_dict(weights)
        model.policy.optimizer.load_state_dict(optimizer)
    except Exception as e:  # shapes or keys of another network
        raise CheckpointError(
            f"checkpoint {str(ckpt / 'model.zip')!r} does not fit this run's network: {describe(e)}"
        ) from None
    model.num_timesteps = int(meta["step"])
    model._n_updates = int(meta.get("n_updates", 0))
    try:
        upgrade_best(ckpt.parent.parent, cfg)
    except CheckpointError as e:  # resuming does not need it
        print(f"warning: {BEST} not converted to the safe format: {e}", file=sys.stderr)
    return model, read_pool(ckpt), meta


def actor_weights(policy_weights: dict[str, Any]) -> dict[str, Any]:
    """The actor's part of an SB3 policy state dict, under :class:`Actor`'s keys."""
    renamed = {"mlp_extractor.policy_net.": "body.", "action_net.": "head."}
    return {
        new + key.removeprefix(old): value
        for key, value in policy_weights.items()
        for old, new in renamed.items()
        if key.startswith(old)
    }


def upgrade_best(run_dir: Path, cfg: TrainConfig) -> bool:
    """Give a run made before the safe format its ``best_policy`` files, from the tensors
    of its ``best.zip`` (never unpickled); True if written."""
    if (run_dir / BEST_POLICY).is_file() or not (run_dir / BEST).is_file():
        return False
    weights, _ = read_tensors(run_dir / BEST)
    try:
        step = int(json.loads((run_dir / "best.json").read_text())["step"])
    except (OSError, ValueError, KeyError, TypeError):
        step = 0
    card = policy_card(cfg, step)
    actor = card.build()
    try:
        actor.load_state_dict(actor_weights(weights))
    except RuntimeError as e:
        raise CheckpointError(
            f"{str(run_dir / BEST)!r} does not fit its run: {describe(e)}"
        ) from None
    save_policy(actor, card, run_dir / BEST_POLICY)
    return True
