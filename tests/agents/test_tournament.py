"""Tournaments: seating, statistics on hand-made results, determinism, outputs, errors."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from grove_env.agents import base
from grove_env.agents.arena.ratings import openskill_ratings, wilson_interval, win_points
from grove_env.agents.arena.tournament import (
    TournamentError,
    TournamentGame,
    entry_labels,
    run_tournament,
    seat_of,
    summarise,
    worker_pool,
)
from grove_env.agents.base import BaseAgent
from grove_env.agents.cli.tournament import main

ROOT = Path(__file__).resolve().parents[2]


class FirstLegal(BaseAgent):
    """Always the lowest legal action: deterministic, no seed."""

    name = "first"

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return int(np.flatnonzero(observation["action_mask"])[0])


class AlwaysZero(BaseAgent):
    """Plays action 0 whatever the mask says."""

    name = "zero"

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return 0


# ------------------------------------------------------------------ seating
@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_entry_plays_every_seat_equally(players: int) -> None:
    result = run_tournament(["random"] * players, num_players=players, games=3 * players)
    for e in result.entries:
        assert e.seat_games == (3,) * players
    assert result.games == 3 * players
    for rec in result.records:
        assert sorted(rec.seats) == list(range(players))
        assert rec.seats == tuple(seat_of(e, rec.index, players) for e in range(players))


def test_games_round_up_to_whole_rotations() -> None:
    result = run_tournament(["random"] * 4, games=10)
    assert (result.games_requested, result.games) == (10, 12)
    assert all(e.seat_games == (3, 3, 3, 3) for e in result.entries)


def test_labels_number_repeated_specs() -> None:
    assert entry_labels(["heuristic", "random", "random"]) == [
        "heuristic",
        "random#1",
        "random#2",
    ]
    result = run_tournament(["random", FirstLegal(), "random"], num_players=3, games=3)
    assert [e.label for e in result.entries] == ["random#1", "first", "random#2"]
    assert result.entries[1].spec == "<first>"


# ------------------------------------------------------------------ statistics
def test_wilson_interval_known_values() -> None:
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.40383, abs=1e-5)
    assert high == pytest.approx(0.59617, abs=1e-5)
    z2 = 1.959963984540054**2
    assert wilson_interval(0, 10) == (0.0, pytest.approx((z2 / 10) / (1 + z2 / 10)))
    assert wilson_interval(10, 10) == (pytest.approx(1 - (z2 / 10) / (1 + z2 / 10)), 1.0)
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_win_points_split_ties() -> None:
    assert win_points([1, 2, 3, 4]) == [1.0, 0.0, 0.0, 0.0]
    assert win_points([1, 1, 3, 3]) == [0.5, 0.5, 0.0, 0.0]
    assert win_points([1, 1, 1]) == pytest.approx([1 / 3] * 3)


def _record(index: int, ranks: tuple[int, ...], scores=(0, 0, 0), rewards=(0.0, 0.0, 0.0)):
    seats = tuple(seat_of(e, index, 3) for e in range(3))
    return TournamentGame(index, seats, ranks, scores, rewards, truncated=False, rounds=2)


def test_summary_of_hand_made_results() -> None:
    records = [
        _record(2, (2, 1, 3), (5, 4, 9), (0.0, 1.0, -1.0)),  # order does not matter
        _record(0, (1, 2, 3), (3, 6, 9), (1.0, 0.0, -1.0)),
        _record(1, (1, 1, 3), (4, 4, 8), (0.5, 0.5, -1.0)),
    ]
    result = summarise(records, ["a", "b", "c"])
    a, b, c = result.entries
    assert (a.win_points, b.win_points, c.win_points) == (1.5, 1.5, 0.0)
    assert a.win_share == b.win_share == 0.5 and c.win_share == 0.0
    assert (a.ci_low, a.ci_high) == wilson_interval(1.5, 3)
    assert c.ci_low == 0.0 and c.ci_high > 0.0
    assert a.mean_score == pytest.approx(4.0) and c.mean_score == pytest.approx(26 / 3)
    assert a.mean_reward == pytest.approx(0.5) and c.mean_reward == pytest.approx(-1.0)
    assert a.mean_rank == pytest.approx(4 / 3) and c.mean_rank == 3.0
    # seat s: game g puts entry e at seat (e + g) % 3; the winners' points follow them
    assert result.seat_win_share == pytest.approx([2 / 3, 1 / 6, 1 / 6])
    assert sum(result.seat_win_share) == pytest.approx(1.0)
    assert [e.seat_games for e in result.entries] == [(1, 1, 1)] * 3
    assert c.mu < min(a.mu, b.mu)
    assert a.ordinal == pytest.approx(a.mu - 3 * a.sigma)
    assert [r.index for r in result.records] == [0, 1, 2]


def test_ratings_follow_game_order_and_ties() -> None:
    tied = openskill_ratings([[1, 1]] * 5, 2)
    assert tied[0].mu == pytest.approx(tied[1].mu)
    assert tied[0].sigma < 25 / 3
    games = [[1, 2], [1, 2], [2, 1]]
    assert openskill_ratings(games, 2) != openskill_ratings(games[::-1], 2)


# ------------------------------------------------------------------ playing
def test_same_seed_same_result_for_any_worker_count() -> None:
    one = run_tournament(["random"] * 4, games=24, seed=7, workers=1)
    two = run_tournament(["random"] * 4, games=24, seed=7, workers=2, progress=True)
    assert one.to_dict() == two.to_dict()
    assert one.records == two.records
    other = run_tournament(["random"] * 4, games=24, seed=8)
    assert other.records != one.records


@pytest.mark.slow
def test_tournaments_sharing_a_worker_pool_play_the_same_games() -> None:
    tables = (["random"] * 4, ["greedy", "random", "random", "random"])
    alone = [run_tournament(t, games=24, seed=7, workers=2) for t in tables]
    with worker_pool(2) as pool:
        shared = [run_tournament(t, games=24, seed=7, workers=2, pool=pool) for t in tables]
    assert [r.records for r in shared] == [r.records for r in alone]
    assert shared[0].records != shared[1].records


@pytest.mark.slow
def test_workers_keep_to_their_share_of_the_cores(monkeypatch) -> None:
    import os

    import torch

    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    share = max(1, (os.cpu_count() or 1) // 2)
    with worker_pool(2) as pool:
        assert pool.apply(os.getenv, ("OMP_NUM_THREADS",)) == str(share)
        assert pool.apply(torch.get_num_threads) == share
    monkeypatch.setenv("OMP_NUM_THREADS", "3")  # the user's own count is kept
    with worker_pool(2) as pool:
        assert pool.apply(os.getenv, ("OMP_NUM_THREADS",)) == "3"


def test_agent_objects_and_factories_take_seats() -> None:
    result = run_tournament(
        [FirstLegal(), lambda seed: FirstLegal(), "random"], num_players=3, games=6
    )
    assert [e.label for e in result.entries] == ["first#1", "first#2", "random"]
    assert sum(e.win_points for e in result.entries) == pytest.approx(6)
    assert all(-1.0 <= e.mean_reward <= 1.0 for e in result.entries)


def test_truncated_games_are_draws_by_default() -> None:
    draw = run_tournament(["random"] * 4, games=8, max_rounds=1)
    assert draw.truncated == sum(r.truncated for r in draw.records) > 0
    for rec in draw.records:
        if rec.truncated:
            assert rec.ranks == (1, 1, 1, 1)
            assert rec.rewards == (0.0, 0.0, 0.0, 0.0)
    ranked = run_tournament(["random"] * 4, games=8, max_rounds=1, truncated="standings")
    assert any(r.truncated and r.ranks != (1, 1, 1, 1) for r in ranked.records)


def test_masked_action_is_reported() -> None:
    with pytest.raises(TournamentError, match="not a legal action"):
        run_tournament([AlwaysZero(), "random"], num_players=2, games=2)


def test_heuristic_spec() -> None:
    result = run_tournament(["heuristic", "random", "random", "random"], games=8)
    assert result.entries[0].label == "heuristic"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"agent_specs": ["random", "bogus"], "num_players": 2}, "unknown agent 'bogus'"),
        ({"agent_specs": ["random"] * 3, "num_players": 4}, "4 players need 4 agents"),
        ({"agent_specs": ["random"] * 5, "num_players": 5}, "allows num_players"),
        ({"agent_specs": ["random"] * 2, "num_players": 2, "rules": "nope"}, "rules must"),
        ({"agent_specs": ["random"] * 2, "num_players": 2, "games": 0}, "games must"),
        ({"agent_specs": ["random:x", "random"], "num_players": 2}, "takes no argument"),
    ],
)
def test_bad_configurations_raise_value_error(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        run_tournament(**{"games": 4, **kwargs})


# ------------------------------------------------------------------ command line
@pytest.mark.slow
def test_cli_writes_table_json_and_plot(tmp_path: Path, capsys) -> None:
    out_json, out_png = tmp_path / "t.json", tmp_path / "t.png"
    argv = ["--players", "3", "--agents", "random,random,random", "--games", "7"]
    argv += ["--seed", "3", "--json", str(out_json), "--plot", str(out_png), "--no-progress"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "random#3" in captured.out and "95% CI (Wilson)" in captured.out
    assert "rounded up to 9" in captured.err
    data = json.loads(out_json.read_text())
    assert data["games"] == 9 and data["games_requested"] == 7
    assert [e["label"] for e in data["entries"]] == ["random#1", "random#2", "random#3"]
    assert math.isclose(sum(e["win_share"] for e in data["entries"]), 1.0)
    assert data["win_share_interval"] == "wilson-95"
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--agents", "random,bogus,random,random"], "unknown agent 'bogus'"),
        (["--agents", "random,random"], "4 players need 4 agents"),
        (["--players", "5", "--agents", "random,random,random,random,random"], "classic"),
        (["--rules", "nope", "--agents", "random,random,random,random"], "rules must be"),
        (["--agents", "random,,random,random"], "non-empty"),
        (["--players", "x", "--agents", "random"], "invalid int value"),
    ],
)
def test_cli_errors_exit_2_without_traceback(argv: list[str], message: str, capsys) -> None:
    assert main([*argv, "--games", "4", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_cli_masked_action_exit_1(monkeypatch, capsys) -> None:
    monkeypatch.setitem(base._REGISTRY, "zero-test", lambda arg, seed=None: AlwaysZero())
    assert main(["--players", "2", "--agents", "zero-test,random", "--games", "2"]) == 1
    assert "not a legal action" in capsys.readouterr().err


@pytest.mark.slow
def test_module_runs_as_a_script() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "grove_env.agents.cli.tournament", "--players", "2", "--agents"]
        + ["random,random", "--games", "4", "--workers", "2", "--no-progress"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr
    assert "random#2" in out.stdout
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "grove_env.agents.cli.tournament",
            "--agents",
            "nope,random,random,random",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert bad.returncode == 2
    assert "unknown agent 'nope'" in bad.stderr and "Traceback" not in bad.stderr


# ------------------------------------------------------------------ shared agents
def test_entries_with_one_deterministic_spec_share_one_agent() -> None:
    from grove_env.agents.arena.tournament_games import shared_agents

    heuristic, again, contrarian, rand = shared_agents(
        ["heuristic", " heuristic", "contrarian", "random"], seed=0
    )
    assert heuristic is again and heuristic is not None
    assert contrarian is not None and contrarian is not heuristic
    assert rand is None  # seeded: a fresh agent per game


@pytest.mark.slow
def test_shared_agents_play_the_games_of_separate_ones() -> None:
    """The same spec at two seats decides both in one batch; factories build a separate
    object per seat and game, deciding one observation at a time: the same games."""
    specs = ["heuristic", "heuristic", "contrarian"]
    factories = [lambda seed, s=s: base.make_agent(s, seed=seed) for s in specs]
    shared = run_tournament(specs, num_players=3, games=24, seed=5)
    separate = run_tournament(factories, num_players=3, games=24, seed=5)
    assert [(r.seats, r.ranks, r.scores) for r in shared.records] == [
        (r.seats, r.ranks, r.scores) for r in separate.records
    ]
