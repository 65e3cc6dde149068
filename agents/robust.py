"""``robust``: a one-round look-ahead that is not fooled by the other seats' style.

The value of an accusation is the old heuristic's (``heuristic``,
:mod:`grove_env.agents.heuristic`): over every way the round can end, each seat's
score change is scored by ``tanh(x / (spread * sqrt(rounds left)))`` against each other
seat ``x`` markers behind, or ``sign(x)`` where the ending ends the game. What changed is
the model of the other seats: instead of trusting that earlier accusers point at the
likely culprit, the agent keeps a mixture over styles of table
(:mod:`grove_env.agents.style_mixture`) weighed by how well each explains this round's
accusations. ``trust`` says how far the mixture may also sharpen the culprit posterior
(0: the exact posterior from the agent's own knowledge; 1: full Bayes over style and
culprit).

**Batched.** :meth:`RobustAgent.act_batch` decides ``K`` observations with NumPy:
the culprit posterior enumerates the 512 tile triples for all rows at once, and the
style mixture, later accusations and resolutions are rows of tables built once per
table kind and gathered by each observation's accusation history. Loops run over
table kinds, slots and styles, never over observations; :meth:`act` is one row.

**Look**: slot 0 unseen (the slots are exchangeable). **Swap** (classic first
player): keep and each legal swap are valued as the best accusation afterwards, and
a swap is played when it beats keeping by ``swap_margin``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from grove_env.actions import ACCUSE_0, KEEP, LEAVE_0, SWAP_0, Phase
from grove_env.observation import (
    OBS_SIZE,
    OFF_ACCUSATIONS,
    OFF_COLOURED,
    OFF_DEALT,
    OFF_PENALTY,
    OFF_PHASE,
    OFF_PLAYERS,
    OFF_RULES,
    OFF_SEEN,
    OFF_TAMPERED,
    OFF_TILES_IN_PLAY,
    OFF_UNSEEN,
    OFF_VICTIM,
)
from grove_env.resolution import CULPRIT_TABLE

from .base import BaseAgent, parse_options
from .style_mixture import STYLES, MixtureTables, mixture_tables

OFF_KNOWN = OFF_DEALT  # dealt, received, spare: tiles whose place the seat knows (3 x 8)

MEMORY = 1 << 16
"""How many single-observation decisions :meth:`RobustAgent.act` remembers."""

PLAUSIBLE = 0.2
"""A style counts for the worst case while its weight is at least this share of the top one."""

_CULPRIT_ONE_HOT = np.eye(3)[np.maximum(CULPRIT_TABLE.reshape(-1), 0)]  # [512, 3]
_CULPRIT_ONE_HOT[CULPRIT_TABLE.reshape(-1) < 0] = 0.0


@dataclass(frozen=True)
class RobustParams:
    """Tunable parts of the robust heuristic (defaults chosen with the gauntlet)."""

    trust: float = 1.0
    """How far the style mixture sharpens the culprit posterior (0: not at all)."""

    noise: float = 0.1
    """Probability that a modelled seat of any style accuses uniformly at random."""

    spread: float = 1.0
    """Score difference counted as decisive with one round left (see the module doc)."""

    swap_margin: float = 0.01
    """A swap must beat keeping by this much expected value to be played."""

    caution: float = 0.0
    """Weight of the worst case over the plausible styles (those at least
    :data:`PLAUSIBLE` times as likely as the likeliest) against the mixture's value."""

    def __post_init__(self) -> None:
        for f in ("trust", "noise", "caution"):
            v = getattr(self, f)
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"RobustParams.{f} must be in [0, 1], got {v}")
        if self.spread <= 0:
            raise ValueError(f"RobustParams.spread must be > 0, got {self.spread}")


