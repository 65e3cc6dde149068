"""One round of In a Grove as arrays: every deal x every action history.

Every decision of a round has exactly three legal actions (look: the slot left unseen;
swap: keep or one of the two seen slots; accuse: a slot), so a history of ``t``
decisions is a base-3 number ``p`` (the first decision is the most significant digit;
a child is ``3 * p + branch``), and branch ``b`` is the ``b``-th of the sorted
:meth:`~grove_env.core.Game.legal_actions`. A depth-``t`` array has the shape
``(deals, 3 ** t)``.

Information sets are the acting seat's observations, made by the project's encoder
(:class:`~grove_env.observation.ObservationEncoder`): the tiles a seat may know are
gathered per (deal, history) in NumPy, and one representative position per distinct
view is replayed through :class:`~grove_env.core.Game` and encoded; views with equal
observation bytes share an id. The culprit comes from :func:`grove_env.core.culprit_slot`
per distinct suspect triple, and the payoff of each (culprit slot, accusations) from the
environment's own ``markers`` reward, played through ``grove_v1``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from grove_env.actions import NUM_ACTIONS, Phase
from grove_env.core import Game, culprit_slot
from grove_env.grove_v1 import raw_env
from grove_env.observation import OBS_SIZE, ObservationEncoder
from grove_env.rules import RuleSet, get_rules

UNKNOWN = 9
"""Tile code for "not known" in a view (tiles are 0..8)."""


@dataclass(frozen=True)
class MarkerState:
    """The public state a round starts from: marker counts per seat, first player, round.

    Empty ``coloured``/``penalty`` mean the start of a game.
    """

    coloured: tuple[int, ...] = ()
    penalty: tuple[int, ...] = ()
    first_player: int = 0
    round: int = 1

    def counts(self, rules: RuleSet, num_players: int) -> tuple[list[int], list[int]]:
        coloured = list(self.coloured) or [rules.markers_per_player] * num_players
        penalty = list(self.penalty) or [0] * num_players
        if len(coloured) != num_players or len(penalty) != num_players:
            raise ValueError(f"a marker state lists {num_players} coloured and penalty counts")
        if min(coloured) < 1:
            raise ValueError(f"every seat needs a coloured marker to place, got {coloured}")
        if not 0 <= self.first_player < num_players:
            raise ValueError(f"first_player must be in 0..{num_players - 1}")
        return coloured, penalty


def position(rules: RuleSet, num_players: int, deal: Sequence[int], state: MarkerState) -> Game:
    """A :class:`Game` at the start of a round with ``deal``, from the marker ``state``."""
    game = Game(rules, num_players, deals=[deal])
    game.coloured, game.penalty = state.counts(rules, num_players)
    game.first_player = game.current_player = state.first_player
    game.round = state.round
    return game


def all_deals(rules: RuleSet, num_players: int) -> tuple[np.ndarray, np.ndarray]:
    """Every distinct deal (``int8[D, tiles]``) and its probability under a shuffle."""
    tiles = np.array(rules.tiles(num_players), dtype=np.int8)
    perms = np.array(list(itertools.permutations(range(len(tiles)))), dtype=np.int8)
    deals, counts = np.unique(tiles[perms], axis=0, return_counts=True)
    return deals, counts / counts.sum()


def markers_reward_table(rules: RuleSet, num_players: int) -> np.ndarray:
    """``float64[3, 3**n, n]``: each seat's ``markers`` reward by culprit slot and accusations.

    Accusations are a base-3 number, the first player's slot most significant; seats are
    relative to the first player. Played through the environment (first player seat 0).
    """
    deals, _ = all_deals(rules, num_players)
    n = num_players
    env = raw_env(num_players=n, rules=rules, reward="markers")
    table = np.zeros((3, 3**n, n))
    for c in range(3):
        deal = next(d for d in deals if culprit_slot(d[n : n + 3].tolist()) == c)
        for acc, slots in enumerate(itertools.product(range(3), repeat=n)):
            env.reset(options={"deal": deal.tolist()})
            env.step(0)  # leave slot 0 unseen
            if rules.victim_swap:
                env.step(3)  # keep
            for slot in slots:
                env.step(7 + slot)
            table[c, acc] = [env.rewards[a] for a in env.possible_agents]
    return table


@dataclass
class Depth:
    """The decisions ``t`` steps into the round: who acts, and the information sets."""

    seat: int
    """Absolute seat acting at this depth."""
    infoset: np.ndarray
    """``int32[deals, 3**t]``: information-set id of the acting seat."""
    observations: np.ndarray
    """``float32[infosets, 125]``: the acting seat's observation per information set."""
    masks: np.ndarray
    """``int8[infosets, 10]``: its action mask."""
    representative: np.ndarray
    """``int64[infosets]``: one flat ``deal * 3**t + history`` index per information set."""


