"""The league: the Bradley–Terry fit on known strengths, the schedule, resuming, the command."""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from grove_env.agents.arena.bradley_terry import ELO, bootstrap_fit, win_matrix
from grove_env.agents.arena.league import LeagueFile, block_lineup, play_blocks, rate
from grove_env.agents.cli.league import main

pytest.importorskip("choix")

STRENGTHS = np.array([0.0, 150.0, -120.0, 300.0, 60.0])
"""Known ratings (Elo points), entry 0 the anchor."""


def p_beats(i: int, j: int) -> float:
    return float(1.0 / (1.0 + np.exp((STRENGTHS[j] - STRENGTHS[i]) / ELO)))


def test_a_synthetic_matrix_gives_back_its_strengths() -> None:
    # each pair plays 400 two-player games, won in the proportion the model says
    games = []
    for i, j in itertools.combinations(range(len(STRENGTHS)), 2):
        won = round(400 * p_beats(i, j))
        games += [[(i, 1), (j, 2)]] * won + [[(i, 2), (j, 1)]] * (400 - won)
    fit = bootstrap_fit(games, len(STRENGTHS), anchor=0, samples=100)
    assert np.allclose(fit.ratings, STRENGTHS, atol=3.0)
    assert np.all(fit.low <= STRENGTHS) and np.all(fit.high >= STRENGTHS)
    assert fit.low[0] == fit.high[0] == 0.0
    assert fit.games.tolist() == [1600] * 5


def test_sampled_four_player_games_recover_the_strengths() -> None:
    # four-player games drawn from the model (Plackett-Luce: the order of exponential
    # clocks with rates exp(strength)), entered by final rank; its pairwise marginals are
    # Bradley-Terry's, so the fit is consistent. A 95% interval misses one time in twenty,
    # so the check allows twice its half-width: it fails only for a biased fit.
    rng = np.random.default_rng()
    weights = np.exp(STRENGTHS / ELO)
    games = []
    for _ in range(3000):
        seated = rng.choice(len(STRENGTHS), 4, replace=False)
        order = seated[np.argsort(rng.exponential(1 / weights[seated]))]
        games.append([(int(e), rank + 1) for rank, e in enumerate(order)])
    fit = bootstrap_fit(games, len(STRENGTHS), anchor=0, samples=100)
    assert np.all(np.abs(fit.ratings - STRENGTHS) <= fit.high - fit.low), fit
    assert np.all(fit.high - fit.low < 60)


def test_a_shared_rank_is_half_a_win_each() -> None:
    wins = win_matrix([[(0, 1), (1, 1), (2, 3)]], 3)
    assert wins.tolist() == [[0, 0.5, 1], [0.5, 0, 1], [0, 0, 0]]


def test_each_pass_of_blocks_seats_every_lineup_once() -> None:
    lineups = [block_lineup(5, 3, b, seed=1) for b in range(20)]
    assert sorted(lineups[:10]) == list(itertools.combinations(range(5), 3))
    assert sorted(lineups[10:]) == sorted(lineups[:10]) and lineups[10:] != lineups[:10]


def small_league() -> LeagueFile:
    return LeagueFile("classic", 2, seed=0, pool=["random", "greedy", "piler"])


def test_resuming_plays_only_the_missing_blocks_and_narrows_the_intervals(tmp_path: Path) -> None:
    path = str(tmp_path / "league.json")
    league = small_league()
    play_blocks(league, range(0, 15), saved=lambda lg: lg.save(path))
    first = rate(LeagueFile.load(path), samples=100)
    kept = LeagueFile.load(path)
    assert len(kept.games) == 30 and kept.blocks == 15
    play_blocks(kept, range(kept.blocks, 240))
    again = small_league()
    play_blocks(again, range(0, 240))
    assert kept.games == again.games  # a resumed league is the league played at once
    later = rate(kept, samples=100)
    width = lambda r: float(np.mean((r.fit.high - r.fit.low)[1:]))  # noqa: E731
    assert width(later) < width(first) / 2


def test_a_results_file_of_another_league_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "league.json"
    small_league().save(str(path))
    assert main(["--players", "2", "--games", "4", "--results", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds a league with pool" in err
    path.write_text("{not json")
    assert main(["--players", "2", "--results", str(path)]) == 1
    assert "cannot be read" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "problem"),
    [
        (["--players", "2,3"], "one table"),
        (["--agent", "nobody"], "unknown agent"),
        (["--agent", "zoo:revised-2p"], "plays revised with 2 players"),
        (["--games", "0"], "--games must be at least 1"),
    ],
)
def test_bad_input_is_one_line(
    argv: list[str], problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and problem in err, err


@pytest.mark.slow
def test_the_command_rates_the_pool_and_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "ratings.json"
    argv = ["--rules", "revised", "--players", "3", "--games", "30", "--bootstrap", "20"]
    assert main([*argv, "--results", str(tmp_path / "l.json"), "--json", str(out)]) == 0
    summary = json.loads(out.read_text())
    agents = {row["agent"]: row for row in summary["agents"]}
    assert {"random", "heuristic", "zoo:revised-3p", "bluffer"} <= set(agents)
    assert agents["random"]["rating"] == 0.0 and summary["games"] == 30


@pytest.mark.slow
def test_workers_play_the_same_games() -> None:
    alone, shared = small_league(), small_league()
    play_blocks(alone, range(0, 24))
    play_blocks(shared, range(0, 24), workers=2)
    assert alone.games == shared.games


def test_a_missing_choix_is_one_line_before_any_game(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "choix", None)  # import choix raises ImportError
    assert main(["--players", "2", "--games", "4"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs choix" in err
