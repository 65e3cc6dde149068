"""PettingZoo's standard checks, with the per-turn look-ups forwarded directly.

:class:`pettingzoo.utils.wrappers.BaseWrapper` reaches the wrapped env's attributes
through ``__getattr__``, which Python only calls after a failed normal look-up; with two
wrappers, ``last()`` and ``agent_iter()`` pay that several times a turn, on the hot
path of every game loop (``benchmarks/aec_throughput.py`` measures the wrapped env).
These subclasses keep the standard wrappers' behaviour and types (``isinstance``
checks still hold, and ``agent_iter`` still enforces the step/reset order) but forward
the hot attributes with properties and ``last()`` in one call.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import AssertOutOfBoundsWrapper, OrderEnforcingWrapper


class _DirectForwarding:
    """Properties for the attributes that a turn of ``agent_iter``/``last``/``step`` reads."""

    env: Any

    @property
    def agent_selection(self) -> str:
        return self.env.agent_selection

    @property
    def agents(self) -> list[str]:
        return self.env.agents

    @property
    def terminations(self) -> dict[str, bool]:
        return self.env.terminations

    @property
    def truncations(self) -> dict[str, bool]:
        return self.env.truncations

    @property
    def rewards(self) -> dict[str, float]:
        return self.env.rewards

    @property
    def infos(self) -> dict[str, dict]:
        return self.env.infos

    @property
    def _cumulative_rewards(self) -> dict[str, float]:
        return self.env._cumulative_rewards

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict]:
        return self.env.last(observe)


class AssertOutOfBounds(_DirectForwarding, AssertOutOfBoundsWrapper):
    """``AssertOutOfBoundsWrapper``: an action outside ``Discrete(n)`` is an ``AssertionError``."""

    def step(self, action: Any) -> None:
        env = self.env
        agent = env.agent_selection
        if action is None:
            ok = env.terminations[agent] or env.truncations[agent]
        else:
            # Discrete.contains, without its per-call numpy dtype inspection
            space = env.action_space(agent)
            try:
                ok = int(action) == action and 0 <= int(action) - space.start < space.n
            except (TypeError, ValueError, OverflowError):  # int(inf) overflows
                ok = False
        assert ok, "action is not in action space"
        env.step(action)


class OrderEnforcing(_DirectForwarding, OrderEnforcingWrapper):
    """``OrderEnforcingWrapper``: no step, observe, render or state before ``reset()``."""

    def _check_reset(self, name: str) -> None:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")

    @property
    def agent_selection(self) -> str:
        self._check_reset("agent_selection")
        return self.env.agent_selection

    @property
    def agents(self) -> list[str]:
        self._check_reset("agents")
        return self.env.agents

    @property
    def terminations(self) -> dict[str, bool]:
        self._check_reset("terminations")
        return self.env.terminations

    @property
    def truncations(self) -> dict[str, bool]:
        self._check_reset("truncations")
        return self.env.truncations

    @property
    def rewards(self) -> dict[str, float]:
        self._check_reset("rewards")
        return self.env.rewards

    @property
    def infos(self) -> dict[str, dict]:
        self._check_reset("infos")
        return self.env.infos

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict]:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.last(observe)
