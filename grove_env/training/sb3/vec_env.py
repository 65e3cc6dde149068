"""An SB3 ``VecEnv`` over the batched engine, one learner seat per game: shared-weight self-play.

:class:`GroveSelfPlayVecEnv` is the SB3 face of :class:`~grove_env.training.selfplay.games.
SelfPlayGames`, whose design note says why the credit assignment is right: slot ``b``
is game ``b`` of one batched engine with exactly one *learner* seat; only that seat's
decisions enter the rollout, the opponents' moves between two of them are played
batched inside :meth:`step_wait`, and the learner's reward of a step sums its own move
and every opponent move up to its next decision (so the zero-sum terminal reward
reaches losers too). Episodes are games, and ended games restart at once.

What this adapter adds is SB3's conventions: a game cut off at ``max_rounds`` is an SB3
truncation, ``infos[b]["TimeLimit.truncated"] = True``, and
``infos[b]["terminal_observation"]`` is the learner seat's last observation of that
game, so MaskablePPO bootstraps its value. ``infos[b]`` of an ended game also holds
``episode`` (SB3 logs ``rollout/ep_rew_mean`` from it), ``win_points``, ``rank`` and
``opponents`` (see :mod:`grove_env.training.selfplay.games`).

MaskablePPO reads legal moves through ``env_method("action_masks")``; here it
returns the learner seats' masks as one ``bool[num_envs, 10]`` array.

With ``advice=True`` (``features: advice``) each observation row, the terminal ones
too, is followed by its :func:`~grove_env.agents.heuristic.advice.advice`, computed once here
rather than in every forward pass of the network.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from grove_env.actions import NUM_ACTIONS
from grove_env.agents.heuristic.advice import ADVICE_SIZE, advised
from grove_env.observation import OBS_HIGH, OBS_SIZE
from grove_env.training.selfplay.games import SelfPlayGames
from grove_env.training.selfplay.opponents import Opponents
from grove_env.training.selfplay.tables import table_seed


class InProcess(VecEnv):
    """The parts of SB3's ``VecEnv`` API that every in-process env here answers alike: all
    its games live in this process, so an attribute is one value for every slot."""

    num_envs: int

    def action_masks(self) -> np.ndarray:  # pragma: no cover - each env has its own
        raise NotImplementedError

    def close(self) -> None:
        return None

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        value = getattr(self, attr_name)
        return [value] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> Any:
        rows = self._indices(indices)
        if method_name == "action_masks":  # one array; get_action_masks np.stack()s it
            return self.action_masks()[rows]
        value = getattr(self, method_name)(*method_args, **method_kwargs)
        return [value] * len(rows)

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def _indices(self, indices: Any) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return list(indices)


class GroveSelfPlayVecEnv(SelfPlayGames, InProcess):
    """``num_envs`` games, each contributing its learner seat's decisions (see module doc)."""

    def __init__(
        self, num_envs: int, opponents: Opponents, *args: Any, advice: bool = False, **settings: Any
    ) -> None:
        """The games are :class:`SelfPlayGames`' (its parameters, passed on as given);
        ``advice``: each row followed by its advice (``features: advice``)."""
        SelfPlayGames.__init__(self, num_envs, opponents, *args, **settings)
        self.render_mode = None
        self.advice = advice
        low, high = np.zeros(OBS_SIZE, np.float32), OBS_HIGH
        if advice:  # centred move values lie within [-2, 2], the posterior in [0, 1]
            low = np.concatenate([low, np.full(ADVICE_SIZE, -2.0, np.float32)])
            high = np.concatenate([high, np.full(ADVICE_SIZE, 2.0, np.float32)])
        VecEnv.__init__(
            self, num_envs, spaces.Box(low, high, dtype=np.float32), spaces.Discrete(NUM_ACTIONS)
        )
        self.opponents: Opponents = opponents
        self._actions: np.ndarray | None = None

    # ----------------------------------------------------------------- VecEnv API
    def reset(self) -> np.ndarray:
        seed = self._seeds[0]  # set by VecEnv.seed(), used once
        self._reset_seeds()
        return self._rows(self.restart(seed))

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        assert self._actions is not None, "step_async first"
        rewards, dones, infos = self.advance(self._actions)
        self._actions = None
        ended = np.flatnonzero(dones)
        final = self._rows(self.final_observations[ended])
        for i, g in enumerate(ended.tolist()):
            infos[g]["TimeLimit.truncated"] = bool(self.truncated[g])
            infos[g]["terminal_observation"] = final[i]
        return self._rows(self.observe()), rewards, dones, infos

    def _rows(self, observations: np.ndarray) -> np.ndarray:
        """What the policy reads: the observations, followed by their advice if asked."""
        return advised(observations) if self.advice else observations


class TablesVecEnv(InProcess):
    """Several tables' self-play games as one SB3 ``VecEnv`` (``tables`` in the config).

    Slots ``0 .. k0 - 1`` are the first table's games, and so on; the tables share one
    :class:`~grove_env.training.selfplay.opponents.Opponents`, so the live weights and the
    snapshot pool are the same on every table. One network plays them all: the
    observation has one shape for every rule set and player count.
    """

    def __init__(self, envs: Sequence[GroveSelfPlayVecEnv]) -> None:
        self.envs = list(envs)
        self.opponents: Opponents = self.envs[0].opponents
        if any(e.opponents is not self.opponents for e in self.envs):
            raise ValueError("the tables of one run share their opponents")
        self.bounds = np.cumsum([0] + [e.num_envs for e in self.envs])
        self.render_mode = None
        first = self.envs[0]
        VecEnv.__init__(self, int(self.bounds[-1]), first.observation_space, first.action_space)
        self._actions: np.ndarray | None = None

    def seed(self, seed: int | None = None) -> list[int | None]:
        for i, env in enumerate(self.envs):
            env.seed(None if seed is None else table_seed(seed, i))
        return [seed] * self.num_envs

    def reset(self) -> np.ndarray:
        return np.concatenate([env.reset() for env in self.envs])

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        assert self._actions is not None, "step_async first"
        parts = [
            env.step(self._actions[lo:hi])
            for env, lo, hi in zip(self.envs, self.bounds[:-1], self.bounds[1:])
        ]
        self._actions = None
        infos = [info for part in parts for info in part[3]]
        return (
            np.concatenate([p[0] for p in parts]),
            np.concatenate([p[1] for p in parts]),
            np.concatenate([p[2] for p in parts]),
            infos,
        )

    def action_masks(self) -> np.ndarray:
        return np.concatenate([env.action_masks() for env in self.envs])

    def pop_results(self) -> dict[str, tuple[int, float]]:
        """Games and mean win points per ``opponent@rules:players`` since the last call."""
        return {
            f"{label}@{table_name(env)}": result
            for env in self.envs
            for label, result in env.pop_results().items()
        }


def table_name(env: GroveSelfPlayVecEnv) -> str:
    """``rules:players`` of a self-play VecEnv's table."""
    return f"{env.game.rules.name}:{env.num_players}"
