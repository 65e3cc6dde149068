"""The PettingZoo adapter ``grove_v1``: rounds and ends (truncation, both rewards), and
the infos and action masks at every step.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from env_playouts import (
    culprit_policy,
    legal_of,
    outcome,
    plain,
    play,
    random_policy,
    scores_of,
)
from positions import TABLES

from grove_env import grove_v1

ROUND_RESULT_KEYS = {"round", "suspects", "culprit", "stacks", "coloured", "penalty"}


# --------------------------------------------------------------------------- rounds and ends


@pytest.mark.parametrize("reward", ["outcome", "markers"])
@pytest.mark.parametrize("rules,n", TABLES)
def test_max_rounds_truncates_without_a_terminal_reward(rules, n, reward) -> None:
    """Everyone accuses the culprit: nobody takes a penalty, so only the limit ends it."""
    env = grove_v1.env(num_players=n, rules=rules, reward=reward, max_rounds=3)
    env.reset(seed=2)
    seen = play(env, culprit_policy)
    game = env.unwrapped.game
    assert len(game.history) == 3 and not game.terminal
    assert game.penalty == [0] * n
    for agent, turns in seen.items():
        *_, (reward_, terminated, truncated, info) = turns
        assert truncated and not terminated, agent
        assert all(r == 0.0 for r, *_ in turns), agent
        assert info["standings"] == 1 and not info["ended_by"].any()
        assert info["round"] == 3
        assert not any(t or tr for _, t, tr, _ in turns[:-1])
    assert env.agents == []


@pytest.mark.parametrize("rules,n", TABLES)
def test_truncated_agents_have_no_moves(rules: str, n: int) -> None:
    env = grove_v1.raw_env(num_players=n, rules=rules, max_rounds=1)
    env.reset(seed=0)
    while not any(env.truncations.values()):
        env.step(culprit_policy(env, env.agent_selection, None))
    for a in env.agents:
        assert env.truncations[a] and not env.terminations[a]
        assert not env.observe(a)["action_mask"].any()


@pytest.mark.parametrize("rules,n", TABLES)
def test_outcome_rewards(rules: str, n: int) -> None:
    for seed in range(8):
        env = grove_v1.env(num_players=n, rules=rules)
        env.reset(seed=seed)
        paid = {a: 0.0 for a in env.possible_agents}

        def on_step(env, agent, action, paid=paid):
            if action is None:
                return
            assert sum(env.rewards.values()) == pytest.approx(0.0)
            game = env.unwrapped.game
            if not game.terminal:
                assert set(env.rewards.values()) == {0.0}
            for a, r in env.rewards.items():
                paid[a] += r

        seen = play(env, random_policy(random.Random(seed)), on_step)
        game = env.unwrapped.game
        assert game.terminal
        record = game.history[-1]
        expected = outcome(scores_of(rules, record.coloured, record.penalty))
        for seat, agent in enumerate(env.possible_agents):
            got = sum(r for r, *_ in seen[agent])
            assert got == pytest.approx(expected[seat]) == pytest.approx(paid[agent])
            *_, (_, terminated, truncated, info) = seen[agent]
            assert terminated and not truncated
            assert info["standings"] == game.standings()[seat]
            assert info["scores"].tolist() == game.scores()
            assert np.flatnonzero(info["ended_by"]).tolist() == game.end_triggers() != []
        assert sum(expected) == pytest.approx(0.0)
        worst = max(range(n), key=lambda s: game.scores()[s])
        if len(set(game.scores())) > 1:
            assert sum(r for r, *_ in seen[env.possible_agents[worst]]) < 0  # the loser is paid


@pytest.mark.parametrize("rules,n", TABLES)
def test_markers_rewards(rules: str, n: int) -> None:
    for seed in range(8):
        env = grove_v1.env(num_players=n, rules=rules, reward="markers")
        env.reset(seed=seed)
        start = 5 if rules == "classic" else 0
        last_scores = [start] * n
        paid = {a: 0.0 for a in env.possible_agents}
        rounds = []

        def on_step(env, agent, action, paid=paid, rounds=rounds):
            nonlocal last_scores
            if action is None:
                return
            game = env.unwrapped.game
            rewards = [env.rewards[a] for a in env.possible_agents]
            assert sum(rewards) == pytest.approx(0.0)
            if len(game.history) > len(rounds):
                record = game.history[-1]
                rounds.append(record)
                scores = scores_of(rules, record.coloured, record.penalty)
                deltas = [s - s0 for s, s0 in zip(scores, last_scores)]
                mean = sum(deltas) / n
                assert rewards == pytest.approx([-(d - mean) for d in deltas])
                last_scores = scores
            else:
                assert rewards == [0.0] * n
            for a, r in zip(env.possible_agents, rewards):
                paid[a] += r

        seen = play(env, random_policy(random.Random(seed)), on_step)
        assert env.unwrapped.game.terminal
        for agent in env.possible_agents:
            assert sum(r for r, *_ in seen[agent]) == pytest.approx(paid[agent])


def test_markers_pays_nothing_extra_at_the_end() -> None:
    """A revised game where everyone accuses the culprit: no penalties, so no rewards at all,
    even at the end (the outcome is a tie anyway); then a decided game's total is the
    centred score change alone."""
    env = grove_v1.env(num_players=3, rules="revised", reward="markers")
    env.reset(seed=0)
    seen = play(env, culprit_policy)
    assert env.unwrapped.game.terminal
    assert all(r == 0.0 for turns in seen.values() for r, *_ in turns)

    env.reset(seed=1)
    seen = play(env, random_policy(random.Random(1)))
    game = env.unwrapped.game
    mean = sum(game.penalty) / 3
    totals = [sum(r for r, *_ in seen[a]) for a in env.possible_agents]
    assert totals == pytest.approx([-(p - mean) for p in game.penalty])


# --------------------------------------------------------------------------- infos and masks


@pytest.mark.parametrize("rules,n", TABLES)
def test_infos_and_masks_every_step(rules: str, n: int) -> None:
    env = grove_v1.env(num_players=n, rules=rules)
    env.reset(seed=11)
    rng = random.Random(11)
    rounds_seen = 0
    while env.agents:
        agent = env.agent_selection
        raw = env.unwrapped
        game = raw.game
        for a in env.agents:
            mask = env.observe(a)["action_mask"]
            assert "action_mask" not in env.infos[a]  # the observation holds it
            assert mask.dtype == np.int8
            if a == agent and not (env.terminations[a] or env.truncations[a]):
                assert legal_of({"action_mask": mask}) == game.legal_actions() != []
            else:
                assert not mask.any()
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        env.step(rng.choice(game.legal_actions()))
        if len(game.history) > rounds_seen:
            rounds_seen = len(game.history)
            expected = game.history[-1].as_info()
            expected["stacks"] = [s + [-1] * (n - len(s)) for s in expected["stacks"]]
            for a in env.agents:
                result = {k: env.infos[a][k] for k in ROUND_RESULT_KEYS}
                assert plain(result) == expected
                assert result["round"] == rounds_seen
    assert rounds_seen == len(env.unwrapped.game.history) >= 1


def shapes(info: dict) -> dict:
    """Key -> (type, shape, dtype) of every entry."""
    return {k: (type(v), np.shape(v), np.asarray(v).dtype) for k, v in info.items()}


@pytest.mark.parametrize("rules,n", TABLES)
@pytest.mark.parametrize("illegal_action", ["raise", "terminate"])
def test_every_info_has_one_fixed_shape(rules: str, n: int, illegal_action: str) -> None:
    """Libraries that stack infos in arrays (Tianshou) need the same keys and shapes always."""
    env = grove_v1.env(num_players=n, rules=rules, illegal_action=illegal_action)
    rng = random.Random(5)
    seen = set()
    for seed in range(3):
        env.reset(seed=seed)
        first = shapes(env.infos[env.agent_selection])
        assert first["stacks"][1] == (3, n)
        assert all(kind in (int, np.ndarray) for kind, *_ in first.values())
        for agent in env.agent_iter():
            obs, _, terminated, truncated, info = env.last()
            assert shapes(info) == first, agent
            seen.add((info["round"] > 0, info["standings"] > 0))
            if terminated or truncated:
                env.step(None)
            elif illegal_action == "terminate" and seed == 2 and rng.random() < 0.05:
                env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
            else:
                env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    assert seen == {(False, False), (True, False), (True, True)}


@pytest.mark.parametrize("rules,n", TABLES)
def test_info_arrays_cannot_be_written_and_agents_infos_are_apart(rules: str, n: int) -> None:
    """The arrays are shared between agents (and rounds, and envs), so none may be written,
    nor made writeable again; each agent's info dict is its own."""
    env = grove_v1.env(num_players=n, rules=rules)
    env.reset(seed=3)
    rng = random.Random(3)
    checked = 0
    for agent in env.agent_iter():
        obs, _, terminated, truncated, info = env.last()
        arrays = {k: v for k, v in info.items() if isinstance(v, np.ndarray)}
        assert set(arrays) == {"suspects", "stacks", "coloured", "penalty", "scores", "ended_by"}
        for key, array in arrays.items():
            before = array.copy()
            with pytest.raises(ValueError, match="read-only"):
                array.flat[0] = not array.flat[0]
            with pytest.raises(ValueError):
                array.flags.writeable = True
            assert np.array_equal(array, before) and not array.flags.writeable, key
            checked += 1
        others = [a for a in env.agents if a != agent]
        if others:
            other = env.infos[others[0]]
            kept = {k: other[k] for k in ("round", "coloured")}
            info["round"], info["coloured"] = -5, np.zeros(n, dtype=np.int64)
            assert other["round"] == kept["round"] and other["coloured"] is kept["coloured"]
            info["round"], info["coloured"] = kept["round"], kept["coloured"]
        if terminated or truncated:
            env.step(None)
        else:
            env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    assert checked >= 6 * 10