def culprit_posteriors(obs: np.ndarray) -> np.ndarray:
    """``float[K, 3]``: each row's exact culprit posterior from its own knowledge.

    The unknown slots are draws without replacement from the pool (the tiles in play
    less every tile whose place the seat knows): one unknown slot is ``pool / N``; two
    are ``(pool x pool - diag(pool)) / (N (N - 1))``. The joint law of the 512 tile
    triples is built for all rows at once and summed per culprit slot.
    """
    k = obs.shape[0]
    in_play = np.rint(obs[:, OFF_TILES_IN_PLAY : OFF_TILES_IN_PLAY + 8] * 2.0)
    seen = obs[:, OFF_SEEN : OFF_SEEN + 24].reshape(k, 3, 8)
    known = obs[:, OFF_KNOWN : OFF_KNOWN + 24].reshape(k, 3, 8).sum(axis=1)
    pool = in_play - known - seen.sum(axis=1) - obs[:, OFF_VICTIM : OFF_VICTIM + 8]
    size = np.maximum(pool.sum(axis=1), 2.0)[:, None]
    unknown = seen.sum(axis=2) == 0  # [K, 3]
    slot = np.where(unknown[:, :, None], (pool / size)[:, None, :], seen)  # [K, 3, 8]
    joint = np.einsum("ka,kb,kc->kabc", slot[:, 0], slot[:, 1], slot[:, 2])
    # Two unknown slots share the pool: rescale the outer product, less its diagonal.
    pairs = unknown.sum(axis=1) == 2
    if pairs.any():
        rows = np.flatnonzero(pairs)
        n = size[rows]
        twin = (pool[rows] / (n * (n - 1.0)))[:, :, None] * np.eye(8)  # [R, 8, 8]
        fix = joint[rows] * (n / (n - 1.0))[:, :, None, None]
        u = unknown[rows]
        for r, s_, other in ((0, 1, 2), (0, 2, 1), (1, 2, 0)):
            both = (u[:, r] & u[:, s_]).astype(float)[:, None, None, None]
            term = np.einsum("kab,kc->kabc", twin, slot[rows, other])
            fix -= both * np.moveaxis(term, 3, other + 1)
        joint[rows] = fix
    q = joint.reshape(k, 512) @ _CULPRIT_ONE_HOT
    return q / np.maximum(q.sum(axis=1, keepdims=True), 1e-12)


def _one_hot_index(block: np.ndarray, default: int) -> np.ndarray:
    """Index of the set entry per row (``default`` where none is set)."""
    return np.where(block.any(axis=1), block.argmax(axis=1), default)


