"""In a Grove (藪の中, Hattari) as a PettingZoo AEC environment: ``grove_v1``.

====================  ===============================================================
Import                ``from grove_env import grove_v1``
Actions               Discrete(10), one space for every phase (see below)
Parallel API          No (turn-based)
Manual control        ``python -m grove_env.agents.cli.play``
Agents                ``agents = ["player_0", ..., "player_{n-1}"]``, n = 2..5
Action shape          ``()``
Action values         0..9
Observation shape     ``{"observation": (125,), "action_mask": (10,)}``
Observation values    ``observation`` float32 (one-hots, counts / 10, round / 100);
                      ``action_mask`` int8 in {0, 1}
State shape           (197,) float32, see :mod:`grove_env.global_state`
Rewards               ``outcome``: zero-sum in [-1, 1] at the end; ``markers``: dense
====================  ===============================================================

Usage::

    from grove_env import grove_v1
    env = grove_v1.env(num_players=4, rules="classic", render_mode="ansi")
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else \\
            env.action_space(agent).sample(obs["action_mask"])
        env.step(action)

Arguments
---------
``num_players`` (default 4): 2-4 for ``classic``, 2-5 for ``revised``.
``rules`` (default ``"classic"``): ``"classic"``, ``"revised"`` or a :class:`RuleSet`.
``reward`` (default ``"outcome"``): ``"outcome"`` or ``"markers"`` (see Rewards).
``max_rounds`` (default 100): after this many rounds an unfinished game is truncated.
The final observation of a truncated game shows the next round's deal, as the game
would go on (the state a value function should bootstrap from).
``render_mode``: ``None``, ``"ansi"``, ``"human"`` or ``"rgb_array"`` (needs Pillow:
``pip install grove-env[render]``).
``illegal_action`` (default ``"raise"``): a masked action raises ``ValueError`` and
leaves the game as it was; ``"terminate"`` ends the game instead, paying
``illegal_reward`` (default -1) to the offender and 0 to the others.

``reset(seed=..., options={"deal": tiles})`` forces the first round's deal: the tiles
dealt to seats 0..n-1, suspect slots 0, 1, 2, the victim, then the face-up spare
(revised, two players); blank and X are 0.

Actions
-------
0-2 leave slot k unseen (look at the other two; first player only), 3 keep the victim,
4-6 swap the victim with seen slot k (classic first player only), 7-9 accuse slot k.
The mask is all zeros for an agent that is not to act.

Observation
-----------
Egocentric: seats are rotated so the observer is relative seat 0, padded to 5 seats,
the same shape for every rule set and player count. It holds exactly the agent's
information state; the index table is :mod:`grove_env.observation`, and
:func:`grove_env.observation.decode` turns a vector back into readable fields.

Rewards
-------
``outcome``: at the game's end each seat gets (seats ranked strictly worse - seats
ranked strictly better) / (n - 1). A truncated game pays nothing.
``markers``: at each round's end each seat gets minus the change of its own score
count (classic: markers held; revised: penalty markers), centred so they sum to zero.
Rewards are written to ``env.rewards`` on every step and accumulated into what
``last()`` returns, for every agent, losers included.

Infos
-----
Every agent's info holds the same flat keys from ``reset()`` on, each an int or an
array of one fixed shape for a given table, so libraries that store infos in arrays
(Tianshou's buffers, TorchRL's specs) can stack them; ``n`` is the number of players.
The action mask is in the observation only, as in PettingZoo's classic games:

=====================  ============  ======================================================
key                    shape         value
=====================  ============  ======================================================
``round``              int           the latest finished round, 1-based (0: none yet)
``suspects``           int64[3]      its tiles in suspect slots 0, 1, 2 (-1: none yet)
``culprit``            int           its culprit's slot (-1: none yet)
``stacks``             int64[3, n]   per slot, its accusing seats bottom to top, padded
                                     with -1
``coloured``           int64[n]      coloured markers held after it
``penalty``            int64[n]      penalty markers held after it
``scores``             int64[n]      each seat's score count (classic: markers held;
                                     revised: penalty markers), final at the game's end
``standings``          int           at the game's end 1 is best, ties share; 0 before
``ended_by``           bool[n]       seats whose counts ended the game (none if truncated)
``illegal_action_by``  int           seat that played a masked action under
                                     ``illegal_action="terminate"``, else -1
=====================  ============  ======================================================

The arrays are read-only and shared: they are built only when a round or the game ends,
and one array serves every agent's info (and any round or env with the same contents).
Writing to one, or setting its ``flags.writeable`` back to ``True``, raises
``ValueError``; take a copy (``np.array(info["stacks"])``) to write. Each agent's info is
a dict of its own, so replacing an entry in it leaves the other agents' infos as they were.

Version history
---------------
* v1: fixed-shape infos. The flat entries above replace v0's ``round_result`` dict
  (whose ``stacks`` was a list of lists), ``ended_by`` as a list of seats and
  ``illegal_action_by`` as an agent name, and all are present from ``reset()``; the
  copy of the action mask left the infos. Observations, actions, rewards and seeding
  are unchanged. ``grove_env.grove_v0`` now only raises a clear error.
* v0: first release.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from grove_env.actions import NUM_ACTIONS, action_name, legal_actions
from grove_env.core import Game
from grove_env.env_checks import ILLEGAL_MODES as ILLEGAL_MODES  # its old home; re-exported
from grove_env.env_checks import check_arguments, deal_game, forced_deals
from grove_env.env_infos import NO_MOVES, end_info, frozen, mask_for, round_info, start_info
from grove_env.global_state import STATE_HIGH, STATE_SIZE, encode_state
from grove_env.observation import OBS_HIGH, OBS_SIZE, ObservationEncoder
from grove_env.render import RENDER_MODES, render
from grove_env.rules import RuleSet, get_rules
from grove_env.standings import markers_rewards
from grove_env.wrappers import AssertOutOfBounds, OrderEnforcing


def env(**kwargs: Any) -> AECEnv:
    """The environment wrapped in PettingZoo's out-of-bounds and order-enforcing checks.

    The wrappers are subclasses of PettingZoo's own that forward the per-turn look-ups
    directly (see :mod:`grove_env.wrappers`).
    """
    return OrderEnforcing(AssertOutOfBounds(raw_env(**kwargs)))


class raw_env(AECEnv):  # noqa: N801 - PettingZoo's naming convention
    """The unwrapped AEC environment; see the module docstring."""

    metadata = {
        "name": "grove_v1",
        "render_modes": RENDER_MODES,
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        num_players: int = 4,
        rules: str | RuleSet = "classic",
        reward: str = "outcome",
        max_rounds: int = 100,
        render_mode: str | None = None,
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
    ) -> None:
        super().__init__()
        self.rule_set = get_rules(rules)
        self.num_players = self.rule_set.check_players(num_players)
        check_arguments(reward, max_rounds, render_mode, illegal_action)
        self.reward_mode = reward
        self.max_rounds = max_rounds
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)

        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self._encoder = ObservationEncoder(self.rule_set, num_players)
        self._observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, OBS_HIGH, (OBS_SIZE,), np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
            }
        )
        self._action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_spaces = dict.fromkeys(self.possible_agents, self._observation_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, self._action_space)
        self.state_space = spaces.Box(0.0, STATE_HIGH, (STATE_SIZE,), np.float32)
        self._seeder = random.Random()
        self.game: Game | None = None

    # ----------------------------------------------------------------- spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[self._known(agent)]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[self._known(agent)]

    def _known(self, agent: str) -> str:
        if agent not in self.observation_spaces:
            raise ValueError(f"unknown agent {agent!r}; the agents are {self.possible_agents}")
        return agent

    # ----------------------------------------------------------------- reset
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        # Everything is checked, and the game dealt, before any state changes: a rejected
        # seed, option or deal leaves the env as it was.
        deals = forced_deals(seed, options)
        seeder = random.Random(seed) if seed is not None else self._seeder
        game = deal_game(self.rule_set, self.num_players, seeder, deals)
        if seed is not None:
            self._seeder = seeder
            self._action_space.seed(int(seed))
        self.game = game
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        start = start_info(self.game)
        self.infos: dict[str, dict[str, Any]] = {a: dict(start) for a in self.agents}
        self._round_start_scores = self.game.scores()
        self._select_current()

    def _select_current(self) -> None:
        game = self.game
        assert game is not None
        self.agent_selection = self.possible_agents[game.current_player]
        self._live_legal = legal_actions(game.phase, game.unseen_slot)
        self._live_mask = mask_for(self._live_legal)

    # ----------------------------------------------------------------- observe
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        game = self.game
        assert game is not None, "call reset() before observe()"
        seat = self.agent_name_mapping[agent]
        # A truncated game has already dealt the next round, and an illegal move under
        # illegal_action="terminate" leaves the offender as the current player: neither
        # may show a live mask once the agent is done.
        live = (
            seat == game.current_player
            and not game.terminal
            and agent in self.agents
            and not (self.terminations[agent] or self.truncations[agent])
        )
        return {
            "observation": self._encoder.encode(game, seat),
            "action_mask": self._live_mask.copy() if live else NO_MOVES.copy(),
        }

    def state(self) -> np.ndarray:
        assert self.game is not None, "call reset() before state()"
        return encode_state(self._encoder, self.game)

    # ----------------------------------------------------------------- step
    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        assert game is not None
        move = self._check_action(agent, action)
        if move is None:
            return
        self._cumulative_rewards[agent] = 0.0
        rewards = self.rewards = dict.fromkeys(self.agents, 0.0)
        record = game.apply_action(move)
        if record is not None:
            result = round_info(game, record)
            result["scores"] = frozen(tuple(game.scores()))
            for info in self.infos.values():
                info.update(result)
            if self.reward_mode == "markers":
                scores = game.scores()
                paid = markers_rewards(self._round_start_scores, scores)
                for a, r in zip(self.possible_agents, paid):
                    rewards[a] += r
                self._round_start_scores = scores
            if game.terminal:
                self._finish(terminated=True)
            elif record.number >= self.max_rounds:
                self._finish(terminated=False)
        if not game.terminal and not self.truncations[agent]:
            self._select_current()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _check_action(self, agent: str, action: Any) -> int | None:
        """The action as an int if legal; otherwise raise, or end the game (None)."""
        assert self.game is not None
        try:
            move = int(action)
            if move != action:
                raise ValueError
        except (TypeError, ValueError, OverflowError):  # int(inf) overflows
            raise ValueError(
                f"{agent}: action must be an int in 0..{NUM_ACTIONS - 1}, got {action!r}"
            ) from None
        if move in self._live_legal:
            return move
        legal = self.game.legal_actions()
        if self.illegal_action == "raise":
            names = ", ".join(f"{a} ({action_name(a)})" for a in legal)
            raise ValueError(
                f"{agent} played illegal action {action} in phase "
                f"{self.game.phase.name.lower()}; legal actions: {names}"
            )
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = self.illegal_reward
        for a in self.agents:
            self.infos[a]["illegal_action_by"] = self.agent_name_mapping[agent]
        self.terminations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()
        return None

    def _finish(self, terminated: bool) -> None:
        game = self.game
        assert game is not None
        if terminated:
            if self.reward_mode == "outcome":
                for a, r in zip(self.possible_agents, game.returns()):
                    self.rewards[a] += r
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.truncations = dict.fromkeys(self.agents, True)
        standings, scores, ended_by = end_info(game)
        for a, seat in self.agent_name_mapping.items():
            info = self.infos[a]
            info["standings"] = standings[seat]
            info["scores"] = scores
            info["ended_by"] = ended_by

    # ----------------------------------------------------------------- render
    def render(self) -> str | np.ndarray | None:
        return render(self.game, self.render_mode)

    def close(self) -> None:
        pass
