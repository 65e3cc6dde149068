"""Properties over random games: hypothesis picks the table, the seed and the style of play.

Checked at every step of every game, for every rule set and player count: the agent to
act has a move and nobody else has one, markers are conserved, rewards sum to zero and
are what the reward mode pays (``markers``: minus the centred change of each seat's
score at each round's end; ``outcome``: (seats worse - seats better) / (n - 1) at the
end; nothing mid-round), observations lie in the observation space and decode to exactly
what the game says the seat knows, and the game ends or is truncated within
``max_rounds``.

The soak: the ``soak`` hypothesis profile (``tests/conftest.py``) raises every test here
to at least 100,000 examples, so one command plays 100,000 random games through the env
and checks all of the above at every step::

    HYPOTHESIS_PROFILE=soak python -m pytest tests/game/test_properties.py -k every_invariant
"""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from positions import TABLES
from profiles import examples

from grove_env import Game, culprit_slot, decode, grove_v1
from grove_env.actions import ACCUSE_0, Phase

STYLES = ["uniform", "culprit", "innocent", "slot 0", "pile on"]


def choose(game: Game, legal: list[int], style: str, rng: random.Random) -> int:
    """A move in one of a few styles, so that every kind of ending gets played."""
    if game.phase is not Phase.ACCUSE or style == "uniform" or rng.random() < 0.2:
        return rng.choice(legal)
    guilty = culprit_slot(game.suspects)
    if style == "culprit":
        return ACCUSE_0 + guilty
    if style == "innocent":
        return ACCUSE_0 + rng.choice([s for s in range(3) if s != guilty])
    if style == "pile on" and game.accusations:
        return ACCUSE_0 + game.accusations[-1][1]
    return ACCUSE_0


def scores(game: Game) -> list[int]:
    """Each seat's score (fewer is better): coloured plus penalty markers, or the
    penalty alone under the revised rules."""
    if game.rules.name == "classic":
        return [c + p for c, p in zip(game.coloured, game.penalty)]
    return list(game.penalty)


def on_table(game: Game) -> int:
    return sum(len(s) for s in game.stacks)


def assert_decodes_to_the_game(game: Game, seat: int, obs: np.ndarray) -> None:
    n = game.num_players
    d = decode(obs)
    assert d.num_players == n
    assert d.tiles_in_play == game.rules.tiles(n)
    assert d.my_tiles == game.known_tiles(seat)
    assert d.spare == game.spare
    assert d.seen == tuple(game.seen[seat])
    assert d.victim == game.victim_for(seat)
    assert (d.unseen_slot, d.tampered_slot) == (game.unseen_slot, game.tampered_slot)
    assert d.first_player == (game.first_player - seat) % n
    assert d.to_act == (None if game.terminal else (game.current_player - seat) % n)
    assert d.phase is game.phase
    assert d.accusations == tuple(((s - seat) % n, k) for s, k in game.accusations)
    assert d.coloured == tuple(game.coloured[(seat + r) % n] for r in range(n))
    assert d.penalty == tuple(game.penalty[(seat + r) % n] for r in range(n))
    assert d.round == game.round