class RobustAgent(BaseAgent):
    """Accuses the slot with the best value under the style mixture (module doc)."""

    name = "robust"

    def __init__(self, params: RobustParams | None = None) -> None:
        self.params = params or RobustParams()
        self._decided: dict[bytes, int] = {}

    def act(self, observation: dict[str, np.ndarray]) -> int:
        """One row of :meth:`act_batch`; decisions are remembered by observation, since
        the agent is deterministic and a tournament meets the same positions often."""
        obs = np.asarray(observation["observation"], dtype=np.float64).reshape(1, OBS_SIZE)
        mask = np.asarray(observation["action_mask"]).reshape(1, -1)
        key = obs.tobytes() + mask.astype(np.int8).tobytes()
        action = self._decided.get(key)
        if action is None:
            action = int(self.act_batch(obs, mask)[0])
            if len(self._decided) >= MEMORY:
                self._decided.clear()
            self._decided[key] = action
        return action

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Actions for ``observations[K, 125]`` with ``masks[K, 10]``, as ``int64[K]``."""
        obs = np.asarray(observations, dtype=np.float64)
        masks = np.asarray(masks) != 0
        if not masks.any(axis=1).all():
            raise ValueError("robust agent asked to act with an all-zero action mask")
        phase = obs[:, OFF_PHASE : OFF_PHASE + 4].argmax(axis=1)
        actions = np.full(len(obs), LEAVE_0, dtype=np.int64)
        accuse = phase == int(Phase.ACCUSE)
        if accuse.any():
            values, q = self.accusation_values(obs[accuse])
            actions[accuse] = ACCUSE_0 + best_slot(values, q, masks[accuse, ACCUSE_0:])
        swap = phase == int(Phase.SWAP)
        if swap.any():
            actions[swap] = self.swap_choice(obs[swap], masks[swap])
        legal = masks[np.arange(len(obs)), actions]
        return np.where(legal, actions, masks.argmax(axis=1)).astype(np.int64)

    # ------------------------------------------------------------------ accuse
    def accusation_values(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(float[K, 3] value per accused slot, float[K, 3] culprit posterior)``."""
        q = culprit_posteriors(obs)
        values = np.zeros((len(obs), 3))
        rules = obs[:, OFF_PLAYERS : OFF_PLAYERS + 4].argmax(axis=1) * 4 + (
            obs[:, OFF_RULES + 1] * 2 + obs[:, OFF_RULES + 2]
        ).astype(int)
        for kind in np.unique(rules):  # a loop over table kinds (at most seven)
            rows = rules == kind
            values[rows] = self._values_of_kind(obs[rows], q[rows], int(kind))
        return values, q

    def _values_of_kind(self, obs: np.ndarray, q: np.ndarray, kind: int) -> np.ndarray:
        p = self.params
        n, flags = kind // 4 + 2, kind % 4
        removed, penalty_scoring = bool(flags // 2), bool(flags % 2)
        tables = mixture_tables(n, not removed, penalty_scoring, p.noise)
        history, ut = _history_codes(obs, n)
        # Style posterior: prior uniform, times the history's likelihood per culprit.
        joint = q[:, None, :] * tables.likelihood[history, ut]  # [K, T, 3]
        joint /= np.maximum(joint.sum(axis=(1, 2), keepdims=True), 1e-300)
        styles = joint.sum(axis=2, keepdims=True)
        belief = p.trust * joint + (1.0 - p.trust) * styles * q[:, None, :]
        weight = belief.sum(axis=2)  # [K, T]
        per_style = belief / np.maximum(weight[:, :, None], 1e-300)
        ending = self._ending_values(obs, n, tables, history)  # [K, 3, 3, S]
        value = np.einsum("kty,ktycs,kcys->ktc", per_style, tables.later[history], ending)
        mixture = np.einsum("kt,ktc->kc", weight, value)
        if p.caution <= 0.0:
            return mixture
        # Worst case over the styles that still explain the accusations reasonably.
        plausible = weight >= PLAUSIBLE * weight.max(axis=1, keepdims=True)
        worst = np.where(plausible[:, :, None], value, np.inf).min(axis=1)
        return (1.0 - p.caution) * mixture + p.caution * worst

    def _ending_values(
        self, obs: np.ndarray, n: int, tables: MixtureTables, history: np.ndarray
    ) -> np.ndarray:
        """``float[K, 3 own slot, 3 culprit, S]``: the value of every way the round ends.

        Each distinct change of markers is scored once per distinct standing (rows of
        a batch often share their marker counts: a round's decisions do) and gathered
        into place by the tables' ``ending`` index.
        """
        counts = np.rint(obs[:, OFF_COLOURED : OFF_PENALTY + 5] * 10.0)
        standings, which = np.unique(counts, axis=0, return_inverse=True)
        which = which.reshape(-1)
        col0, pen0 = standings[:, :n], standings[:, 5 : 5 + n]
        penalty_scoring = bool(obs[0, OFF_RULES + 2])
        first = np.zeros(len(standings), dtype=np.int64)
        first[which] = np.arange(len(obs))
        ends = obs[first]
        dc, dp = tables.coloured[None], tables.penalty[None]  # [1, U, n]
        score0 = pen0 if penalty_scoring else col0 + pen0
        ds = dp if penalty_scoring else dc + dp
        behind = (score0[:, 1:] - score0[:, :1])[:, None, :] + (ds[..., 1:] - ds[..., :1])
        scale = self.params.spread * np.sqrt(np.maximum(col0.min(axis=1) - 1.0, 1.0))
        pairwise = np.tanh(behind / scale[:, None, None])
        col, pen = col0[:, None, :] + dc, pen0[:, None, :] + dp
        end_markers = np.rint(ends[:, OFF_RULES + 4] * 10.0)[:, None, None]
        end_penalty = np.rint(ends[:, OFF_RULES + 5] * 10.0)[:, None, None]
        ended = (col <= 0) | ((end_markers > 0) & (col + pen >= end_markers))
        ended |= (end_penalty > 0) & (pen >= end_penalty)
        ended = ended.any(axis=2, keepdims=True)
        value = np.where(ended, np.sign(behind), pairwise).mean(axis=2)  # [standings, U]
        index = tables.ending[history]
        flat = value[which[:, None], index.reshape(len(obs), -1)]
        return np.asarray(flat.reshape(index.shape))

    # ------------------------------------------------------------------ swap
    def swap_choice(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Per row: keep, or the swap whose best accusation afterwards is worth most."""
        k = len(obs)
        variants = np.repeat(obs[None], 4, axis=0)  # keep, swap 0, swap 1, swap 2
        variants[:, :, OFF_PHASE : OFF_PHASE + 4] = np.eye(4)[int(Phase.ACCUSE)]
        for s in range(3):
            seen = obs[:, OFF_SEEN + 8 * s : OFF_SEEN + 8 * s + 8]
            variants[s + 1, :, OFF_VICTIM : OFF_VICTIM + 8] = seen
            variants[s + 1, :, OFF_SEEN + 8 * s : OFF_SEEN + 8 * s + 8] = 0.0
            variants[s + 1, :, OFF_TAMPERED : OFF_TAMPERED + 3] = np.eye(3)[s]
        values, _ = self.accusation_values(variants.reshape(4 * k, OBS_SIZE))
        best = values.max(axis=1).reshape(4, k)
        can = masks[:, SWAP_0 : SWAP_0 + 3] & obs[:, OFF_SEEN : OFF_SEEN + 24].reshape(k, 3, 8).any(
            axis=2
        )
        swaps = np.where(can.T, best[1:], -np.inf)  # [3, K]
        choice = swaps.argmax(axis=0)
        play = swaps.max(axis=0) > best[0] + self.params.swap_margin
        return np.where(play, SWAP_0 + choice, KEEP)


def _history_codes(obs: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the code of this round's accusation history and the first player's
    ``unseen * 4 + tampered + 1`` (see :class:`~.style_mixture.MixtureTables`)."""
    acc = obs[:, OFF_ACCUSATIONS : OFF_ACCUSATIONS + 15].reshape(-1, 5, 3)
    made = np.asarray(acc.any(axis=2))[:, :n]
    count = made.sum(axis=1)
    slots = acc.argmax(axis=2)[:, :n]
    value = np.zeros(len(obs), dtype=np.int64)
    for i in range(n):  # a loop over positions in the round
        value = np.where(made[:, i], value * 3 + slots[:, i], value)
    history = (3**count - 1) // 2 + value
    unseen = _one_hot_index(obs[:, OFF_UNSEEN : OFF_UNSEEN + 3], 0)
    tampered = _one_hot_index(obs[:, OFF_TAMPERED : OFF_TAMPERED + 3], -1)
    return history, unseen * 4 + tampered + 1


def best_slot(values: np.ndarray, q: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Per row: the legal slot of highest value, ties to the likelier culprit, then the
    lowest slot (all three slots when none is legal)."""
    legal = legal[:, :3] & True
    legal = np.where(legal.any(axis=1, keepdims=True), legal, True)
    v = np.where(legal, np.round(values, 9), -np.inf)
    top = v == v.max(axis=1, keepdims=True)
    qq = np.where(top, q, -np.inf)
    return (qq == qq.max(axis=1, keepdims=True)).argmax(axis=1)


def parse_params(arg: str | None) -> RobustParams:
    """``"trust=0.5,noise=0.3"`` -> :class:`RobustParams` (``None``: the defaults)."""
    return parse_options(arg, RobustParams, "robust")


def make(arg: str | None = None, seed: int | None = None) -> RobustAgent:
    """Registry factory: ``robust`` or ``robust:trust=0.5,noise=0.2``; deterministic."""
    return RobustAgent(parse_params(arg))


__all__ = ["STYLES", "RobustAgent", "RobustParams", "best_slot", "culprit_posteriors", "make"]
