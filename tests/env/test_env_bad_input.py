"""Hostile input to the env and the batched engine: a clear error, and nothing changed."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grove_env import grove_v1
from grove_env.vector import VectorGame
from grove_env.vector.state import INDEX_TO_VALUE

DEAL = np.array([[3, 4, 5, 6, 7, 8, 0, 2]] * 3)


def fresh_env():
    env = grove_v1.env(num_players=3)
    env.reset(seed=1)
    return env


@pytest.mark.parametrize("seed", [-1, True, 1.5, "3", [1]])
def test_a_rejected_seed_is_not_kept(seed) -> None:
    env, twin = fresh_env(), fresh_env()
    with pytest.raises(ValueError, match=r"^seed must be an int >= 0 or None, got "):
        env.reset(seed=seed)
    env.reset()
    twin.reset()  # the next unseeded deal is the one it would have been
    assert env.unwrapped.game.history == twin.unwrapped.game.history
    assert env.observe("player_0")["observation"].tobytes() == (
        twin.observe("player_0")["observation"].tobytes()
    )


def test_a_rejected_deal_keeps_the_seed_stream() -> None:
    env, twin = fresh_env(), fresh_env()
    with pytest.raises(ValueError, match="lists 7 tiles"):
        env.reset(options={"deal": [1, 2, 3]})
    env.reset()
    twin.reset()
    assert env.observe("player_1")["observation"].tobytes() == (
        twin.observe("player_1")["observation"].tobytes()
    )


@pytest.mark.parametrize("options", ["deal", ["deal"], 3])
def test_options_must_be_a_dict(options) -> None:
    env = fresh_env()
    with pytest.raises(TypeError, match=r"^options must be a dict or None, got "):
        env.reset(options=options)
    assert env.agents == env.possible_agents  # still the game it had


@pytest.mark.parametrize("agent", ["nobody", "player_3", 0])
def test_spaces_of_unknown_agents(agent) -> None:
    env = fresh_env()
    for space in (env.observation_space, env.action_space):
        with pytest.raises(ValueError, match=r"^unknown agent .*; the agents are \['player_0'"):
            space(agent)
    assert env.action_space("player_2").n == 10


def test_force_deals_refuses_floats_and_index_lists() -> None:
    vg = VectorGame(3, "classic", 4, seed=0)
    before = vg.observe().copy()
    with pytest.raises(ValueError, match=r"^deals must be integer tile values, got float64$"):
        vg.force_deals(DEAL.astype(float))
    with pytest.raises(ValueError, match=r"^games must be a bool\[3\] mask, got int64\[3\]$"):
        vg.force_deals(DEAL, games=np.array([0, 1, 1]))
    with pytest.raises(ValueError, match=r"^games must be a bool\[3\] mask, got int64\[2\]$"):
        vg.force_deals(DEAL, games=np.array([0, 2]))
    np.testing.assert_array_equal(vg.observe(), before)
    vg.force_deals(DEAL, games=np.array([True, False, True]))  # a mask is fine
    vg.reset()
    suspects = INDEX_TO_VALUE[vg.state.suspects]  # [slot, game]
    assert suspects[:, 0].tolist() == suspects[:, 2].tolist() == [7, 8, 0]


@pytest.mark.parametrize("actions", [np.zeros((3, 1), int), np.zeros(2, int), np.zeros(3)])
def test_wrong_batches_name_the_shape_they_got(actions) -> None:
    vg = VectorGame(3, "classic", 4, seed=0)
    with pytest.raises(ValueError) as err:
        vg.step(actions)
    assert str(err.value) == f"actions must be int[3], got {actions.dtype}{list(actions.shape)}"


junk = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**30), 10**30) | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=12),
    max_leaves=40,
)


@settings(max_examples=200, deadline=None)
@given(deal=junk)
def test_fuzzed_deals_are_refused_in_one_line_or_dealt(deal) -> None:
    env = grove_v1.raw_env(num_players=3)
    try:
        env.reset(seed=0, options={"deal": deal})
    except (ValueError, TypeError) as e:
        assert str(e) and "\n" not in str(e)
        env.reset(seed=0)  # still usable
    assert env.game is not None and env.game.legal_actions()


@settings(max_examples=200, deadline=None)
@given(deals=st.lists(st.lists(st.integers(-3, 12), max_size=10), max_size=4) | junk)
def test_fuzzed_forced_deals_are_refused_in_one_line_or_queued(deals) -> None:
    vg = VectorGame(3, "classic", 4, seed=0)
    try:
        vg.force_deals(deals)
    except (ValueError, TypeError) as e:
        assert str(e) and "\n" not in str(e)
    vg.reset()
    assert vg.action_masks().any(axis=1).all()


@pytest.mark.parametrize("make", [grove_v1.env, grove_v1.raw_env])
@pytest.mark.parametrize("action", [float("inf"), float("-inf"), float("nan"), 1e300])
def test_unrepresentable_actions_are_refused_and_the_env_stays_usable(make, action) -> None:
    # int(inf) overflows rather than failing as a ValueError: still one clear error.
    env = make(num_players=3)
    env.reset(seed=0)
    with pytest.raises((ValueError, AssertionError), match="action"):
        env.step(action)
    assert env.agent_selection == "player_0"
    env.step(0)
    assert env.agent_selection == "player_0"  # the first player's swap is next


def test_an_unrepresentable_deal_tile_is_a_one_line_error() -> None:
    env = grove_v1.raw_env(num_players=3)
    with pytest.raises(ValueError, match="a deal is a sequence of ints"):
        env.reset(seed=0, options={"deal": [float("inf")] * 7})
    env.reset(seed=0)
    assert env.agent_selection == "player_0"
