"""Baseline agents, tournaments and human play for grove-env (see :mod:`grove_env.agents.base`)."""

from .base import Agent, BaseAgent, agent_names, make_agent, parse_spec, register_agent

__all__ = ["Agent", "BaseAgent", "agent_names", "make_agent", "parse_spec", "register_agent"]
