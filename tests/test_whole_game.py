"""Whole-game exploitability against a brute force with perfect recall across rounds."""

from __future__ import annotations

import copy
import dataclasses
import hashlib

import numpy as np
import pytest

from grove_env.analysis import whole_game
from grove_env.analysis.policies import uniform
from grove_env.analysis.round_tree import MarkerState, build_round_tree, position, replay
from grove_env.analysis.state_views import observations_at
from grove_env.analysis.whole_game import at_state, whole_game_exploitability
from grove_env.observation import ObservationEncoder
from grove_env.rules import get_rules

pytestmark = pytest.mark.slow  # perfect-recall brute force over whole games

DEALS = [(2, 3, 4, 5, 6, 7, 8), (8, 6, 4, 2, 3, 5, 7)]


def mixed(observations, masks):
    out = np.zeros(masks.shape)
    for i, (o, m) in enumerate(zip(observations, masks)):
        digest = hashlib.sha256(o.tobytes()).digest()
        w = np.array([1 + digest[a] for a in range(10)], dtype=float) * m
        out[i] = w / w.sum()
    return out


class WholeGameBruteForce:
    """Recursion over Game copies; a seat's key is everything it has observed, in order."""

    def __init__(self, rules, n, start, max_rounds, policy):
        self.rules, self.n, self.max_rounds, self.policy = get_rules(rules), n, max_rounds, policy
        self.encoder = ObservationEncoder(self.rules, n)
        self.start = start

    def roots(self, state):
        return [(position(self.rules, self.n, d, state), 1 / len(DEALS)) for d in DEALS]

    def probs(self, game):
        mask = np.array([[int(game.is_legal(a)) for a in range(10)]], dtype=np.int8)
        p = self.policy(self.encoder.encode(game, game.current_player)[None], mask)[0]
        return {a: p[a] for a in game.legal_actions()}

    def children(self, game, trail):
        """(action, probability of chance, child, child's trail) including the next deals."""
        for a in game.legal_actions():
            child = copy.deepcopy(game)
            record = child.apply_action(a)
            if record is None:
                yield a, 1.0, child, trail + (child.information_state(self.seat),)
                continue
            seen = trail + (record.suspects, record.accusations)
            if child.terminal or record.number >= self.max_rounds:
                yield a, 1.0, (child, record), seen
                continue
            state = MarkerState(
                tuple(child.coloured), tuple(child.penalty), child.first_player, child.round
            )
            for g, w in self.roots(state):
                yield a, w, g, seen + (g.information_state(self.seat),)

    def leaf(self, node):
        game, record = node
        return game.returns()[self.seat] if game.terminal else 0.0

    def best_response(self, seat):
        self.seat, self.infosets, self.choice = seat, {}, {}
        roots = [(g, w, (g.information_state(seat),)) for g, w in self.roots(self.start)]
        for g, w, trail in roots:
            self.collect(g, trail, w)
        return sum(w * self.value(g, trail) for g, w, trail in roots)

    def on_policy(self, seat):
        self.seat, self.infosets = seat, None
        roots = [(g, w, (g.information_state(seat),)) for g, w in self.roots(self.start)]
        return sum(w * self.value(g, trail) for g, w, trail in roots)

    def collect(self, game, trail, reach):
        if isinstance(game, tuple):
            return
        mine = game.current_player == self.seat
        if mine:
            self.infosets.setdefault(trail, []).append((game, reach))
        p = None if mine else self.probs(game)
        for a, w, child, seen in self.children(game, trail):
            self.collect(child, seen, reach * w * (1.0 if p is None else p[a]))

    def value(self, game, trail):
        if isinstance(game, tuple):
            return self.leaf(game)
        if self.infosets is not None and game.current_player == self.seat:
            action = self.best_action(trail)
            return sum(
                w * self.value(c, s) for a, w, c, s in self.children(game, trail) if a == action
            )
        p = self.probs(game)
        return sum(p[a] * w * self.value(c, s) for a, w, c, s in self.children(game, trail))

    def best_action(self, trail):
        if trail not in self.choice:
            q: dict = {}
            for node, reach in self.infosets[trail]:
                for a, w, c, s in self.children(node, trail):
                    q[a] = q.get(a, 0.0) + reach * w * self.value(c, s)
            self.choice[trail] = max(q, key=lambda a: q[a])
        return self.choice[trail]


@pytest.mark.parametrize("policy", [uniform, mixed], ids=["uniform", "mixed"])
def test_matches_a_perfect_recall_brute_force_over_two_rounds(policy):
    start = MarkerState(coloured=(2, 3), penalty=(3, 4), first_player=1, round=5)
    got = whole_game_exploitability("revised", 2, policy, max_rounds=6, start=start, deals=DEALS)
    brute = WholeGameBruteForce("revised", 2, start, 6, policy)
    values = [brute.on_policy(s) for s in range(2)]
    best = [brute.best_response(s) for s in range(2)]
    assert np.allclose(got.values, values, atol=1e-12)
    assert np.allclose(got.best_response_values, best, atol=1e-12)
    assert got.nash_conv >= 0


def test_rewritten_counts_are_the_encoders():
    tree = build_round_tree(
        "classic", 3, MarkerState(first_player=2), deals=[(3, 4, 5, 6, 7, 8, 0)]
    )
    counts = ((4, 2, 5), (3, 1, 0))
    moved = at_state(tree, counts, round_number=7)
    encoder = ObservationEncoder(tree.rules, 3)
    state = MarkerState(counts[0], counts[1], first_player=2, round=7)
    for t, depth in enumerate(moved.depths):
        for i in range(min(6, len(depth.observations))):
            deal, history = divmod(int(depth.representative[i]), 3**t)
            game = replay(dataclasses.replace(tree, state=state), deal, history, t)
            assert np.array_equal(encoder.encode(game, depth.seat), depth.observations[i])


def test_many_states_are_rewritten_as_each_alone():
    tree = build_round_tree(
        "classic", 3, MarkerState(first_player=1), deals=[(8, 0, 3, 4, 5, 6, 7)]
    )
    states = [
        (((4, 2, 5), (3, 1, 0)), 7),
        (((5, 5, 5), (0, 0, 0)), 1),
        (((1, 6, 2), (2, 0, 4)), 40),
    ]
    for t in range(tree.num_decisions):
        many = observations_at(tree, t, states)
        for s, (counts, r) in enumerate(states):
            assert np.array_equal(many[s], at_state(tree, counts, r).depths[t].observations)


THREE_SEATS = MarkerState(coloured=(2, 2, 3), penalty=(3, 4, 2), first_player=2, round=5)
"""Revised 3p: every seat can play two more rounds (the limit is round 6)."""


@pytest.mark.parametrize(
    ("policy", "state_rows"),
    [(uniform, 1 << 18), (mixed, 1)],
    ids=["uniform-batched", "mixed-state-by-state"],
)
def test_three_seats_match_a_perfect_recall_brute_force(policy, state_rows, monkeypatch):
    monkeypatch.setattr(whole_game, "STATE_ROWS", state_rows)
    got = whole_game_exploitability(
        "revised", 3, policy, max_rounds=6, start=THREE_SEATS, deals=DEALS
    )
    brute = WholeGameBruteForce("revised", 3, THREE_SEATS, 6, policy)
    assert got.states > 3  # the second round starts from several states
    assert np.allclose(got.values, [brute.on_policy(s) for s in range(3)], atol=1e-12)
    best = [brute.best_response(s) for s in range(3)]
    assert np.allclose(got.best_response_values, best, atol=1e-12)
    assert got.nash_conv > 0
