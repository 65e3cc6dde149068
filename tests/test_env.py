"""The PettingZoo adapter ``grove_v0``: PettingZoo's own checks, then each documented fact."""

from __future__ import annotations

import copy
import functools
import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import api_test, render_test, seed_test
from positions import TABLES

from grove_env import OBS_SIZE, culprit_slot, decode, grove_v0
from grove_env.actions import ACCUSE_0, KEEP, NUM_ACTIONS, Phase
from grove_env.state import STATE_SIZE

ROUND_RESULT_KEYS = {"round", "suspects", "culprit", "stacks", "coloured", "penalty"}


def legal_of(obs: dict) -> list[int]:
    return [int(a) for a in np.flatnonzero(obs["action_mask"])]


def random_policy(rng: random.Random):
    def policy(env, agent, obs):
        return rng.choice(legal_of(obs))

    return policy


def culprit_policy(env, agent, obs):
    """Look at slots 1 and 2, keep the victim, and accuse the true culprit (peeking)."""
    game = env.unwrapped.game
    if game.phase is Phase.ACCUSE:
        return ACCUSE_0 + culprit_slot(game.suspects)
    return KEEP if game.phase is Phase.SWAP else 0


def play(env, policy, on_step=None) -> dict[str, list]:
    """Run ``env`` (already reset) to the end; returns what ``last()`` said, per agent."""
    seen: dict[str, list] = {a: [] for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        seen[agent].append((reward, terminated, truncated, copy.deepcopy(info)))
        action = None if terminated or truncated else policy(env, agent, obs)
        env.step(action)
        if on_step is not None:
            on_step(env, agent, action)
    return seen


def scores_of(rules: str, coloured, penalty) -> list[int]:
    if rules == "classic":
        return [c + p for c, p in zip(coloured, penalty)]
    return list(penalty)


def outcome(scores: list[int]) -> list[float]:
    d = len(scores) - 1
    return [(sum(o > s for o in scores) - sum(o < s for o in scores)) / d for s in scores]


# --------------------------------------------------------------------------- PettingZoo's tests


# api_test's notes on Dict observations (action masks) apply to every masked classic env
API_NOTES = [
    "ignore:Observation space for each agent probably should be:UserWarning",
    "ignore:Observation is not a NumPy array:UserWarning",
    "ignore:.*ignores reset options:UserWarning",  # api_test passes options={"options": 1}
]


@pytest.mark.filterwarnings(*API_NOTES)
@pytest.mark.parametrize("rules,n", TABLES)
def test_pettingzoo_api(rules: str, n: int) -> None:
    api_test(grove_v0.env(num_players=n, rules=rules), num_cycles=300)


@pytest.mark.parametrize("rules,n", TABLES)
def test_pettingzoo_seed(rules: str, n: int) -> None:
    seed_test(functools.partial(grove_v0.env, num_players=n, rules=rules), num_cycles=200)


@pytest.mark.parametrize("rules,n", TABLES)
def test_pettingzoo_render(rules: str, n: int, capsys) -> None:
    render_test(functools.partial(grove_v0.env, num_players=n, rules=rules))
    assert "In a Grove" in capsys.readouterr().out  # the human mode printed the table


@pytest.mark.filterwarnings(*API_NOTES)
def test_pettingzoo_api_markers_and_short_games() -> None:
    api_test(grove_v0.env(num_players=3, reward="markers", max_rounds=2), num_cycles=300)


# --------------------------------------------------------------------------- construction


BAD_KWARGS = [
    (dict(num_players=6), r"\(2, 3, 4\)"),
    (dict(num_players=1, rules="revised"), r"\(2, 3, 4, 5\)"),
    (dict(num_players="4"), r"\(2, 3, 4\)"),
    (dict(rules="modern"), r"\['classic', 'revised'\]"),
    (dict(reward="dense"), r"\('outcome', 'markers'\)"),
    (dict(max_rounds=0), r"max_rounds must be an int >= 1"),
    (dict(max_rounds=-3), r"max_rounds must be an int >= 1"),
    (dict(max_rounds=2.5), r"max_rounds must be an int >= 1"),
    (dict(max_rounds=True), r"max_rounds must be an int >= 1"),
    (dict(render_mode="rgb"), r"\['ansi', 'human', 'rgb_array'\]"),
    (dict(illegal_action="ignore"), r"\('raise', 'terminate'\)"),
]


@pytest.mark.parametrize("kwargs,message", BAD_KWARGS)
def test_bad_constructor_arguments(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        grove_v0.env(**kwargs)
    with pytest.raises(ValueError, match=message):
        grove_v0.raw_env(**kwargs)


@pytest.mark.parametrize("rules,n", TABLES)
def test_spaces(rules: str, n: int) -> None:
    env = grove_v0.env(num_players=n, rules=rules)
    env.reset(seed=0)
    assert env.possible_agents == [f"player_{i}" for i in range(n)]
    first = env.observation_space("player_0")
    assert all(env.observation_space(a) is first for a in env.possible_agents)
    assert all(env.action_space(a) is env.action_space("player_0") for a in env.possible_agents)
    assert isinstance(first, spaces.Dict)
    assert first["observation"].shape == (OBS_SIZE,) and first["observation"].dtype == np.float32
    assert first["action_mask"].shape == (NUM_ACTIONS,) and first["action_mask"].dtype == np.int8
    assert env.action_space("player_0") == spaces.Discrete(NUM_ACTIONS)
    state = env.state()
    assert state.shape == (STATE_SIZE,) == env.unwrapped.state_space.shape
    assert state.dtype == np.float32 and env.unwrapped.state_space.contains(state)


def test_state_is_the_whole_table() -> None:
    env = grove_v0.raw_env(num_players=4, rules="classic")
    deal = (2, 3, 4, 6, 5, 7, 8, 0)
    env.reset(options={"deal": deal})
    env.step(0)
    state = env.state()
    np.testing.assert_array_equal(state[:OBS_SIZE], env.observe("player_0")["observation"])
    tiles = (0, 2, 3, 4, 5, 6, 7, 8)
    blocks = state[OBS_SIZE:].reshape(-1, 8)  # 5 dealt, 3 suspects, the victim
    assert [tiles[int(np.argmax(b))] if b.any() else None for b in blocks] == [
        2, 3, 4, 6, None, 5, 7, 8, 0,
    ]  # fmt: skip


def test_nothing_before_reset() -> None:
    env = grove_v0.env()
    with pytest.raises(AttributeError, match="before reset"):
        _ = env.agent_selection


# --------------------------------------------------------------------------- reset options


def test_forced_deal_through_reset() -> None:
    env = grove_v0.env(num_players=2, rules="revised")
    env.reset(seed=1, options={"deal": [2, 3, 5, 7, 8, 6, 4]})
    game = env.unwrapped.game
    assert (game.dealt, game.suspects, game.victim, game.spare) == ([2, 3], [5, 7, 8], 6, 4)
    d = decode(env.observe("player_1")["observation"])
    assert d.my_tiles == (3, 2) and d.spare == 4


@pytest.mark.parametrize("deal", [[2, 3, 5, 7, 8, 6], [2, 3, 5, 7, 8, 6, 6], "2357864"[:3]])
def test_malformed_deal_through_reset(deal) -> None:
    env = grove_v0.env(num_players=2, rules="revised")
    with pytest.raises(ValueError, match="deal"):
        env.reset(options={"deal": deal})


def test_unknown_reset_option_warns() -> None:
    env = grove_v0.env()
    with pytest.warns(UserWarning, match="ignores reset options"):
        env.reset(options={"speed": 3})
    assert env.agents == env.possible_agents


# --------------------------------------------------------------------------- illegal actions


def plain(value):
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value.tolist() if isinstance(value, np.ndarray) else copy.deepcopy(value)


def env_state(env) -> tuple:
    raw = env.unwrapped
    return (
        raw.agent_selection,
        list(raw.agents),
        dict(raw.rewards),
        dict(raw._cumulative_rewards),
        dict(raw.terminations),
        dict(raw.truncations),
        {a: {k: plain(v) for k, v in info.items()} for a, info in raw.infos.items()},
        [raw.observe(a)["observation"].tobytes() for a in raw.possible_agents],
        [raw.observe(a)["action_mask"].tobytes() for a in raw.possible_agents],
        raw.state().tobytes(),
    )


@pytest.mark.parametrize("wrapped", [True, False])
@pytest.mark.parametrize("rules,n", TABLES)
def test_masked_action_raises_and_leaves_the_env_usable(rules, n, wrapped) -> None:
    make = grove_v0.env if wrapped else grove_v0.raw_env
    env = make(num_players=n, rules=rules)
    env.reset(seed=5)
    phases = []
    for _ in range(n + 3):  # look, swap, every accusation of round 1, into round 2
        agent = env.agent_selection
        mask = env.observe(agent)["action_mask"]
        phase = env.unwrapped.game.phase.name.lower()
        phases.append(phase)
        legal = legal_of(env.observe(agent))
        for bad in [a for a in range(NUM_ACTIONS) if not mask[a]]:
            before = env_state(env)
            with pytest.raises(ValueError) as err:
                env.step(bad)
            message = str(err.value)
            assert message.startswith(f"{agent} played illegal action {bad} in phase {phase}")
            assert re.search(r"legal actions: (\d \([a-z0-9 ]+\)(, )?)+$", message)
            assert [int(a) for a in re.findall(r"(\d) \(", message)] == legal
            assert env_state(env) == before
        env.step(culprit_policy(env, agent, None) if phase == "accuse" else legal[-1])
    assert {"look", "accuse"} <= set(phases) and (rules == "classic") == ("swap" in phases)


@pytest.mark.parametrize("bad", [10, -1, 99, 2.5, "3", None])
def test_out_of_bounds_actions_are_rejected(bad) -> None:
    env = grove_v0.env(num_players=3)
    env.reset(seed=0)
    before = env_state(env)
    with pytest.raises((AssertionError, ValueError)):
        env.step(bad)
    assert env_state(env) == before
    env.step(0)  # still usable


@pytest.mark.parametrize("bad", [10, -1, 2.5, "x"])
def test_out_of_bounds_actions_raw(bad) -> None:
    env = grove_v0.raw_env(num_players=3)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="player_0"):
        env.step(bad)


@pytest.mark.parametrize("rules,n", TABLES)
def test_illegal_action_can_terminate_the_game(rules: str, n: int) -> None:
    env = grove_v0.env(num_players=n, rules=rules, illegal_action="terminate", illegal_reward=-2.5)
    env.reset(seed=3)
    env.step(1)
    if rules == "classic":
        env.step(KEEP)
    env.step(ACCUSE_0)  # seat 0 accuses; player_1 to act
    assert env.agent_selection == "player_1"
    env.step(0)  # a look action in the accuse phase
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.rewards == {a: (-2.5 if a == "player_1" else 0.0) for a in env.agents}
    for a in env.agents:
        assert env.infos[a]["illegal_action_by"] == 1
        assert not env.observe(a)["action_mask"].any()
    seen = play(env, lambda *_: pytest.fail("nobody may act after the end"))
    assert {a: [r for r, *_ in seen[a]] for a in seen} == {
        a: [-2.5 if a == "player_1" else 0.0] for a in env.possible_agents
    }
    assert env.agents == []


# --------------------------------------------------------------------------- rounds and ends


@pytest.mark.parametrize("reward", ["outcome", "markers"])
@pytest.mark.parametrize("rules,n", TABLES)
def test_max_rounds_truncates_without_a_terminal_reward(rules, n, reward) -> None:
    """Everyone accuses the culprit: nobody takes a penalty, so only the limit ends it."""
    env = grove_v0.env(num_players=n, rules=rules, reward=reward, max_rounds=3)
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
    env = grove_v0.raw_env(num_players=n, rules=rules, max_rounds=1)
    env.reset(seed=0)
    while not any(env.truncations.values()):
        env.step(culprit_policy(env, env.agent_selection, None))
    for a in env.agents:
        assert env.truncations[a] and not env.terminations[a]
        assert not env.observe(a)["action_mask"].any()


@pytest.mark.parametrize("rules,n", TABLES)
def test_outcome_rewards(rules: str, n: int) -> None:
    for seed in range(8):
        env = grove_v0.env(num_players=n, rules=rules)
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
        env = grove_v0.env(num_players=n, rules=rules, reward="markers")
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
    env = grove_v0.env(num_players=3, rules="revised", reward="markers")
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
    env = grove_v0.env(num_players=n, rules=rules)
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
    env = grove_v0.env(num_players=n, rules=rules, illegal_action=illegal_action)
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


# --------------------------------------------------------------------------- render


def test_render_modes() -> None:
    env = grove_v0.env(num_players=3, render_mode="ansi")
    env.reset(options={"deal": [0, 3, 4, 5, 7, 8, 6]})
    text = env.render()
    assert isinstance(text, str) and "round 1" in text
    assert "victim" not in text and "dealt" not in text  # public view only
    image = grove_v0.env(num_players=5, rules="revised", render_mode="rgb_array")
    image.reset(seed=0)
    frame = image.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    silent = grove_v0.env()
    silent.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert silent.render() is None


def test_throughput_benchmark_smoke() -> None:
    """The benchmark script runs end to end on a tiny budget (no timing is asserted)."""
    script = Path(__file__).resolve().parents[1] / "benchmarks" / "aec_throughput.py"
    done = subprocess.run(
        [sys.executable, str(script), "--steps", "50", "--repeats", "2", "--players", "2"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ratio grove_v0 / tictactoe_v3" in done.stdout
    assert "ratio grove_v0 / connect_four_v3" in done.stdout
