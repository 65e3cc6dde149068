"""The vectorised best response against a brute-force recursion over the game itself.

The brute force plays :class:`Game` copies node by node, groups a seat's nodes by
:meth:`Game.information_state` (not by the observation encoder) and scores each round
by the centred change of every seat's score count; nothing of the analysis code is used.
"""

from __future__ import annotations

import copy
import hashlib
import random

import numpy as np
import pytest

from grove_env.analysis.best_response import exploitability
from grove_env.analysis.policies import policy_of, uniform
from grove_env.analysis.round_tree import MarkerState, build_round_tree, position, replay
from grove_env.observation import ObservationEncoder
from grove_env.rules import get_rules


def skewed(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """A mixed policy that differs per observation (a hash of its bytes)."""
    out = np.zeros(masks.shape)
    for i, (o, m) in enumerate(zip(observations, masks)):
        digest = hashlib.sha256(o.tobytes()).digest()
        w = np.array([1 + digest[a] for a in range(10)], dtype=float) * m
        out[i] = w / w.sum()
    return out


class BruteForce:
    """Values by explicit recursion over :class:`Game` copies."""

    def __init__(self, rules, n, deals, weights, state, policy):
        self.n = n
        self.policy = policy
        self.encoder = ObservationEncoder(get_rules(rules), n)
        total = sum(weights)
        self.roots = [
            (position(get_rules(rules), n, d, state), w / total) for d, w in zip(deals, weights)
        ]

    def probs(self, game):
        mask = np.array([[int(game.is_legal(a)) for a in range(10)]], dtype=np.int8)
        p = self.policy(self.encoder.encode(game, game.current_player)[None], mask)[0]
        return {a: p[a] for a in game.legal_actions()}

    def payoff(self, before, game):
        delta = [s - b for s, b in zip(game.scores(), before)]
        return np.array([-(d - sum(delta) / self.n) for d in delta])

    @staticmethod
    def children(game):
        out = []
        for a in game.legal_actions():
            child = copy.deepcopy(game)
            out.append((a, child, child.apply_action(a) is not None))
        return out

    def on_policy(self, game, before):
        total = np.zeros(self.n)
        p = self.probs(game)
        for a, child, done in self.children(game):
            total += p[a] * (self.payoff(before, child) if done else self.on_policy(child, before))
        return total

    def values(self):
        return sum(w * self.on_policy(g, g.scores()) for g, w in self.roots)

    def best_response(self, seat):
        self.seat, self.infosets, self.choice = seat, {}, {}
        for g, w in self.roots:
            self.collect(g, g.scores(), w)
        return sum(w * self.value(g, g.scores()) for g, w in self.roots)

    def collect(self, game, before, reach):
        """Every node of ``self.seat``, grouped by its information state, with others' reach."""
        mine = game.current_player == self.seat
        if mine:
            key = game.information_state(self.seat)
            self.infosets.setdefault(key, []).append((game, before, reach))
        p = None if mine else self.probs(game)
        for a, child, done in self.children(game):
            if not done:
                self.collect(child, before, reach if p is None else reach * p[a])

    def value(self, game, before, done=False):
        if done:
            return self.payoff(before, game)[self.seat]
        if game.current_player == self.seat:
            action = self.best_action(game.information_state(self.seat))
            child = copy.deepcopy(game)
            return self.value(child, before, child.apply_action(action) is not None)
        p = self.probs(game)
        return sum(p[a] * self.value(c, before, d) for a, c, d in self.children(game))

    def best_action(self, key):
        if key not in self.choice:
            q: dict = {}
            for node, before, reach in self.infosets[key]:
                for a, c, d in self.children(node):
                    q[a] = q.get(a, 0.0) + reach * self.value(c, before, d)
            self.choice[key] = max(q, key=lambda a: q[a])
        return self.choice[key]


def rigged_deals(rules, n, count, seed):
    rng = random.Random(seed)
    tiles = list(get_rules(rules).tiles(n))
    deals = set()
    while len(deals) < count:
        rng.shuffle(tiles)
        deals.add(tuple(tiles))
    return sorted(deals), [rng.randint(1, 3) for _ in range(count)]


CASES = [
    ("classic", 2, MarkerState()),
    ("revised", 2, MarkerState(coloured=(6, 4), penalty=(1, 2), first_player=1, round=3)),
    ("classic", 3, MarkerState(first_player=2)),
    ("revised", 3, MarkerState()),
]


@pytest.mark.slow
@pytest.mark.parametrize("rules,n,state", CASES)
@pytest.mark.parametrize(
    "policy", [uniform, skewed, policy_of("greedy")], ids=["uniform", "skewed", "greedy"]
)
def test_matches_brute_force_on_a_rigged_deal_distribution(rules, n, state, policy):
    deals, weights = rigged_deals(rules, n, 3 if n == 2 else 2, seed=n)
    tree = build_round_tree(rules, n, state, deals=deals, weights=weights)
    got = exploitability(tree, policy)
    brute = BruteForce(rules, n, deals, weights, state, policy)
    values = brute.values()
    best = np.array([brute.best_response(seat) for seat in range(n)])
    assert np.allclose(got.values, values, atol=1e-12)
    assert np.allclose(got.best_response_values, best, atol=1e-12)
    assert got.nash_conv == pytest.approx(float(best.sum() - values.sum()), abs=1e-12)
    assert min(got.gains) >= -1e-12


@pytest.mark.parametrize("rules,n,state", CASES)
def test_information_sets_are_the_encoders_observations(rules, n, state):
    deals, weights = rigged_deals(rules, n, 4, seed=7)
    tree = build_round_tree(rules, n, state, deals=deals, weights=weights)
    encoder = ObservationEncoder(get_rules(rules), n)
    rng = np.random.default_rng(0)
    for t, depth in enumerate(tree.depths):
        for _ in range(20):
            d, h = int(rng.integers(len(deals))), int(rng.integers(3**t))
            game = replay(tree, d, h, t)
            obs = encoder.encode(game, game.current_player)
            assert game.current_player == depth.seat
            assert np.array_equal(obs, depth.observations[depth.infoset[d, h]])
        assert len({o.tobytes() for o in depth.observations}) == len(depth.observations)


def test_one_known_deal_leaves_nothing_to_exploit_beyond_the_brute_force():
    """With one deal everyone could know, seat 1 of a two-seat round dodges seat 0's stack."""
    deal = (3, 4, 5, 6, 7, 0)
    tree = build_round_tree("classic", 2, deals=[deal])
    got = exploitability(tree, uniform)
    # Classic: a seat's score changes only when it covers another's marker on an innocent
    # suspect (+1 for the coverer, -1 for the covered). Uniform seat 1 covers seat 0 with
    # probability 1/3, on an innocent slot 2/3 of the time: seat 0 gains 2/9 and seat 1
    # loses 2/9 (the centred reward is +-1). Seat 1's best response never covers: 0.
    assert got.values == pytest.approx((2 / 9, -2 / 9))
    assert got.best_response_values[1] == pytest.approx(0.0)


def test_rigged_weights_are_checked():
    with pytest.raises(ValueError, match="weights"):
        build_round_tree("classic", 2, deals=[(3, 4, 5, 6, 7, 0)], weights=[0.0])
    with pytest.raises(ValueError, match="permutation"):
        build_round_tree("classic", 2, deals=[(3, 4, 5, 6, 7, 7)])


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["classic", "revised"])
def test_every_deal_of_a_two_seat_round_replays_to_its_information_set(rules):
    tree = build_round_tree(rules, 2, MarkerState(first_player=1))
    encoder = ObservationEncoder(get_rules(rules), 2)
    rng = np.random.default_rng(1)
    for t, depth in enumerate(tree.depths):
        for d, h in zip(rng.integers(len(tree.deals), size=150), rng.integers(3**t, size=150)):
            game = replay(tree, int(d), int(h), t)
            obs = encoder.encode(game, depth.seat)
            assert np.array_equal(obs, depth.observations[depth.infoset[d, h]])
