"""The agent registry: spec parsing, errors, lazy factories."""

from __future__ import annotations

import io

import numpy as np
import pytest

from grove_env.agents import base
from grove_env.agents.base import Agent, agent_names, make_agent, parse_spec, register_agent
from grove_env.agents.cli.human import HumanAgent


def test_known_names() -> None:
    assert {"random", "greedy", "heuristic", "human", "ppo"} <= set(agent_names())


@pytest.mark.parametrize(
    ("spec", "parsed"),
    [
        ("random", ("random", None)),
        ("  random ", ("random", None)),
        ("ppo:runs/a/best.zip", ("ppo", "runs/a/best.zip")),
        ("ppo:C:/x.zip", ("ppo", "C:/x.zip")),
    ],
)
def test_parse_spec(spec: str, parsed: tuple) -> None:
    assert parse_spec(spec) == parsed


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "non-empty string"),
        ("   ", "non-empty string"),
        (None, "non-empty string"),
        (3, "non-empty string"),
        ("bogus", "unknown agent 'bogus'"),
        ("Random", "unknown agent 'Random'"),
        (":random", "unknown agent ''"),
        ("random:", "has a ':' but nothing after it"),
    ],
)
def test_parse_spec_errors(spec, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_spec(spec)
    with pytest.raises(ValueError, match=message):
        make_agent(spec)


def test_unknown_agent_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"known agents: \[.*'random'.*\]"):
        parse_spec("nope")


def test_factories_reject_arguments_they_do_not_take() -> None:
    with pytest.raises(ValueError, match="takes no argument"):
        make_agent("random:3")
    with pytest.raises(ValueError, match="takes no argument"):
        make_agent("human:me")


def test_seeded_agents_repeat() -> None:
    mask = np.ones(10, dtype=np.int8)
    obs = {"observation": np.zeros(125, dtype=np.float32), "action_mask": mask}
    a, b = make_agent("random", seed=5), make_agent("random", seed=5)
    assert [a.act(obs) for _ in range(20)] == [b.act(obs) for _ in range(20)]
    assert isinstance(a, Agent)


def test_human_spec_takes_streams() -> None:
    out = io.StringIO()
    agent = make_agent("human", stdin=io.StringIO(""), stdout=out)
    assert isinstance(agent, HumanAgent) and agent.stdout is out
    assert agent.name == "human"


def test_register_agent(monkeypatch) -> None:
    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))
    register_agent("fixed", lambda arg, seed=None: make_agent("random", seed=int(arg or 0)))
    assert "fixed" in agent_names()
    assert make_agent("fixed:4").name == "random"
    register_agent("lazy", "grove_env.agents.scripted.random_agent:make")
    assert make_agent("lazy", seed=1).name == "random"
    for bad in ("", "a:b"):
        with pytest.raises(ValueError, match="non-empty and has no ':'"):
            register_agent(bad, "grove_env.agents.scripted.random_agent:make")


def test_heuristic_spec() -> None:
    agent = make_agent("heuristic", seed=0)
    assert agent.name == "heuristic"


def one_round_played_by(spec: str, rules: str, n: int) -> None:
    """Every seat of one round's decisions made by the agent ``spec`` names."""
    from grove_env.core import Game
    from grove_env.observation import ObservationEncoder

    game, agent = Game(rules, n, seed=n), make_agent(spec, seed=0)
    encoder = ObservationEncoder(game.rules, n)
    while not game.history:
        seat = game.current_player
        mask = np.array([game.is_legal(a) for a in range(10)], dtype=np.int8)
        action = agent.act({"observation": encoder.encode(game, seat), "action_mask": mask})
        game.apply_action(int(action))


TABLES = [("classic", 2), ("classic", 3), ("classic", 4), ("revised", 2), ("revised", 5)]


@pytest.mark.parametrize(("rules", "n"), TABLES)
def test_table_refusal_says_which_agents_play_a_table(rules: str, n: int) -> None:
    """An agent the check accepts plays a round there; one it refuses fails when it acts."""
    refused = []
    for name in agent_names():
        if name in ("human", "ppo", "sb3", "zoo"):  # a terminal, a file or table to name
            continue
        why = base.table_refusal(name, rules, n)
        if why is None:
            one_round_played_by(name, rules, n)
        else:
            refused.append(name)
            assert why.startswith(f"{name}: ") and "\n" not in why
            with pytest.raises(ValueError, match="no solved strategy"):
                one_round_played_by(name, rules, n)
    assert (refused == []) == (n == 2)  # cfr and cfr-round ship for two players only


def test_register_agent_with_a_table_check(monkeypatch) -> None:
    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))
    monkeypatch.setattr(base, "_TABLE_CHECKS", dict(base._TABLE_CHECKS))
    register_agent(
        "duo",
        "grove_env.agents.scripted.random_agent:make",
        tables=lambda arg, rules, n: None if n == 2 else f"duo: two players only, not {n}",
    )
    assert base.table_refusal("duo", "classic", 2) is None
    assert base.table_refusal("duo", "classic", 3) == "duo: two players only, not 3"
    assert (
        base.table_refusal("cfr:/no/such.npz", "classic", 2)
        == "cfr: no strategy file '/no/such.npz'"
    )
