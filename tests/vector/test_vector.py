"""The batched engine against the reference: grove_v1 game by game, same deals and moves.

The differential test plays every rule set and player count in both reward modes,
with a round limit that ends most games naturally and one that truncates many, and
compares, at every step and for every game: every seat's observation, the mask, the
player to act, every seat's reward, round results, terminations, truncations, final
scores and ranks, and every seat's last observation of a finished game. Both engines
get the same forced deal in every round and the same random legal actions, and a
random fifth of the games sit out each step (``active``), so games drift apart into
different phases; the seeds only make the inputs, no expected value depends on a
random stream.

``GROVE_VECTOR_GAMES`` sets the games per run (default 50, four runs per table, so
200 games per rule set and player count); the ``slow`` test, run with ``GROVE_SLOW=1``,
plays 1,000 per run (4,000 per table).
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from positions import TABLES

from grove_env.core import Game
from grove_env.grove_v1 import raw_env
from grove_env.rules import get_rules
from grove_env.vector import StepResult, VectorGame

RUNS = [("outcome", 100), ("outcome", 5), ("markers", 100), ("markers", 5)]
GAMES = int(os.environ.get("GROVE_VECTOR_GAMES", "50"))


def random_deals(rules: str, n: int, games: int, rounds: int, seed: int) -> np.ndarray:
    """int[games, rounds, tiles]: a shuffled deal per game and round."""
    tiles = np.array(get_rules(rules).tiles(n))
    rng = np.random.default_rng(seed)
    return rng.permuted(np.broadcast_to(tiles, (games, rounds, len(tiles))), axis=2)


def differential(rules: str, n: int, reward: str, max_rounds: int, games: int, seed: int) -> None:
    """Play ``games`` games in both engines and assert they agree at every step."""
    rng = np.random.default_rng(seed)
    agents = [f"player_{s}" for s in range(n)]
    deals = random_deals(rules, n, games, max_rounds + 1, seed)
    envs = []
    for g in range(games):
        env = raw_env(num_players=n, rules=rules, reward=reward, max_rounds=max_rounds)
        env.reset(seed=g, options={"deal": deals[g, 0].tolist()})
        assert env.game is not None
        env.game._forced = [tuple(d) for d in deals[g, 1:].tolist()]
        envs.append(env)
    vg = VectorGame(
        games, rules, n, reward=reward, max_rounds=max_rounds, seed=seed, final_observations=True
    )
    vg.force_deals(deals)
    vg.reset()
    alive = np.ones(games, dtype=bool)  # the game's first game is still going
    steps = 0
    while alive.any():
        live = np.flatnonzero(alive)
        where = f"{rules} n={n} {reward} max_rounds={max_rounds} step {steps}"
        for seat in range(n):
            obs = vg.observe(np.full(games, seat))[live]
            ref = np.stack([envs[g].observe(agents[seat])["observation"] for g in live])
            bad = np.flatnonzero((obs != ref).any(axis=1))
            assert not bad.size, f"{where}: observation of seat {seat} differs in {live[bad]}"
        masks = vg.action_masks()
        current = vg.current_player
        actions = np.zeros(games, dtype=np.int64)
        for g in live:
            env = envs[g]
            assert env.agent_selection == agents[current[g]], f"{where} game {g}"
            ref_mask = env.observe(env.agent_selection)["action_mask"].astype(bool)
            assert (masks[g] == ref_mask).all(), f"{where} game {g}: masks differ"
            actions[g] = rng.choice(np.flatnonzero(masks[g]))
        # A fifth of the games sit out each step, so games drift into different phases.
        active = alive & (rng.random(games) < 0.8)
        history = [len(envs[g].game.history) for g in range(games)]
        result = vg.step(actions, active)
        ended = set()
        for g in np.flatnonzero(active):
            env = envs[g]
            env.step(int(actions[g]))
            assert np.allclose(result.rewards[g], [env.rewards[a] for a in agents], atol=1e-6), (
                f"{where} game {g}: rewards {result.rewards[g]} vs {env.rewards}"
            )
            round_ended = len(env.game.history) > history[g]
            assert result.round_ended[g] == round_ended, f"{where} game {g}"
            if round_ended:
                got = vg.round_results.as_info(g)
                assert got == env.game.history[-1].as_info(), f"{where} game {g}"
            terminated, truncated = env.terminations[agents[0]], env.truncations[agents[0]]
            assert result.terminated[g] == terminated, f"{where} game {g}"
            assert result.truncated[g] == truncated, f"{where} game {g}"
            if terminated or truncated:
                ended.add(g)
                assert result.final_ranks[g].tolist() == [env.infos[a]["standings"] for a in agents]
                assert result.final_scores[g].tolist() == env.infos[agents[0]]["scores"].tolist()
                i = int(np.flatnonzero(result.ended_games == g)[0])
                assert result.final_observations is not None
                for seat, a in enumerate(agents):
                    ref_obs = env.observe(a)["observation"]
                    assert (result.final_observations[i, seat] == ref_obs).all(), (
                        f"{where} game {g}: final observation of seat {seat} differs"
                    )
                alive[g] = False
        assert set(result.ended_games.tolist()) == ended, where
        idle = ~active
        assert not (result.round_ended[idle].any() or result.rewards[idle].any()), where
        steps += 1


@pytest.mark.parametrize(("reward", "max_rounds"), RUNS)
@pytest.mark.parametrize(("rules", "n"), TABLES)
def test_matches_grove_v1(rules: str, n: int, reward: str, max_rounds: int) -> None:
    seed = (
        1000 * n + max_rounds + (0 if rules == "classic" else 7) + (0 if reward == "outcome" else 3)
    )
    differential(rules, n, reward, max_rounds, GAMES, seed)


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("GROVE_SLOW") != "1", reason="set GROVE_SLOW=1 (~6 min)")
@pytest.mark.parametrize(("rules", "n"), TABLES)
def test_matches_grove_v1_many_games(rules: str, n: int) -> None:
    for i, (reward, max_rounds) in enumerate(RUNS):
        differential(rules, n, reward, max_rounds, 1000, seed=10_000 + 100 * n + i)


# --------------------------------------------------------------------- unit tests


def play_random(vg: VectorGame, steps: int, seed: int) -> Iterator[StepResult]:
    """Random legal play for ``steps`` steps, yielding each step's result."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        keys = rng.random((vg.num_games, 10)) * vg.action_masks()
        yield vg.step(keys.argmax(axis=1))


