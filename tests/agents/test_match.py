"""The one game loop: hooks, the result it reads, illegal actions, seating and seeds."""

from __future__ import annotations

import numpy as np
import pytest
from positions import TABLES

from grove_env import grove_v1
from grove_env.agents.arena.match import (
    IllegalActionError,
    Step,
    decision_positions,
    game_seeds,
    play_game,
    play_games,
    seat_of,
)
from grove_env.agents.base import BaseAgent, make_agent


class AlwaysZero(BaseAgent):
    name = "always-zero"

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return 0


@pytest.mark.parametrize("rules,n", TABLES)
def test_hooks_see_every_move_and_the_result_adds_them_up(rules: str, n: int) -> None:
    env = grove_v1.raw_env(num_players=n, rules=rules, reward="markers")
    agents = [make_agent("random", seed=s) for s in range(n)]
    asked: list[int] = []
    steps: list[Step] = []

    def before_act(seat: int, observation: dict[str, np.ndarray]) -> None:
        assert observation["action_mask"].any()
        asked.append(seat)

    result = play_game(env, agents, seed=n, before_act=before_act, after_step=steps.append)
    game = env.game
    assert game is not None
    assert [s.seat for s in steps] == asked
    assert [asked.count(s) for s in range(n)] == list(result.decisions)
    for seat in range(n):
        paid = sum(step.rewards[seat] for step in steps)
        assert result.rewards[seat] == pytest.approx(paid)
    assert sum(s.round_ended for s in steps) == len(game.history) == result.rounds
    assert list(result.standings) == game.standings()
    assert list(result.scores) == game.scores()
    assert result.truncated is not game.terminal
    assert list(result.ended_by) == game.end_triggers()
    assert env.agents == []  # the finished seats were stepped out


def test_same_seed_same_game() -> None:
    def one() -> tuple:
        agents = [make_agent("random", seed=s) for s in range(4)]
        steps: list[Step] = []
        play_game(grove_v1.raw_env(num_players=4), agents, seed=5, after_step=steps.append)
        return tuple((s.seat, s.action) for s in steps)

    assert one() == one()


def test_cut_off_game_is_truncated() -> None:
    env = grove_v1.raw_env(num_players=3, max_rounds=1)
    result = play_game(env, [make_agent("random", seed=s) for s in range(3)], seed=0)
    assert result.truncated and result.rounds == 1 and result.ended_by == ()


def test_masked_action_raises_before_the_env_sees_it() -> None:
    env = grove_v1.raw_env(num_players=2)
    agents = [AlwaysZero(), make_agent("random", seed=0)]
    masks: list[np.ndarray] = []
    with pytest.raises(IllegalActionError, match="'always-zero' at seat 0 played 0, which is not"):
        for seed in range(50):  # action 0 is legal only in some phases: it fails soon
            play_game(
                env, agents, seed=seed, before_act=lambda _, obs: masks.append(obs["action_mask"])
            )
    assert masks[-1][0] == 0  # the agent's own last mask forbade it
    assert env.agent_selection == "player_0" and env.agents  # and the env never stepped it


def test_one_agent_per_seat() -> None:
    with pytest.raises(ValueError, match="3 players need 3 agents, got 2"):
        play_game(grove_v1.raw_env(num_players=3), [AlwaysZero(), AlwaysZero()])


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_every_entry_takes_every_seat_once_per_block(n: int) -> None:
    for block in range(3):
        games = range(block * n, (block + 1) * n)
        for entry in range(n):
            assert sorted(seat_of(entry, g, n) for g in games) == list(range(n))
        for g in games:
            assert sorted(seat_of(e, g, n) for e in range(n)) == list(range(n))


def test_game_seeds_depend_on_seed_and_game_only() -> None:
    assert game_seeds(3, 7, 4) == game_seeds(3, 7, 4)
    env_seed, agent_seeds = game_seeds(3, 7, 4)
    assert len(agent_seeds) == 4 and len({env_seed, *agent_seeds}) == 5
    assert game_seeds(3, 8, 4) != game_seeds(3, 7, 4) != game_seeds(4, 7, 4)


def test_decision_positions_are_decisions_of_the_seat_to_act() -> None:
    rows, masks = decision_positions("classic", 4, 50, seed=2)
    assert rows.shape == (50, 125) and masks.shape == (50, 10)
    assert masks.any(axis=1).all()  # every row is a decision with a legal move
    again, _ = decision_positions("classic", 4, 50, seed=2)
    np.testing.assert_array_equal(rows, again)


class CountingStyle(BaseAgent):
    """A deterministic agent (greedy) that records how it was asked."""

    name = "counting"
    deterministic = True

    def __init__(self) -> None:
        self.inner = make_agent("greedy")
        self.batches: list[int] = []
        self.singles = 0

    def act(self, observation: dict[str, np.ndarray]) -> int:
        self.singles += 1
        return self.inner.act(observation)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        self.batches.append(len(observations))
        return self.inner.act_batch(observations, masks)


@pytest.mark.parametrize("rules,n", [("classic", 4), ("revised", 3)])
def test_games_in_lockstep_are_the_games_played_one_by_one(rules: str, n: int) -> None:
    # One shared deterministic agent in every game, seeded random agents per game:
    # playing 12 games together gives each game exactly the result it has alone, and the
    # shared agent is asked in batches (one act_batch per step), never one by one.
    def tables(shared: BaseAgent) -> list[list]:
        return [
            [shared] + [make_agent("random", seed=100 * g + s) for s in range(n - 1)]
            for g in range(12)
        ]

    shared = CountingStyle()
    alone = [
        play_game(grove_v1.raw_env(num_players=n, rules=rules), seats, seed=g)
        for g, seats in enumerate(tables(shared))
    ]
    assert shared.batches == [] and shared.singles > 0
    together_agent = CountingStyle()
    envs = [grove_v1.raw_env(num_players=n, rules=rules) for _ in range(12)]
    together = play_games(envs, tables(together_agent), list(range(12)))
    assert together == alone
    assert together_agent.singles <= 12  # only when a single game is left wanting it
    assert sum(together_agent.batches) + together_agent.singles == shared.singles
    assert max(together_agent.batches) > 1
