"""``ppo:RUN``: a policy trained by ``train.py``, loaded without running any code from it;
``zoo:<rules>-<n>p``: the one the wheel ships for a table (:func:`make_zoo`).

``PATH`` is a safe policy (:mod:`grove_env.agents.learned.safe_policy`: its ``.json`` card or
``.pt`` weights), a checkpoint folder (its ``policy.json``), or a run directory, which
means its ``best_policy.json``, else the newest checkpoint whose policy is intact (a
warning names each damaged one skipped). A stable-baselines3 ``.zip`` is refused:
loading one unpickles it, which can run code; ``sb3:PATH`` (:mod:`grove_env.agents.learned.sb3`)
is the explicit opt-in for zips you trust.

The agent plays the most likely legal action or samples from the masked policy, as the
policy's card says (``play``: ``greedy`` unless the run trained with ``play: sample``) or
``deterministic`` overrides; ``action_probabilities`` gives that distribution, which
the analysis reads. Loaded weights are cached per file, so building the
agent once per game (as tournaments do) reads the files once. Every problem with the
path or the files is a :class:`~grove_env.agents.learned.policy_files.ModelFileError` (a
``ValueError``) of one line naming it and the path. Needs torch only.
"""

from __future__ import annotations

import functools
import warnings
from pathlib import Path

import numpy as np
import torch

from ..base import BaseAgent
from .actor import Actor
from .policy_files import (
    BEST,
    BEST_POLICY,
    POLICY,
    ZOO_POLICY,
    ModelFileError,
    checkpoints,
    parse_zoo_table,
    zoo_dir,
    zoo_shipped,
    zoo_tables,
)
from .safe_policy import PolicyCard, card_path, load_policy


def resolve(path: str | Path) -> Path:
    """The policy card a ``ppo:`` argument names (see the module docstring)."""
    p = Path(path)
    if p.is_dir():
        for card in (p / BEST_POLICY, p / POLICY):
            if card.is_file():
                return card
        for ckpt in checkpoints(p):
            card = ckpt / POLICY
            if not card.is_file():
                continue
            try:
                _cached(card)
            except ModelFileError as e:
                warnings.warn(f"ppo: skipping checkpoint {ckpt.name}: {e}", stacklevel=2)
                continue
            return card
        old = ""
        if (p / BEST).is_file():
            old = f"; it has only SB3 zips: sb3:{p / BEST} plays one, if you trust it"
        raise ModelFileError(
            f"ppo: {str(p)!r} holds no intact {BEST_POLICY} or checkpoints/*/{POLICY}{old}"
        )
    if p.suffix == ".zip":
        safe = p.with_name({BEST: BEST_POLICY, "model.zip": POLICY}.get(p.name, p.name))
        hint = f"play {str(safe)!r} instead, or" if safe.is_file() else "to load it anyway, give"
        raise ModelFileError(
            f"ppo: {str(p)!r} is a stable-baselines3 zip, which loads by unpickling and can run "
            f"code; {hint} sb3:{p} if you trust the file"
        )
    if p.suffix not in (".json", ".pt"):
        raise ModelFileError(
            f"ppo: {str(p)!r} is not a policy (give a run directory or a policy .json/.pt "
            "saved by train.py)"
        )
    if not card_path(p).is_file() and not p.exists():
        raise ModelFileError(f"ppo: no policy at {str(p)!r}")
    return card_path(p)


@functools.lru_cache(maxsize=8)
def _load(path: str, stamp: tuple[int, ...]) -> tuple[Actor, PolicyCard]:
    return load_policy(Path(path))


def _cached(card: Path) -> tuple[Actor, PolicyCard]:
    """The actor and card of a policy; re-read when either file changed."""
    card = card.resolve()
    stamp: tuple[int, ...] = ()
    for f in (card, card.with_suffix(".pt")):
        try:
            st = f.stat()
            stamp += (st.st_mtime_ns, st.st_size)
        except OSError:
            stamp += (-1, -1)
    return _load(str(card), stamp)


def load_actor(path: str | Path) -> tuple[Actor, PolicyCard]:
    """The (cached, frozen) actor and card of the policy ``path`` names."""
    card = resolve(path)
    try:
        return _cached(card)
    except ModelFileError as e:
        raise ModelFileError(f"ppo: {e}") from None


class PPOAgent(BaseAgent):
    """Plays a trained policy; ``act`` and ``act_batch`` honour the action mask."""

    name = "ppo"

    def __init__(
        self,
        actor: Actor,
        deterministic: bool = True,
        seed: int | None = None,
        path: str = "",
        card: PolicyCard | None = None,
    ) -> None:
        self.actor = actor
        self.deterministic = deterministic
        self.path = path
        self.card = card
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
            raise ValueError(f"{self.name} agent asked to act with an all-zero action mask")
        obs = np.asarray(observation["observation"], dtype=np.float32)[None]
        return int(self.actor.act(obs, mask[None], self.deterministic, self.generator)[0])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(masks, dtype=bool)
        if not masks.any(axis=1).all():
            raise ValueError(
                f"{self.name} agent asked to act on a row with an all-zero action mask"
            )
        return self.actor.act(observations, masks, self.deterministic, self.generator)

    def action_probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``float64[K, 10]``: the distribution :meth:`act_batch` draws from (a one-hot on
        its choice when deterministic), through the same input features as play."""
        masks = np.asarray(masks, dtype=bool)
        if not self.deterministic:
            return self.actor.probabilities(observations, masks)
        probs = np.zeros(masks.shape)
        probs[np.arange(len(masks)), self.act_batch(observations, masks)] = 1.0
        return probs


def plays_greedy(card: PolicyCard, deterministic: bool | None) -> bool:
    """Whether a policy plays its most likely legal move: as asked, else as its card's
    ``play`` says."""
    return card.play == "greedy" if deterministic is None else deterministic


def make(
    arg: str | None = None, seed: int | None = None, deterministic: bool | None = None
) -> PPOAgent:
    """Registry factory for ``ppo:RUN``."""
    if not arg:
        raise ModelFileError(
            "the ppo agent needs a path: ppo:runs/<run> or ppo:.../best_policy.json"
        )
    actor, card = load_actor(arg)
    greedy = plays_greedy(card, deterministic)
    return PPOAgent(actor, deterministic=greedy, seed=seed, path=arg, card=card)


def make_zoo(
    arg: str | None = None, seed: int | None = None, deterministic: bool | None = None
) -> PPOAgent:
    """Registry factory for ``zoo:<rules>-<n>p``: the policy the wheel ships for a table
    (:mod:`~grove_env.agents.learned.policy_files`), played as ``ppo:`` plays."""
    if not arg:
        raise ModelFileError(
            f"the zoo agent needs a table, e.g. zoo:revised-2p; tables: {', '.join(zoo_tables())}"
        )
    rules, n = parse_zoo_table(arg)
    path = zoo_dir(arg) / ZOO_POLICY
    if not path.is_file():
        raise ModelFileError(
            f"zoo: no policy ships for {arg.strip()} (shipped: {', '.join(zoo_shipped()) or 'none'}"
            "); scripts/zoo.py (make zoo) trains them"
        )
    actor, card = load_actor(path)
    if rules not in card.rules or n not in card.player_counts:
        raise ModelFileError(
            f"zoo: the policy at {str(path)!r} was trained for {list(card.rules)} with "
            f"{list(card.player_counts)} players, not {arg.strip()}"
        )
    greedy = plays_greedy(card, deterministic)
    agent = PPOAgent(actor, deterministic=greedy, seed=seed, path=str(path), card=card)
    agent.name = "zoo"
    return agent
