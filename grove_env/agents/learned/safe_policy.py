"""The safe policy format: weights that load without running code, and a JSON card.

A saved policy is two files with one stem, e.g. ``best_policy.pt`` and ``best_policy.json``:

- ``.pt``: the actor's ``state_dict`` (tensors only), written with ``torch.save`` and read
  with ``torch.load(..., weights_only=True)``, torch's restricted unpickler that accepts
  only tensors and plain containers and never imports or calls anything. (safetensors
  would avoid the pickle framing altogether, but it is one more dependency for every
  player of a policy, and torch, needed anyway, is safe here from 2.6 on, which
  :func:`load_policy` insists on.)
- ``.json``: the card, everything needed to rebuild the network with torch alone
  (:func:`grove_env.agents.learned.policy_net.build_actor`), and what the policy was made for:

  ==================  ==============================================================
  field               meaning
  ==================  ==============================================================
  format              ``"grove-policy"``; ``format_version`` is 1
  observation_size    observation floats the policy reads (125)
  num_actions         actions it chooses among (10)
  features            input features: ``observation``, ``culprit_odds`` or ``advice``
  input_size          width of the network's input after the features
  net_arch            hidden layer widths, e.g. ``[128, 128]``
  activation          ``tanh`` or ``relu``
  rules               rule sets it was trained for, e.g. ``["classic"]``
  player_counts       table sizes it was trained for, e.g. ``[4]``
  step                training steps behind it
  play                how ``ppo:`` and ``zoo:`` play it unless told otherwise: ``greedy``
                      (the most likely legal action) or ``sample`` (from the policy, as
                      training does; an equilibrium-seeking policy mixes). A card
                      without it (written before it existed) plays ``greedy``
  versions            grove-env, torch and python that wrote it
  weights_sha256      checksum of the ``.pt`` file: a card and other weights never pair
  ==================  ==============================================================

Reading never trusts the files: a missing, truncated or foreign file, or weights that
do not fit the card, is a :class:`~grove_env.agents.learned.policy_files.ModelFileError` of one
line naming the problem and the path.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import os
from pathlib import Path
from typing import Any

import torch

from grove_env.actions import NUM_ACTIONS
from grove_env.messages import describe
from grove_env.observation import OBS_SIZE
from grove_env.versions import versions

from .actor import Actor
from .policy_files import ModelFileError
from .policy_net import ACTIVATIONS, FEATURE_KINDS, actor_shapes, build_actor, input_size

POLICY_PACKAGES = ("grove-env", "torch")
"""The packages whose versions a policy card records."""

FORMAT = "grove-policy"
FORMAT_VERSION = 1
PLAY_MODES = ("greedy", "sample")
OPTIONAL = {"play": "greedy"}  # fields a card may lack: what a card without one means
SAFE_TORCH = "2.6"  # torch.load(weights_only=True) could be made to run code before 2.6


@dataclasses.dataclass(frozen=True)
class PolicyCard:
    """What a policy's JSON card says (module docstring); checked when built."""

    features: str
    net_arch: tuple[int, ...]
    activation: str
    rules: tuple[str, ...]
    player_counts: tuple[int, ...]
    step: int = 0
    play: str = "greedy"
    observation_size: int = OBS_SIZE
    num_actions: int = NUM_ACTIONS

    def __post_init__(self) -> None:
        if not isinstance(self.features, str) or self.features not in FEATURE_KINDS:
            raise ValueError(f"features is one of {FEATURE_KINDS}, got {self.features!r}")
        if not isinstance(self.activation, str) or self.activation not in ACTIVATIONS:
            raise ValueError(f"activation is one of {sorted(ACTIVATIONS)}, got {self.activation!r}")
        if not self.net_arch or not all(_is_int(w) and w >= 1 for w in self.net_arch):
            raise ValueError(f"net_arch is a list of widths >= 1, got {list(self.net_arch)}")
        if not all(isinstance(r, str) for r in self.rules):
            raise ValueError(f"rules is a list of rule-set names, got {list(self.rules)}")
        if not all(_is_int(n) for n in self.player_counts):
            raise ValueError(f"player_counts is a list of ints, got {list(self.player_counts)}")
        if not _is_int(self.step) or self.step < 0:
            raise ValueError(f"step is an int >= 0, got {self.step!r}")
        if self.play not in PLAY_MODES:
            raise ValueError(f"play is one of {PLAY_MODES}, got {self.play!r}")
        if (self.observation_size, self.num_actions) != (OBS_SIZE, NUM_ACTIONS):
            raise ValueError(
                f"it reads {self.observation_size} observation floats and chooses among "
                f"{self.num_actions} actions; grove_env has {OBS_SIZE} and {NUM_ACTIONS}"
            )

    @property
    def input_size(self) -> int:
        return input_size(self.features, self.observation_size)

    def shapes(self) -> dict[str, tuple[int, ...]]:
        """The weights' tensor shapes this card calls for."""
        return actor_shapes(
            self.features, self.observation_size, list(self.net_arch), self.num_actions
        )

    def build(self) -> Actor:
        """A fresh (untrained) actor of the card's shape."""
        shape = (self.observation_size, list(self.net_arch), self.activation, self.num_actions)
        return build_actor(self.features, *shape)

    def to_json(self, weights_sha256: str) -> dict[str, Any]:
        fields = dataclasses.asdict(self)
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "observation_size": fields.pop("observation_size"),
            "num_actions": fields.pop("num_actions"),
            "features": fields.pop("features"),
            "input_size": self.input_size,
            **{k: list(v) if isinstance(v, tuple) else v for k, v in fields.items()},
            "versions": versions(POLICY_PACKAGES),
            "weights_sha256": weights_sha256,
        }

    @classmethod
    def from_json(cls, data: Any) -> PolicyCard:
        """The card of a parsed JSON document; ``ValueError`` saying what is wrong."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f'not a policy card (no "format": "{FORMAT}")')
        if data.get("format_version") != FORMAT_VERSION:
            raise ValueError(
                f"format_version {data.get('format_version')!r}; this grove-env reads "
                f"{FORMAT_VERSION} (a newer grove-env wrote it?)"
            )
        names = [f.name for f in dataclasses.fields(cls)]
        missing = [n for n in names if n not in data and n not in OPTIONAL]
        if missing:
            raise ValueError(f"the card lacks {', '.join(missing)}")
        values: dict[str, Any] = {n: data[n] if n in data else OPTIONAL[n] for n in names}
        for n in ("net_arch", "rules", "player_counts"):
            if not isinstance(values[n], list):
                raise ValueError(f"{n} is a list, got {values[n]!r}")
            values[n] = tuple(values[n])
        return cls(**values)


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def card_path(path: Path) -> Path:
    """The ``.json`` card of a policy named by its card or its ``.pt`` weights."""
    return Path(path).with_suffix(".json")


def save_policy(actor: Actor, card: PolicyCard, path: Path) -> Path:
    """Write ``path`` with suffixes ``.pt`` (weights) and ``.json`` (card); return the card path.

    Each file is written under a temporary name and renamed into place, weights first:
    a reader never sees half a file, and a card never pairs with other weights (checksum).
    """
    path = card_path(path)
    buffer = io.BytesIO()
    torch.save({k: v.detach().cpu().clone() for k, v in actor.state_dict().items()}, buffer)
    weights = buffer.getvalue()
    _replace(path.with_suffix(".pt"), weights)
    text = json.dumps(card.to_json(hashlib.sha256(weights).hexdigest()), indent=2) + "\n"
    _replace(path, text.encode())
    return path


def _replace(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _check_shapes(state: Any, card: PolicyCard) -> None:
    if not isinstance(state, dict) or not all(
        isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in state.items()
    ):
        raise ValueError("the file is not a dict of named tensors")
    found = {k: tuple(v.shape) for k, v in state.items()}
    wanted = card.shapes()
    if found != wanted:
        wrong = sorted(k for k in found.keys() | wanted.keys() if found.get(k) != wanted.get(k))
        shown = ", ".join(f"{k}: {found.get(k)} not {wanted.get(k)}" for k in wrong[:3])
        raise ValueError(f"tensor shapes differ from the card's network ({shown})")


def read_card(path: Path) -> tuple[PolicyCard, str]:
    """The card at ``path`` and the checksum it gives its weights, or ``ModelFileError``."""
    path = card_path(path)
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
        card = PolicyCard.from_json(data)
        sha = data.get("weights_sha256")
        if not isinstance(sha, str):
            raise ValueError("the card lacks weights_sha256")
    except FileNotFoundError:
        raise ModelFileError(f"no policy card at {str(path)!r}") from None
    except (OSError, ValueError, TypeError, RecursionError) as e:
        raise ModelFileError(f"policy card {str(path)!r} is unusable: {describe(e)}") from None
    return card, sha


def load_policy(path: Path) -> tuple[Actor, PolicyCard]:
    """The frozen actor and card of a saved policy (card or weights path), without pickle."""
    if torch.__version__ < SAFE_TORCH:
        raise ModelFileError(
            f"loading {str(path)!r} safely needs torch >= {SAFE_TORCH}, found {torch.__version__}"
        )
    card, sha = read_card(path)
    weights_path = card_path(path).with_suffix(".pt")
    try:
        weights = weights_path.read_bytes()
    except OSError as e:
        raise ModelFileError(f"policy weights {str(weights_path)!r}: {describe(e)}") from None
    if hashlib.sha256(weights).hexdigest() != sha:
        raise ModelFileError(
            f"policy weights {str(weights_path)!r} are not the ones its card was written for "
            "(truncated, replaced or corrupt)"
        )
    try:
        state = torch.load(io.BytesIO(weights), map_location="cpu", weights_only=True)
        _check_shapes(state, card)
        actor = card.build()  # only now: a card cannot make us allocate more than its file
        actor.load_state_dict(state, strict=True)
    except Exception as e:  # torch raises many kinds for foreign or damaged data
        raise ModelFileError(
            f"policy weights {str(weights_path)!r} do not fit its card: {describe(e)}"
        ) from None
    actor.requires_grad_(False)
    actor.eval()
    return actor, card
