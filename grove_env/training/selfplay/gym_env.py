"""``grove_env/SelfPlay-v0``: the batched self-play games as a ``gymnasium.vector.VectorEnv``.

Any single-agent library trains at the batched engine's speed through it::

    import gymnasium
    import grove_env.training.selfplay.gym_env  # registers grove_env/SelfPlay-v0
    envs = gymnasium.make_vec("grove_env/SelfPlay-v0", num_envs=256,
                              opponents=["heuristic", "random"], num_players=4)
    obs, infos = envs.reset(seed=0)
    obs, rewards, terminations, truncations, infos = envs.step(actions)

(``gymnasium.make_vec("grove_env.training.selfplay.gym_env:grove_env/SelfPlay-v0", ...)``
imports the module itself.) Sub-environment ``b`` is one game of
:class:`~grove_env.training.selfplay.games.SelfPlayGames`, seen from its learner seat; the
other seats are played, batched, by the opponents (the credit assignment is that
module's design note).

=====================  ===========================================================
Arguments              ``opponents``: an agent spec (``"random"``, ``"heuristic"``,
                       ``"greedy"``, ``"ppo:PATH"``...) or a list of them, one drawn
                       per game (``opponent_sampling="game"``) or per seat
                       (``"seat"``), weighted by ``opponent_weights`` (default
                       uniform); or an :class:`~grove_env.training.selfplay.opponents.Opponents`.
                       The table: ``rules``, ``num_players``, ``reward`` (``outcome``,
                       ``markers``, ``win``), ``max_rounds``, ``learner_seat``
                       (``rotate``, ``random``), ``seed``
Observation            ``Dict(observation=Box(125,) float32, action_mask=Box(10,)
                       int8)`` per game, as ``grove_v1`` shows a seat
Action                 ``Discrete(10)`` per game; only masked-legal moves are allowed
Autoreset              ``AutoresetMode.NEXT_STEP`` (gymnasium's default, what RLlib
                       expects): the step that ends a game returns its last
                       observation; the next step ignores that slot's action and
                       returns the new game's first observation, reward 0
Infos                  where a game ended: ``episode`` (``r``, ``l``), ``win_points``,
                       ``rank``, ``opponents`` (label), each with gymnasium's ``_key``
                       mask
=====================  ===========================================================
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from grove_env.actions import NUM_ACTIONS
from grove_env.observation import OBS_HIGH, OBS_SIZE
from grove_env.training.selfplay.games import OpponentSeats, SelfPlayGames
from grove_env.training.selfplay.opponents import Opponents

ENV_ID = "grove_env/SelfPlay-v0"

SINGLE_OBSERVATION_SPACE = spaces.Dict(
    {
        "observation": spaces.Box(0.0, OBS_HIGH, (OBS_SIZE,), np.float32),
        "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
    }
)


def agent_opponents(
    specs: str | Sequence[str],
    sampling: str = "game",
    seed: int | None = None,
    weights: Sequence[float] | None = None,
) -> Opponents:
    """Opponents named by agent specs; each game (or seat) draws one (uniformly or by
    weight; a spec named twice adds up its weights)."""
    specs = [specs] if isinstance(specs, str) else list(specs)
    if not specs:
        raise ValueError("opponents: give at least one agent spec, e.g. 'random'")
    w = np.ones(len(specs)) if weights is None else np.asarray(weights, dtype=float)
    if w.shape != (len(specs),) or not np.isfinite(w).all() or (w < 0).any() or w.sum() <= 0:
        raise ValueError(f"opponent weights: one >= 0 per spec with a positive sum, got {weights}")
    if sampling not in ("game", "seat"):
        raise ValueError(f"opponent_sampling must be 'game' or 'seat', got {sampling!r}")
    if "live" in specs or "pool" in specs:
        raise ValueError(
            "SelfPlay-v0 has no learner of its own to copy: 'live' and 'pool' are "
            "for train.py; name agent specs"
        )
    mix: dict[str, float] = {}
    for spec, weight in zip(specs, w):
        mix[spec] = mix.get(spec, 0.0) + float(weight)
    return Opponents(mix, sampling=sampling, seed=seed)


class SelfPlayVectorEnv(SelfPlayGames, VectorEnv):
    """``num_envs`` self-play games as one ``gymnasium.vector.VectorEnv`` (see module doc)."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int = 64,
        opponents: str | Sequence[str] | OpponentSeats = "random",
        rules: str = "classic",
        num_players: int = 4,
        reward: str = "outcome",
        max_rounds: int = 100,
        learner_seat: str = "rotate",
        opponent_sampling: str = "game",
        opponent_weights: Sequence[float] | None = None,
        seed: int | None = None,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be an int >= 1, got {num_envs!r}")
        if isinstance(opponents, (str, Sequence)):
            seats: OpponentSeats = agent_opponents(
                opponents, opponent_sampling, seed, opponent_weights
            )
        else:
            seats = opponents
        SelfPlayGames.__init__(
            self, num_envs, seats, rules, num_players, reward, max_rounds, learner_seat, seed
        )
        self.num_envs = num_envs
        self.single_observation_space = SINGLE_OBSERVATION_SPACE
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.render_mode = None
        self._pending = np.zeros(num_envs, dtype=bool)  # ended last step; restart shown next

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self.single_action_space.seed(seed)
            self.action_space.seed(seed)
        obs = self.restart(seed)
        self._pending[:] = False
        return self._observations(obs), {}

    def step(
        self, actions: Any
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        pending = self._pending
        actions = np.where(pending, 0, actions)  # a pending slot's action is ignored
        rewards, dones, infos = self.advance(
            actions, active=None if not pending.any() else ~pending
        )
        truncations = dones & self.truncated
        terminations = dones & ~self.truncated
        obs = self._observations(self.observe())
        if dones.any():  # NEXT_STEP: show each ended game's last observation now
            obs["observation"][dones] = self.final_observations[dones]
            obs["action_mask"][dones] = 0
        vector_infos: dict[str, Any] = {}
        for g in np.flatnonzero(dones).tolist():
            vector_infos = self._add_info(vector_infos, infos[g], g)
        self._pending = dones.copy()
        return obs, rewards.astype(np.float64), terminations, truncations, vector_infos

    def close_extras(self, **kwargs: Any) -> None:
        return None

    def _observations(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        return {
            "observation": np.asarray(obs, dtype=np.float32).copy(),
            "action_mask": self.action_masks().astype(np.int8),
        }


def make_selfplay_env(num_envs: int = 64, **kwargs: Any) -> SelfPlayVectorEnv:
    """The vector entry point of ``grove_env/SelfPlay-v0``."""
    kwargs.pop("max_episode_steps", None)  # games end by rounds (max_rounds), not steps
    return SelfPlayVectorEnv(num_envs, **kwargs)


if ENV_ID not in gymnasium.registry:
    gymnasium.register(ENV_ID, vector_entry_point=make_selfplay_env)
