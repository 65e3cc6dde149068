"""PettingZoo's standard checks, with the per-turn look-ups forwarded directly.

:class:`pettingzoo.utils.wrappers.BaseWrapper` reaches the wrapped env's attributes
through ``__getattr__``, which Python only calls after a failed normal look-up; with two
wrappers, ``last()`` and ``agent_iter()`` pay that several times a turn, on the hot
path of every game loop (``benchmarks/aec_throughput.py`` measures the wrapped env).
These subclasses keep the standard wrappers' behaviour and types (``isinstance``
checks still hold, and ``agent_iter`` still enforces the step/reset order) but forward
the hot attributes with properties and ``last()`` in one call.

:class:`TextObservations` is the text observation mode: each seat's information state as
JSON and as prose, moves taken by name (:mod:`grove_env.text_mode`).
"""

from __future__ import annotations

import json
import string
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import AssertOutOfBoundsWrapper, BaseWrapper, OrderEnforcingWrapper
from pettingzoo.utils.wrappers.order_enforcing import (
    AECOrderEnforcingIterable,
    AECOrderEnforcingIterator,
)

from grove_env.actions import NUM_ACTIONS
from grove_env.text_mode import parse_move, seat_json, seat_prose


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


class TextObservations(BaseWrapper):
    """The text observation mode (:mod:`grove_env.text_mode`) as a PettingZoo wrapper.

    Each seat observes ``{"json": str, "text": str, "action_mask": int8[10]}``: its
    information state as JSON (:func:`~grove_env.text_mode.seat_json`, dumped with sorted
    keys) and in words (:func:`~grove_env.text_mode.seat_prose`), each listing the legal
    moves by name. :meth:`step` takes a move's name (or the action number); a name that
    is not a legal move is a ``ValueError`` of one line that lists the legal ones.

    >>> from grove_env import grove_v1
    >>> env = TextObservations(grove_v1.env(num_players=3))
    >>> env.reset(seed=0)
    >>> seen = env.observe(env.agent_selection)
    >>> json.loads(seen["json"])["phase"], seen["text"].splitlines()[-1]
    ('look', '  - leave slot 2 unseen')
    >>> env.step("leave slot 1 unseen")
    """

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        text = spaces.Text(max_length=8192, charset=string.printable)
        mask = spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8)
        self._space = spaces.Dict({"json": text, "text": text, "action_mask": mask})

    def observation_space(self, agent: str) -> spaces.Space:
        return self._space

    def observe(self, agent: str) -> dict[str, Any] | None:
        seen = super().observe(agent)
        if seen is None:
            return None
        obs, mask = seen["observation"], seen["action_mask"]
        view = json.dumps(seat_json(obs, mask), sort_keys=True)
        return {"json": view, "text": seat_prose(obs, mask), "action_mask": mask}

    def step(self, action: Any) -> None:
        if isinstance(action, str):
            agent = self.env.agent_selection
            action = parse_move(action, self.env.observe(agent)["action_mask"])
        super().step(action)
