"""One game between agents: the loop that tournaments, human play, scripts and tests share.

:func:`play_game` plays one game of a :class:`grove_env.grove_v1.raw_env` with one agent
per seat. Each agent sees only its own observation; an action its mask forbids raises
:class:`IllegalActionError` before the environment sees it. Two hooks let a caller
watch without copying the loop: ``before_act(seat, observation)`` runs before each
decision (a terminal shows the table), ``after_step(step)`` after each move (a
transcript, or invariant checks). The result is read when the game ends, before the
finished seats are stepped out of the environment.

Seating and seeding for series of games: in game ``g`` entry ``e`` sits at seat
:func:`seat_of` ``(e, g, n)``, so a block of ``n`` games seats every entry at every seat
once, and :func:`game_seeds` derives the deal's seed and one seed per entry from
``(seed, g)`` alone, so a game is the same whichever process plays it.

>>> from grove_env.grove_v1 import raw_env
>>> from grove_env.agents.base import make_agent
>>> agents = [make_agent("random", seed=s) for s in range(3)]
>>> result = play_game(raw_env(num_players=3), agents, seed=0)
>>> sorted(result.standings)[0], len(result.scores), sum(result.decisions) > 0
(1, 3, True)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from grove_env.grove_v1 import raw_env

from ..base import Agent
from ..scripted.random_agent import RandomAgent

Observation = dict[str, np.ndarray]


class IllegalActionError(RuntimeError):
    """An agent chose an action that its action mask forbids."""


@dataclass(frozen=True)
class Step:
    """One move, as ``after_step`` sees it."""

    seat: int
    action: int
    rewards: tuple[float, ...]  # what this move paid each seat
    round_ended: bool  # the move finished a round (``game.history`` grew)


@dataclass(frozen=True)
class GameResult:
    """A finished game, everything indexed by seat."""

    standings: tuple[int, ...]  # 1 is best, ties share
    scores: tuple[int, ...]  # the rule set's count at the end (fewer is better)
    rewards: tuple[float, ...]  # sum of the environment's rewards over the game
    decisions: tuple[int, ...]  # moves each seat made
    ended_by: tuple[int, ...]  # seats whose counts ended the game (none if truncated)
    truncated: bool  # cut off at ``max_rounds`` instead of ended by the rules
    rounds: int  # rounds played (``len(game.history)``)


def seat_of(entry: int, game: int, num_players: int) -> int:
    """The seat entry ``entry`` takes in game ``game`` (rotation by one seat per game).

    >>> [seat_of(0, g, 3) for g in range(4)]
    [0, 1, 2, 0]
    """
    return (entry + game) % num_players


def game_seeds(seed: int, game: int, num_entries: int) -> tuple[int, list[int]]:
    """The environment seed and one agent seed per entry for game ``game`` of a series."""
    state = np.random.SeedSequence([seed, game]).generate_state(num_entries + 1, np.uint64)
    return int(state[0]), [int(s) for s in state[1:]]


def is_legal(action: object, mask: np.ndarray) -> bool:
    """Whether ``action`` is an int that ``mask`` allows."""
    try:
        move = int(action)  # type: ignore[call-overload]
    except (TypeError, ValueError, OverflowError):  # int(inf) overflows
        return False
    return bool(move == action and 0 <= move < len(mask) and mask[move] == 1)


def play_game(
    env: raw_env,
    agents: Sequence[Agent],
    seed: int | None = None,
    *,
    before_act: Callable[[int, Observation], None] | None = None,
    after_step: Callable[[Step], None] | None = None,
) -> GameResult:
    """Reset ``env`` with ``seed`` and play one game, ``agents[s]`` at seat ``s``."""
    return play_games([env], [agents], [seed], before_act=before_act, after_step=after_step)[0]


def play_games(
    envs: Sequence[raw_env],
    agents: Sequence[Sequence[Agent]],
    seeds: Sequence[int | None],
    *,
    before_act: Callable[[int, Observation], None] | None = None,
    after_step: Callable[[Step], None] | None = None,
) -> list[GameResult]:
    """Play game ``g`` in ``envs[g]`` (reset with ``seeds[g]``), ``agents[g][s]`` at seat ``s``.

    The games move in lockstep, one decision each per step. Where one agent object
    sits in several games at once (a deterministic agent shared by a tournament's
    games), the decisions it owes are made in one ``act_batch`` call; every other
    decision is one ``act``. The hooks see every decision and move, game by game.
    """
    for env, seats in zip(envs, agents):
        if len(seats) != env.num_players:
            raise ValueError(
                f"{env.num_players} players need {env.num_players} agents, got {len(seats)}"
            )
    for env, seed in zip(envs, seeds):
        env.reset(seed=seed)
    totals = [[0.0] * env.num_players for env in envs]
    decisions = [[0] * env.num_players for env in envs]
    results: list[GameResult | None] = [None] * len(envs)
    playing = list(range(len(envs)))
    while playing:
        turns = []  # (game, seat, observation) of every game still being played
        for g in playing:
            env = envs[g]
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                results[g] = finish(env, totals[g], decisions[g])
                continue
            seat = env.agent_name_mapping[env.agent_selection]
            if before_act is not None:
                before_act(seat, observation)
            turns.append((g, seat, observation))
        playing = [g for g, _, _ in turns]
        for (g, seat, observation), action in zip(turns, decide(agents, turns)):
            if not is_legal(action, observation["action_mask"]):
                raise IllegalActionError(
                    f"agent {agents[g][seat].name!r} at seat {seat} played {action!r}, "
                    "which is not a legal action"
                )
            env, move = envs[g], int(action)  # type: ignore[call-overload]
            game = env.game
            assert game is not None
            rounds = len(game.history)
            env.step(move)
            decisions[g][seat] += 1
            for agent_name, reward in env.rewards.items():
                totals[g][env.agent_name_mapping[agent_name]] += reward
            if after_step is not None:
                paid = tuple(env.rewards[a] for a in env.possible_agents)
                after_step(Step(seat, move, paid, len(game.history) > rounds))
    return results  # type: ignore[return-value]


def decide(
    agents: Sequence[Sequence[Agent]], turns: list[tuple[int, int, Observation]]
) -> list[object]:
    """The action of every turn ``(game, seat, observation)``: one ``act_batch`` call per
    agent object that owes several of them, ``act`` for the rest."""
    owed: dict[int, list[int]] = {}
    for t, (g, seat, _) in enumerate(turns):
        owed.setdefault(id(agents[g][seat]), []).append(t)
    actions: list[object] = [None] * len(turns)
    for ts in owed.values():
        g, seat, _ = turns[ts[0]]
        agent = agents[g][seat]
        batch = getattr(agent, "act_batch", None)
        if len(ts) > 1 and callable(batch):
            obs = np.stack([turns[t][2]["observation"] for t in ts])
            masks = np.stack([turns[t][2]["action_mask"] for t in ts])
            for t, action in zip(ts, batch(obs, masks)):
                actions[t] = int(action)
        else:
            for t in ts:
                actions[t] = agent.act(turns[t][2])
    return actions


def finish(env: raw_env, totals: list[float], decisions: list[int]) -> GameResult:
    """The result of the game that just ended in ``env``; steps the finished seats out."""
    infos = env.infos
    last = infos[env.possible_agents[0]]
    result = GameResult(
        standings=tuple(int(infos[a]["standings"]) for a in env.possible_agents),
        scores=tuple(int(s) for s in last["scores"]),
        rewards=tuple(totals),
        decisions=tuple(decisions),
        ended_by=tuple(int(s) for s in np.flatnonzero(last["ended_by"])),
        truncated=bool(env.truncations[env.agent_selection]),
        rounds=len(env.game.history) if env.game is not None else 0,
    )
    while env.agents:  # step the finished seats out, as the AEC API expects
        env.step(None)
    return result


def decision_positions(
    rules: str, num_players: int, count: int, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """``count`` observations ``float32[count, 125]`` and masks ``int8[count, 10]``: every
    decision of random legal play, game after game (seeds ``seed``, ``seed + 1``, ...), for
    tests and benchmarks of agents."""
    env = raw_env(num_players=num_players, rules=rules)
    players = [RandomAgent(seed=seed + s) for s in range(num_players)]
    rows: list[np.ndarray] = []
    masks: list[np.ndarray] = []

    def keep(seat: int, observation: Observation) -> None:
        rows.append(observation["observation"])
        masks.append(observation["action_mask"])

    game = seed
    while len(rows) < count:
        play_game(env, players, game, before_act=keep)
        game += 1
    return np.stack(rows[:count]), np.stack(masks[:count])