@settings(max_examples=examples(150), deadline=None)
@given(
    combo=st.sampled_from(TABLES),
    reward=st.sampled_from(["outcome", "markers"]),
    max_rounds=st.one_of(st.integers(1, 6), st.just(100)),
    style=st.sampled_from(STYLES),
    seed=st.integers(0, 2**32 - 1),
)
def test_random_games_keep_every_invariant(combo, reward, max_rounds, style, seed) -> None:
    rules, n = combo
    env = grove_v1.raw_env(num_players=n, rules=rules, reward=reward, max_rounds=max_rounds)
    env.reset(seed=seed)
    rng = random.Random(seed)
    game = env.game
    total = n * game.rules.markers_per_player
    space = env.observation_space(env.possible_agents[0])
    rounds = 0
    ended: set[str] = set()
    last = scores(game)
    while env.agents:
        agent = env.agent_selection
        for a in env.agents:
            obs = env.observe(a)
            assert space.contains(obs)
            seat = env.agent_name_mapping[a]
            assert_decodes_to_the_game(game, seat, obs["observation"])
            live = a == agent and not (env.terminations[a] or env.truncations[a])
            assert obs["action_mask"].any() == live, (a, agent)
        if env.terminations[agent] or env.truncations[agent]:
            ended.add("terminated" if env.terminations[agent] else "truncated")
            env.step(None)
            continue
        legal = [int(x) for x in np.flatnonzero(env.observe(agent)["action_mask"])]
        assert legal == game.legal_actions()
        env.step(choose(game, legal, style, rng))
        paid = [env.rewards.get(a, 0.0) for a in env.possible_agents]
        assert abs(sum(paid)) < 1e-9
        want = [0.0] * n
        if len(game.history) > rounds:  # a round ended: nothing is left on the table
            rounds = len(game.history)
            record = game.history[-1]
            assert sum(record.coloured) + sum(record.penalty) + sum(game.removed) == total
            assert game.removed == [0] * n or rules == "revised"
            now = scores(game)
            if reward == "markers":
                change = [s - s0 for s, s0 in zip(now, last)]
                want = [sum(change) / n - c for c in change]
            elif game.terminal:
                want = [(sum(o > s for o in now) - sum(o < s for o in now)) / (n - 1) for s in now]
            last = now
        assert np.allclose(paid, want, rtol=0, atol=1e-9), (paid, want)
        if not game.terminal:
            assert (
                sum(game.coloured) + sum(game.penalty) + sum(game.removed) + on_table(game) == total
            )
        assert rounds <= max_rounds
    assert game.terminal or rounds == max_rounds
    assert ended == ({"terminated"} if game.terminal else {"truncated"})


@settings(max_examples=examples(200), deadline=None)
@given(combo=st.sampled_from(TABLES), data=st.data())
def test_standings_and_returns_follow_the_scores(combo, data) -> None:
    rules, n = combo
    game = Game(rules, n)
    top = game.rules.markers_per_player
    game.coloured = data.draw(st.lists(st.integers(0, top), min_size=n, max_size=n))
    game.penalty = data.draw(st.lists(st.integers(0, 12), min_size=n, max_size=n))
    game.terminal = True
    scores = [c + p if rules == "classic" else p for c, p in zip(game.coloured, game.penalty)]
    returns = game.returns()
    assert abs(sum(returns)) < 1e-9
    assert all(-1.0 <= r <= 1.0 for r in returns)
    for s in range(n):
        assert game.standings()[s] == 1 + sum(o < scores[s] for o in scores)
        for o in range(n):  # fewer is better, ties are ties
            assert (returns[s] > returns[o]) == (scores[s] < scores[o])
            assert (returns[s] == returns[o]) == (scores[s] == scores[o])


@settings(max_examples=examples(300), deadline=None)
@given(
    combo=st.sampled_from(TABLES),
    style=st.sampled_from(STYLES),
    seed=st.integers(0, 2**32 - 1),
)
def test_core_games_conserve_markers_move_by_move(combo, style, seed) -> None:
    """The core alone, checked after every single action up to the end of the game."""
    rules, n = combo
    rng = random.Random(seed)
    game = Game(rules, n, seed=seed)
    total = n * game.rules.markers_per_player
    while not game.terminal and game.round <= 200:
        legal = game.legal_actions()
        assert legal and game.phase is not Phase.OVER
        game.apply_action(choose(game, legal, style, rng))
        if not game.terminal:
            held = sum(game.coloured) + sum(game.penalty) + sum(game.removed)
            assert held + on_table(game) == total
            assert min(game.coloured) >= 0 and 0 <= on_table(game) < n
    if game.terminal:
        assert sum(game.coloured) + sum(game.penalty) + sum(game.removed) == total
        assert game.end_triggers() and game.legal_actions() == []
    else:
        assert style == "culprit" and rules == "classic"  # markers just go back and forth
