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
