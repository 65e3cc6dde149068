"""The PettingZoo adapter ``grove_v1``: illegal actions raise, leaving the env as it was,
or end the game when asked to.
"""

from __future__ import annotations

import re

import pytest
from env_playouts import culprit_policy, legal_of, plain, play
from positions import TABLES

from grove_env import grove_v1
from grove_env.actions import ACCUSE_0, KEEP, NUM_ACTIONS

# --------------------------------------------------------------------------- illegal actions


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
    make = grove_v1.env if wrapped else grove_v1.raw_env
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
    env = grove_v1.env(num_players=3)
    env.reset(seed=0)
    before = env_state(env)
    with pytest.raises((AssertionError, ValueError)):
        env.step(bad)
    assert env_state(env) == before
    env.step(0)  # still usable


@pytest.mark.parametrize("bad", [10, -1, 2.5, "x"])
def test_out_of_bounds_actions_raw(bad) -> None:
    env = grove_v1.raw_env(num_players=3)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="player_0"):
        env.step(bad)


@pytest.mark.parametrize("rules,n", TABLES)
def test_illegal_action_can_terminate_the_game(rules: str, n: int) -> None:
    env = grove_v1.env(num_players=n, rules=rules, illegal_action="terminate", illegal_reward=-2.5)
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