@dataclass
class RoundTree:
    """One round from a public marker state, over a distribution of deals."""

    rules: RuleSet
    num_players: int
    state: MarkerState
    deals: np.ndarray
    chance: np.ndarray
    depths: list[Depth] = field(default_factory=list)
    culprit: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """``int8[deals, 3**first_decisions]``: culprit slot after the look (and swap)."""
    payoff: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """``float64[3, 3**n, n]``: markers reward by culprit, accusations, absolute seat."""

    @property
    def first_decisions(self) -> int:
        """Decisions of the first player before accusing: look (and swap)."""
        return 2 if self.rules.victim_swap else 1

    @property
    def num_decisions(self) -> int:
        return self.first_decisions + self.num_players

    def leaf_payoff(self, seat: int) -> np.ndarray:
        """``float64[deals, 3**num_decisions]``: ``seat``'s reward at each terminal history."""
        u = self.payoff[:, :, seat][self.culprit.astype(np.intp)]
        return u.reshape(len(self.deals), -1)


def build_round_tree(
    rules: str | RuleSet,
    num_players: int,
    state: MarkerState | None = None,
    deals: Sequence[Sequence[int]] | None = None,
    weights: Sequence[float] | None = None,
) -> RoundTree:
    """The round's arrays; ``deals``/``weights`` rig the deal distribution (default: shuffle)."""
    rules = get_rules(rules)
    n = rules.check_players(num_players)
    state = state or MarkerState()
    state.counts(rules, n)
    if deals is None:
        deal_array, chance = all_deals(rules, n)
    else:
        probe = Game(rules, n)
        deal_array = np.array([probe.check_deal(d) for d in deals], dtype=np.int8)
        w = np.ones(len(deal_array)) if weights is None else np.asarray(weights, dtype=float)
        if w.shape != (len(deal_array),) or (w < 0).any() or w.sum() <= 0:
            raise ValueError("weights must be one non-negative number per deal, not all zero")
        chance = w / w.sum()
    tree = RoundTree(rules, n, state, deal_array, chance)
    tree.culprit = _culprits(tree)
    payoff = markers_reward_table(rules, n)
    rel = [(s - state.first_player) % n for s in range(n)]
    tree.payoff = payoff[:, :, rel]
    encoder = ObservationEncoder(rules, n)
    for t in range(tree.num_decisions):
        tree.depths.append(_depth(tree, t, encoder))
    return tree