def test_known_round() -> None:
    """The core's doctest round: seat 0 leaves slot 0 unseen, keeps, four accusations."""
    vg = VectorGame(2, "classic", 4, seed=0)
    vg.force_deals(np.array([[2, 3, 4, 6, 5, 7, 8, 0]] * 2))
    vg.reset()
    for a in (0, 3, 9, 7, 8):
        result = vg.step(np.array([a, a]))
        assert not result.round_ended.any()
    result = vg.step(np.array([8, 8]))
    assert result.round_ended.all()
    rr = vg.round_results
    assert rr.culprit.tolist() == [0, 0]
    assert rr.suspects[0].tolist() == [5, 7, 8]
    assert rr.stacks(0) == [[1], [2, 3], [0]]
    assert rr.coloured[0].tolist() == [4, 5, 4, 4]
    assert rr.penalty[0].tolist() == [1, 0, 0, 2]
    assert vg.current_player.tolist() == [1, 1]  # round 2: the token moved clockwise


@pytest.mark.parametrize(("rules", "n"), TABLES)
def test_every_accusation_sequence_resolves_as_the_core(rules: str, n: int) -> None:
    """Round 1 with every sequence of accusations and each slot as the culprit."""
    cases = [(seq, c) for seq in itertools.product(range(3), repeat=n) for c in range(3)]
    rest = list(get_rules(rules).tiles(n))
    for t in (3, 4, 6):
        rest.remove(t)
    deals = []
    for _, culprit in cases:
        suspects = [3, 4]
        suspects.insert(culprit, 6)  # no 5 among them: the highest, the 6, is guilty
        deals.append(rest[:n] + suspects + rest[n:])
    vg = VectorGame(len(cases), rules, n, seed=0)
    vg.force_deals(np.array(deals))
    vg.reset()
    moves = [0, 3] if rules == "classic" else [0]  # leave slot 0 unseen, keep
    for move in moves:
        vg.step(np.full(len(cases), move))
    for k in range(n):
        result = vg.step(np.array([7 + seq[k] for seq, _ in cases]))
    assert result.round_ended.all()
    for i, (seq, culprit) in enumerate(cases):
        game = Game(rules, n, deals=[deals[i]])
        for move in moves:
            game.apply_action(move)
        for slot in seq:
            record = game.apply_action(7 + slot)
        assert record is not None and record.culprit == culprit
        assert vg.round_results.as_info(i) == record.as_info(), (seq, culprit)


def test_masks_by_phase() -> None:
    vg = VectorGame(3, "classic", 3, seed=1)
    assert (vg.action_masks() == np.eye(10, dtype=bool)[[0, 1, 2]].sum(0, dtype=bool)).all()
    vg.step(np.array([0, 1, 2]))
    masks = vg.action_masks()
    assert [np.flatnonzero(m).tolist() for m in masks] == [[3, 5, 6], [3, 4, 6], [3, 4, 5]]
    vg.step(np.array([3, 4, 5]))
    assert (vg.action_masks()[:, 7:].all()) and not vg.action_masks()[:, :7].any()
    revised = VectorGame(2, "revised", 5, seed=1)
    revised.step(np.array([0, 2]))
    assert not revised.action_masks()[:, :7].any()  # no swap phase


