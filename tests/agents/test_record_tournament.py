"""Tournaments write every game's record (``--record DIR``), and each replays to its result."""

from __future__ import annotations

import json
from pathlib import Path

from grove_env.agents.arena.tournament import run_tournament
from grove_env.agents.cli.tournament import main
from grove_env.record import load_record, replay


def test_a_tournament_records_every_game(tmp_path: Path) -> None:
    folder = tmp_path / "records"
    result = run_tournament(
        ["heuristic", "random", "greedy"], num_players=3, games=3, seed=4, record_dir=str(folder)
    )
    files = sorted(folder.glob("game_*.json"))
    assert [f.name for f in files] == ["game_00000.json", "game_00001.json", "game_00002.json"]
    for path, game in zip(files, result.records):
        data = json.loads(path.read_text())
        replayed = replay(load_record(data))
        assert replayed.standings() == data["final"]["standings"]
        by_seat = dict(zip(game.seats, ["heuristic", "random", "greedy"]))
        assert data["players"] == [by_seat[s] for s in range(3)]
        if not game.truncated:
            assert [replayed.standings()[s] for s in game.seats] == list(game.ranks)


def test_the_command_line_takes_a_record_folder(tmp_path: Path, capsys) -> None:
    argv = ["--players", "2", "--agents", "random,greedy", "--games", "2", "--no-progress"]
    assert main([*argv, "--record", str(tmp_path / "r")]) == 0
    assert len(list((tmp_path / "r").glob("game_*.json"))) == 2
    (tmp_path / "file").write_text("")
    assert main([*argv, "--record", str(tmp_path / "file" / "r")]) == 2
    assert "cannot write game records" in capsys.readouterr().err
