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
from pettingzoo.utils.wrappers.order_enforcing import (
    AECOrderEnforcingIterable,
    AECOrderEnforcingIterator,
)


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
                move = int(action)
                ok = move == action and 0 <= move - space.start < space.n
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

    def step(self, action: Any) -> None:
        # OrderEnforcingWrapper.step without its two super() hops; reset() is never undone,
        # so once it has run, self.env.agents is what the checked self.agents would read.
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not self.env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            self.env.step(action)

    def agent_iter(self, max_iter: int = 2**63) -> AECOrderEnforcingIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _OrderIterable(self, max_iter)


class _OrderIterable(AECOrderEnforcingIterable):
    def __iter__(self) -> AECOrderEnforcingIterator:
        return _OrderIterator(self.env, self.max_iter)


class _OrderIterator(AECOrderEnforcingIterator):
    """``AECOrderEnforcingIterator`` with its ``__next__`` in one call.

    ``agent_iter`` refuses to start before ``reset()``, so the wrapped env's ``agents``
    and ``agent_selection`` are read without the wrapper's reset check.
    """

    def __next__(self) -> str:
        wrapper = self.env
        env = wrapper.env
        if not env.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert wrapper._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        wrapper._has_updated = False
        return env.agent_selection