def test_illegal_action_raises_and_changes_nothing() -> None:
    vg = VectorGame(4, "classic", 4, seed=2)
    before = vg.observe().copy()
    with pytest.raises(ValueError, match=r"games \[1, 3\] in phases \['look', 'look'\]"):
        vg.step(np.array([0, 7, 1, 12]))
    assert (vg.observe() == before).all()
    # an inactive game's action is not checked
    vg.step(np.array([0, 7, 1, 2]), active=np.array([True, False, True, True]))


def test_inactive_games_unchanged() -> None:
    vg = VectorGame(6, "revised", 3, seed=3)
    list(play_random(vg, 5, seed=3))
    active = np.array([True, False, True, False, True, False])
    obs = [vg.observe(np.full(6, s)).copy() for s in range(3)]
    keys = np.random.default_rng(0).random((6, 10)) * vg.action_masks()
    result = vg.step(keys.argmax(axis=1), active)
    for s in range(3):
        assert (vg.observe(np.full(6, s))[~active] == obs[s][~active]).all()
    assert not result.rewards[~active].any()


def test_seeded_and_reproducible() -> None:
    a, b, c = (VectorGame(64, "classic", 4, seed=s) for s in (5, 5, 6))
    ra, rb, rc = (list(play_random(g, 60, seed=0)) for g in (a, b, c))
    assert all((x.rewards == y.rewards).all() for x, y in zip(ra, rb))
    assert (a.observe() == b.observe()).all()
    assert not (a.observe() == c.observe()).all()
    a.reset(seed=9)
    b.reset(seed=9)
    assert (a.observe() == b.observe()).all()


@pytest.mark.parametrize(("rules", "n"), TABLES)
@pytest.mark.parametrize("reward", ["outcome", "markers"])
def test_random_play_invariants(rules: str, n: int, reward: str) -> None:
    """Zero-sum rewards, conserved markers, resets after the end, games end in time."""
    vg = VectorGame(128, rules, n, reward=reward, max_rounds=12, seed=n)
    rule_set = get_rules(rules)
    total = rule_set.markers_per_player * n
    ended = 0
    for result in play_random(vg, 300, seed=n):
        assert np.allclose(result.rewards.sum(axis=1), 0.0, atol=1e-5)
        st = vg.state
        held = st.coloured + st.penalty + st.removed
        placed = st.num_accusations
        assert (held.sum(axis=0) + placed == total).all()
        done = result.terminated | result.truncated
        assert not (result.terminated & result.truncated).any()
        assert (st.round[done] == 1).all() and (vg.current_player[done] == 0).all()
        assert (result.final_ranks[done] >= 1).all() and not result.final_ranks[~done].any()
        if reward == "outcome":
            assert not result.rewards[result.truncated].any()
        ended += int(done.sum())
        assert (vg.action_masks().sum(axis=1) >= 2).all()
    assert ended > 128  # every game ended at least once on average


def test_force_deals_queue_and_validation() -> None:
    vg = VectorGame(2, "revised", 2, seed=0)
    deals = random_deals("revised", 2, 2, 3, seed=1)
    vg.force_deals(deals, games=np.array([True, False]))
    vg.reset()
    st = vg.state
    assert st.dealt[:, 0].tolist() == [[0, 2, 3, 4, 5, 6, 7, 8].index(t) for t in deals[0, 0, :2]]
    with pytest.raises(ValueError, match="permutation"):
        vg.force_deals(np.array([[2, 2, 3, 4, 5, 6, 7]] * 2))
    with pytest.raises(ValueError, match="shape"):
        vg.force_deals(np.array([[2, 3, 4, 5, 6, 7]] * 2))


def test_observe_arguments() -> None:
    vg = VectorGame(3, "classic", 2, seed=0)
    out = np.empty((3, 125), np.float32)
    assert vg.observe(out=out) is out
    assert (vg.observe(np.array([1, 1, 1])) != out).any()  # the other seat's tiles
    with pytest.raises(ValueError, match="seats"):
        vg.observe(np.array([0, 2, 0]))
    with pytest.raises(ValueError, match="out"):
        vg.observe(out=np.empty((3, 125), np.float64))


@pytest.mark.slow
def test_benchmark_script_runs() -> None:
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "vector_throughput.py"
    args = ["--seconds", "0.02", "--repeats", "1", "--batch-sizes", "1,16", "--players", "3"]
    args += ["--observe-batch", "8"]
    done = subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert (
        "| 16 |" in done.stdout and "grove_v1" in done.stdout and "Memory at B = 16" in done.stdout
    )
    trainer = [line for line in done.stdout.splitlines() if line.startswith("| 8 |")]
    assert len(trainer) == 1 and "at B = 8:" in done.stdout, done.stdout
    cells = [float(c.replace(",", "")) for c in trainer[0].strip("| ").split(" | ")]
    assert cells[1] > 0 and cells[2] > 0 and abs(cells[3] - cells[1] / cells[2]) <= 0.006
    bad = subprocess.run(
        [sys.executable, str(script), "--batch-sizes", "16,0"], capture_output=True, text=True
    )
    assert bad.returncode == 2 and "expected ints >= 1" in bad.stderr
    assert "Traceback" not in bad.stderr
