"""The gauntlet (grove_env.agents.arena.gauntlet): its opponents, its summary, its command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from grove_env.agents import base
from grove_env.agents.arena import gauntlet
from grove_env.agents.arena.gauntlet import (
    RULE_BASED,
    GauntletCell,
    GauntletResult,
    run_gauntlet,
)
from grove_env.agents.cli.gauntlet import main
from grove_env.agents.scripted.greedy import GreedyAgent
from grove_env.agents.scripted.styles import STYLE_NAMES

ROOT = Path(__file__).resolve().parents[2]


def cell(opponent: str, share: float, rule_based: bool = True) -> GauntletCell:
    return GauntletCell(opponent, rule_based, 100, share, share - 0.1, share + 0.1, 3.0)


def test_rule_based_styles_are_random_greedy_and_every_style() -> None:
    assert set(STYLE_NAMES) == {"stack-avoider", "piler", "follower", "contrarian", "bluffer"}
    assert RULE_BASED[:2] == ("random", "greedy")
    assert RULE_BASED[2:] == STYLE_NAMES


def test_mean_and_worst_count_only_the_rule_based_styles() -> None:
    result = GauntletResult(
        "x",
        "classic",
        4,
        100,
        0,
        [cell("random", 0.6), cell("piler", 0.3), cell("heuristic", 0.1, rule_based=False)],
    )
    assert result.mean == pytest.approx(0.45)
    assert result.worst.opponent == "piler"
    summary = result.to_dict()
    assert summary["rule_based_worst"]["opponent"] == "piler"
    assert summary["fair_share"] == 0.25
    assert "-- references" in result.table()


def test_cfr_is_skipped_with_a_note_unless_registered(monkeypatch) -> None:
    monkeypatch.delitem(base._REGISTRY, "cfr", raising=False)
    played, notes = gauntlet.lineup("classic", 2)
    assert ("heuristic", False) in played and all(name != "cfr" for name, _ in played)
    assert notes == ["'cfr' is not a registered agent here; skipped"]
    monkeypatch.setitem(base._REGISTRY, "cfr", lambda arg, seed=None: GreedyAgent())
    played, notes = gauntlet.lineup("classic", 2)
    assert played[-1] == ("cfr", False) and notes == []


def test_cfr_is_skipped_where_no_strategy_ships() -> None:
    played, notes = gauntlet.lineup("classic", 3)
    assert all(name != "cfr" for name, _ in played)
    assert notes == ["'cfr' ships no solved strategy for classic with 3; skipped"]
    played, notes = gauntlet.lineup("revised", 3)  # the whole game's reference ships
    assert played[-1] == ("cfr", False) and notes == []


def test_run_gauntlet_plays_every_opponent_with_the_agent_first(monkeypatch) -> None:
    calls = []

    def fake_tournament(specs, **kwargs):
        calls.append(list(specs))
        return real(specs, **kwargs)

    real = gauntlet.run_tournament
    monkeypatch.setattr(gauntlet, "run_tournament", fake_tournament)
    result = run_gauntlet("greedy", "revised", 3, games=3, seed=1)
    played = [name for name, _ in gauntlet.lineup("revised", 3)[0]]
    assert calls == [["greedy", name, name] for name in played]
    assert [c.opponent for c in result.cells] == played
    assert all(c.games == 3 and 0.0 <= c.ci_low <= c.win_share <= c.ci_high for c in result.cells)


@pytest.mark.slow
def test_workers_share_one_pool_and_change_no_result(monkeypatch) -> None:
    pools = []

    def counting_pool(workers):
        pools.append(workers)
        return real_pool(workers)

    real_pool = gauntlet.worker_pool
    monkeypatch.setattr(gauntlet, "worker_pool", counting_pool)
    two = run_gauntlet("greedy", "revised", 3, games=6, seed=2, workers=2)
    assert pools == [2]  # one pool for every cell
    assert two.to_dict() == run_gauntlet("greedy", "revised", 3, games=6, seed=2).to_dict()
    assert pools == [2]  # one worker: no pool


def test_bad_output_directory_is_refused_before_any_game(monkeypatch, tmp_path, capsys) -> None:
    def no_games(*args, **kwargs):
        raise AssertionError("a game was played")

    monkeypatch.setattr(gauntlet, "run_tournament", no_games)
    for flag in ("--json", "--plot"):
        rc = main(["--agent", "greedy", flag, str(tmp_path / "missing" / "out")])
        err = capsys.readouterr().err
        assert rc == 1  # a failure (an output that cannot be written), as in grove-tournament
        assert err.count("\n") == 1 and "does not exist" in err


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--agent", "human"], 2, "the gauntlet has no seat for a person"),
        (["--agent", "greedy", "--games", "0"], 2, "games must be an int >= 1"),
        (["--agent", "greedy", "--players", "9"], 2, "allows num_players"),
        (["--agent", "ppo:/nonexistent"], 1, "is not a policy"),
        (["--agent", "greedy", "--json", "x.json", "--plot", "x.json"], 2, "name the same file"),
        (["--agent", "greedy", "--players", "2.5"], 2, "--players takes a count"),
        (["--agent", "greedy", "--rules", "all", "--plot", "x.png"], 2, "--plot draws one table"),
        (["--agent", "greedy", "--opponents", "human"], 2, "no seat for a person"),
        (["--agent", "greedy", "--opponents", "cfr", "--players", "4"], 2, "no solved strategy"),
        (["--agent", "cfr", "--rules", "classic", "--players", "2,3"], 2, "with 3 players"),
    ],
)
def test_bad_input_is_one_line_before_any_game(monkeypatch, capsys, args, code, message) -> None:
    monkeypatch.setattr(gauntlet, "run_tournament", None)
    assert main(args) == code
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_opponents_at_every_table(tmp_path, capsys) -> None:
    # --opponents replaces the lineup; --rules/--players all is one gauntlet per table
    # the rule sets allow, each the same as asking for that table alone.
    out = tmp_path / "all.json"
    argv = ["--agent", "greedy", "--opponents", "random", "--games", "10", "--seed", "4"]
    assert main([*argv, "--rules", "all", "--players", "all", "--json", str(out)]) == 0
    tables = json.loads(out.read_text())["tables"]
    assert [(t["rules"], t["num_players"]) for t in tables] == [
        ("classic", 2), ("classic", 3), ("classic", 4),
        ("revised", 2), ("revised", 3), ("revised", 4), ("revised", 5),
    ]  # fmt: skip
    assert all([c["opponent"] for c in t["cells"]] == ["random"] for t in tables)
    alone = run_gauntlet("greedy", "revised", 3, games=10, seed=4, opponents=["random"])
    assert tables[4] == alone.to_dict()
    assert tables[4]["rule_based_worst"]["opponent"] == "random"


def test_a_reference_alone_has_no_rule_based_summary() -> None:
    result = run_gauntlet("greedy", "classic", 2, games=4, seed=0, opponents=["heuristic"])
    assert result.mean is None and result.worst is None
    assert result.to_dict()["rule_based_worst"] is None
    assert "rule-based styles:" not in result.table()


def test_unknown_agent_is_refused_before_any_game(monkeypatch, capsys) -> None:
    monkeypatch.setattr(gauntlet, "run_tournament", None)
    assert main(["--agent", "nope"]) == 2
    assert "unknown agent 'nope'" in capsys.readouterr().err


def test_help_describes_the_gauntlet_and_its_exit_status(capsys) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "Wilson 95% intervals" in out and "%%" not in out and "Exit status" in out


@pytest.mark.slow
def test_command_line_prints_the_table_and_writes_json_and_png(tmp_path) -> None:
    out_json, out_png = tmp_path / "g.json", tmp_path / "g.png"
    args = ["--agent", "greedy", "--rules", "classic", "--players", "2", "--games", "2"]
    run = subprocess.run(
        [sys.executable, "-m", "grove_env.agents.cli.gauntlet", *args]
        + ["--json", str(out_json), "--plot", str(out_png)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr
    for name in RULE_BASED + ("heuristic",):
        assert f"\n{name} " in run.stdout
    assert "fair share 0.500" in run.stdout and "worst" in run.stdout
    saved = json.loads(out_json.read_text())
    assert [c["opponent"] for c in saved["cells"]][: len(RULE_BASED)] == list(RULE_BASED)
    assert saved["agent"] == "greedy" and saved["num_players"] == 2
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_command_line_refuses_a_bad_path_in_a_subprocess(tmp_path) -> None:
    missing = tmp_path / "missing" / "g.json"
    run = subprocess.run(
        [sys.executable, "-m", "grove_env.agents.cli.gauntlet", "--agent", "greedy"]
        + ["--json", str(missing)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert run.returncode == 1
    assert run.stdout == ""  # no table: nothing was played
    assert run.stderr.strip().count("\n") == 0 and "does not exist" in run.stderr
    assert not missing.parent.exists()
