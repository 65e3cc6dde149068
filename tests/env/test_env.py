"""The PettingZoo adapter ``grove_v1``: PettingZoo's own checks, then each documented fact.

This file holds PettingZoo's tests, construction, reset options and rendering; illegal
actions are in ``test_env_illegal.py``, rounds, ends, rewards, infos and masks in
``test_env_rounds.py``.
"""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import api_test, render_test, seed_test
from pettingzoo.utils.deprecated_module import DeprecatedEnv
from positions import TABLES

from grove_env import OBS_SIZE, decode, grove_v0, grove_v1
from grove_env.actions import NUM_ACTIONS
from grove_env.global_state import STATE_SIZE

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
    api_test(grove_v1.env(num_players=n, rules=rules), num_cycles=300)


@pytest.mark.parametrize("rules,n", TABLES)
def test_pettingzoo_seed(rules: str, n: int) -> None:
    seed_test(functools.partial(grove_v1.env, num_players=n, rules=rules), num_cycles=200)


@pytest.mark.parametrize("rules,n", TABLES)
def test_pettingzoo_render(rules: str, n: int, capsys) -> None:
    render_test(functools.partial(grove_v1.env, num_players=n, rules=rules))
    assert "In a Grove" in capsys.readouterr().out  # the human mode printed the table


@pytest.mark.filterwarnings(*API_NOTES)
def test_pettingzoo_api_markers_and_short_games() -> None:
    api_test(grove_v1.env(num_players=3, reward="markers", max_rounds=2), num_cycles=300)


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
        grove_v1.env(**kwargs)
    with pytest.raises(ValueError, match=message):
        grove_v1.raw_env(**kwargs)


@pytest.mark.parametrize("make", ["env", "raw_env"])
def test_grove_v0_is_outdated(make: str) -> None:
    """PettingZoo's convention: the old version imports, and making it says what to use."""
    with pytest.raises(DeprecatedEnv, match=r"grove_v0 is outdated, use grove_env\.grove_v1"):
        getattr(grove_v0, make)(num_players=3)
    with pytest.raises(ImportError, match="infos are flat and fixed-shape"):
        getattr(grove_v0, make)()


@pytest.mark.parametrize("rules,n", TABLES)
def test_spaces(rules: str, n: int) -> None:
    env = grove_v1.env(num_players=n, rules=rules)
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
    env = grove_v1.raw_env(num_players=4, rules="classic")
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
    env = grove_v1.env()
    with pytest.raises(AttributeError, match="before reset"):
        _ = env.agent_selection


# --------------------------------------------------------------------------- reset options


def test_forced_deal_through_reset() -> None:
    env = grove_v1.env(num_players=2, rules="revised")
    env.reset(seed=1, options={"deal": [2, 3, 5, 7, 8, 6, 4]})
    game = env.unwrapped.game
    assert (game.dealt, game.suspects, game.victim, game.spare) == ([2, 3], [5, 7, 8], 6, 4)
    d = decode(env.observe("player_1")["observation"])
    assert d.my_tiles == (3, 2) and d.spare == 4


@pytest.mark.parametrize("deal", [[2, 3, 5, 7, 8, 6], [2, 3, 5, 7, 8, 6, 6], "2357864"[:3]])
def test_malformed_deal_through_reset(deal) -> None:
    env = grove_v1.env(num_players=2, rules="revised")
    with pytest.raises(ValueError, match="deal"):
        env.reset(options={"deal": deal})


def test_unknown_reset_option_warns() -> None:
    env = grove_v1.env()
    with pytest.warns(UserWarning, match="ignores reset options"):
        env.reset(options={"speed": 3})
    assert env.agents == env.possible_agents


# --------------------------------------------------------------------------- render


def test_render_modes() -> None:
    env = grove_v1.env(num_players=3, render_mode="ansi")
    env.reset(options={"deal": [0, 3, 4, 5, 7, 8, 6]})
    text = env.render()
    assert isinstance(text, str) and "round 1" in text
    assert "victim" not in text and "dealt" not in text  # public view only
    image = grove_v1.env(num_players=5, rules="revised", render_mode="rgb_array")
    image.reset(seed=0)
    frame = image.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    silent = grove_v1.env()
    silent.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert silent.render() is None


def test_throughput_benchmark_smoke() -> None:
    """The benchmark script runs end to end on a tiny budget (no timing is asserted)."""
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "aec_throughput.py"
    done = subprocess.run(
        [sys.executable, str(script), "--steps", "50", "--repeats", "2", "--players", "2"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ratio grove_v1 / tictactoe_v3" in done.stdout
    assert "ratio grove_v1 / connect_four_v3" in done.stdout