def _after_swap(tree: RoundTree) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per look/swap history: suspects now and known victim (per deal), unseen and tampered.

    The swap branches follow :meth:`Game.legal_actions`: keep, then the seen slots in order.
    """
    n, deals = tree.num_players, tree.deals
    orig = deals[:, n : n + 3]
    looks = np.arange(3)
    if not tree.rules.victim_swap:
        now = np.repeat(orig[:, None, :], 3, axis=1)
        return now, np.full(now.shape[:2], UNKNOWN, np.int8), looks, np.full(3, -1)
    now = np.repeat(orig[:, None, :], 9, axis=1)
    known = np.full(now.shape[:2], UNKNOWN, np.int8)
    tampered = np.full(9, -1)
    for look in range(3):
        for b, slot in enumerate([s for s in range(3) if s != look], start=1):
            h = 3 * look + b
            now[:, h, slot] = deals[:, n + 3]
            known[:, h] = orig[:, slot]
            tampered[h] = slot
    return now, known, np.repeat(looks, 3), tampered


def _culprits(tree: RoundTree) -> np.ndarray:
    now = _after_swap(tree)[0]
    triples, inverse = np.unique(now.reshape(-1, 3), axis=0, return_inverse=True)
    slot = np.array([culprit_slot(t.tolist()) for t in triples], dtype=np.int8)
    return slot[inverse.ravel()].reshape(now.shape[:2])


def _view(tree: RoundTree, t: int) -> tuple[int, np.ndarray]:
    """The acting seat and its tile view ``int8[deals, 3**t, 7]`` at depth ``t``.

    A view is the seat's two peeked tiles, the spare, what it saw in slots 0-2 and the
    victim it knows (``UNKNOWN`` where it knows nothing).
    """
    n, deals, f = tree.num_players, tree.deals, tree.state.first_player
    first = tree.first_decisions
    k = max(0, t - first)  # accusation number (0 = the first player's)
    seat = (f + k) % n
    size = 3**t
    view = np.full((len(deals), size, 7), UNKNOWN, np.int8)
    view[:, :, 0] = deals[:, seat, None]
    view[:, :, 1] = deals[:, (seat + 1) % n, None]
    if tree.rules.has_spare(n):
        view[:, :, 2] = deals[:, n + 4, None]
    if t == 0:
        return seat, view
    now, known, looks, tampered = _after_swap(tree)
    h = np.arange(size)
    if t < first:  # the swap decision: the two slots the look (the history) left seen
        seen = np.arange(3)[None, :] != h[:, None]
        view[:, :, 3:6] = np.where(seen[None], deals[:, None, n : n + 3], UNKNOWN)
        return seat, view
    prefix = h // 3 ** (t - first)
    if k == 0:  # the first player: seen slots minus a swapped one, and the victim it knows
        slots = np.arange(3)[None, :]
        seen = (slots != looks[prefix][:, None]) & (slots != tampered[prefix][:, None])
        view[:, :, 3:6] = np.where(seen[None], now[:, prefix], UNKNOWN)
        view[:, :, 6] = known[:, prefix]
        return seat, view
    accused = h % 3  # the preceding seat's accusation: this seat sees the other two
    seen = np.arange(3)[None, :] != accused[:, None]
    view[:, :, 3:6] = np.where(seen[None], now[:, prefix], UNKNOWN)
    return seat, view


def _depth(tree: RoundTree, t: int, encoder: ObservationEncoder) -> Depth:
    seat, view = _view(tree, t)
    size = 3**t
    key = np.zeros(view.shape[:2], np.int64)
    for j in range(view.shape[2]):
        key = key * 10 + view[:, :, j]
    key = key * size + np.arange(size)[None, :]
    _, first_at, inverse = np.unique(key.ravel(), return_index=True, return_inverse=True)
    obs = np.zeros((len(first_at), OBS_SIZE), np.float32)
    masks = np.zeros((len(first_at), NUM_ACTIONS), np.int8)
    for i, flat in enumerate(first_at):
        game = replay(tree, int(flat) // size, int(flat) % size, t)
        assert game.current_player == seat and game.phase is not Phase.OVER
        encoder.encode(game, seat, obs[i])
        masks[i, game.legal_actions()] = 1
    # Views the encoder cannot tell apart are one information set.
    _, merged_first, merged = np.unique(
        np.concatenate([obs.view(np.uint8), masks.view(np.uint8)], axis=1),
        axis=0,
        return_index=True,
        return_inverse=True,
    )
    merged = merged.ravel()
    infoset = merged[inverse.ravel()].astype(np.int32).reshape(len(tree.deals), size)
    return Depth(
        seat=seat,
        infoset=infoset,
        observations=obs[merged_first],
        masks=masks[merged_first],
        representative=first_at[merged_first].astype(np.int64),
    )


def replay(tree: RoundTree, deal: int, history: int, t: int) -> Game:
    """The game after the first ``t`` decisions ``history`` (base 3) with deal ``deal``."""
    game = position(tree.rules, tree.num_players, tree.deals[deal].tolist(), tree.state)
    for j in range(t - 1, -1, -1):
        branch = (history // 3**j) % 3
        game.apply_action(game.legal_actions()[branch])
    return game
