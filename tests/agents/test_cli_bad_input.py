"""Hostile input at the agents' command lines (issue 9): one clear line, the right exit status.

Every command line (``grove-tournament``, ``grove-gauntlet``, ``grove-play``,
``scripts/seat_record.py``) answers a mistake with one
line on stderr naming the problem and the path, exit 2 for a usage error and 1 for a
failure, never a traceback; everything is checked before the first game, and no file is
created or changed by a run that fails. Most cases call ``main(argv)`` in this process;
a few run the real command in a subprocess. Hypothesis feeds random agent specs; each
case is bounded by the two short games it may play. The play command and its prompt:
``test_play_bad_input.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from command_lines import (
    DAMAGED,
    README_SPEC,
    ROOT,
    SPEC,
    call,
    damaged_models,
    load_script,
    one_line_error,
)
from hypothesis import given, settings

from grove_env.agents.arena import tournament as arena_tournament
from grove_env.agents.cli import gauntlet as gauntlet_cli
from grove_env.agents.cli import tournament

FOUR_RANDOM = ["--agents", "random,random,random,random"]
QUICK = ["--games", "4", "--no-progress"]


@pytest.fixture
def no_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any game played fails the test: the error must come before the first one."""

    def played(*args: object, **kwargs: object) -> None:
        raise AssertionError("a game was played before the error")

    monkeypatch.setattr(arena_tournament, "play_tournament_games", played)


@pytest.fixture
def damaged(tmp_path: Path) -> dict[str, Path]:
    return damaged_models(tmp_path)


# ------------------------------------------------------------------ tournament: inputs
@pytest.mark.parametrize("kind", DAMAGED)
@pytest.mark.parametrize("form", ["--agents", "--agent"])
def test_tournament_damaged_or_missing_model_is_a_failure(
    damaged: dict[str, Path], no_games: None, kind: str, form: str
) -> None:
    spec = f"ppo:{damaged[kind]}"
    agents = [form, f"{spec},random,random,random"] if form == "--agents" else [form, spec]
    agents += [] if form == "--agents" else ["--agent", "random"] * 3
    code, out, err = call(tournament.main, [*agents, *QUICK])
    assert code == 1 and out == ""
    one_line_error(err, "grove-tournament", str(damaged[kind]))


@pytest.mark.parametrize(
    ("agents", "message"),
    [
        (["--agents", "bogus,random,random,random"], "unknown agent 'bogus'"),
        (["--agent", "bogus"] + ["--agent", "random"] * 3, "unknown agent 'bogus'"),
        (["--agent", "heuristic:noise=2"] + ["--agent", "random"] * 3, "noise must be in"),
        (["--agent", "heuristic:noise=abc"] + ["--agent", "random"] * 3, "heuristic:noise=abc"),
        (["--agent", "heuristic:depth=3"] + ["--agent", "random"] * 3, "key=value pairs"),
        (["--agent", "random:x"] + ["--agent", "random"] * 3, "takes no argument"),
        (["--agent", "ppo:"] + ["--agent", "random"] * 3, "nothing after it"),
        (["--agents", f"{README_SPEC},random,random,random"], "needs --agent"),
        (["--agents", "human,random,random,random"], "no seat for a person"),
        (["--agents", "random,random"], "4 players need 4 agents"),
        ([*FOUR_RANDOM, "--agent", "random"], "not allowed with argument --agents"),
        ([], "one of the arguments --agent --agents is required"),
        ([*FOUR_RANDOM, "--players", "x"], "invalid int value: 'x'"),
        ([*FOUR_RANDOM, "--players", "9"], "allows num_players"),
        ([*FOUR_RANDOM, "--games", "0"], "games must be an int >= 1"),
        ([*FOUR_RANDOM, "--workers", "0"], "workers must be an int >= 1"),
        ([*FOUR_RANDOM, "--seed", "-1"], "seed must be an int >= 0"),
        ([*FOUR_RANDOM, "--max-rounds", "0"], "max_rounds must be an int >= 1"),
        ([*FOUR_RANDOM, "--truncated", "maybe"], "invalid choice: 'maybe'"),
        ([*FOUR_RANDOM, "--rules", "nope"], "rules must be one of"),
        ([*FOUR_RANDOM, "--json", ""], "--json needs a file name"),
        ([*FOUR_RANDOM, "--json", "a\0b"], "is not a valid file name"),
        ([*FOUR_RANDOM, "--json", "a\0b", "--plot", "b"], "is not a valid file name"),
        ([*FOUR_RANDOM, "--json", "x.out", "--plot", "./x.out"], "name the same file"),
    ],
)
def test_tournament_usage_errors_exit_2(
    agents: list[str], message: str, no_games: None, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = call(tournament.main, [*QUICK, *agents])
    assert code == 2 and out == ""
    one_line_error(err, "grove-tournament", message)
    assert list(tmp_path.iterdir()) == []


def test_tournament_takes_the_readme_spec_with_agent_flags() -> None:
    argv = ["--agent", README_SPEC, "--agent", "heuristic", "--agent", "random"]
    code, out, err = call(tournament.main, [*argv, "--agent", "random", *QUICK])
    assert code == 0 and err == ""
    labels = [line.split()[0] for line in out.splitlines()[4:8]]
    assert labels == [README_SPEC, "heuristic", "random#1", "random#2"]


def test_tournament_help_documents_the_agent_flags() -> None:
    code, out, _ = call(tournament.main, ["--help"])
    assert code == 0
    assert "--agent SPEC" in out and "needs --agent" in out and "Exit status" in out


# ------------------------------------------------------------------ tournament: outputs
OUTPUT_CASES = [
    "a folder that does not exist",
    "a directory",
    "a file as the folder",
    "an unwritable place",
]


def outputs(tmp_path: Path) -> dict[str, tuple[str, Path]]:
    """Each case: (the words of its message, the path)."""
    folder = tmp_path / "a folder"
    folder.mkdir()
    return {
        "a folder that does not exist": ("does not exist", tmp_path / "no" / "out.json"),
        "a directory": ("is a directory", folder),
        "a file as the folder": ("is not a directory", tmp_path / "kept.txt" / "out.json"),
        "an unwritable place": ("cannot be written", Path("/proc/grove-out.json")),
    }


@pytest.mark.parametrize("flag", ["--json", "--plot"])
@pytest.mark.parametrize("case", OUTPUT_CASES)
def test_tournament_bad_output_paths_fail_before_any_game(
    tmp_path: Path, no_games: None, flag: str, case: str
) -> None:
    kept = tmp_path / "kept.txt"
    kept.write_text("results of yesterday\n")
    message, path = outputs(tmp_path)[case]
    before = sorted(p.name for p in tmp_path.rglob("*"))
    code, out, err = call(tournament.main, [*FOUR_RANDOM, *QUICK, flag, str(path)])
    assert code == 1 and out == ""
    one_line_error(err, "grove-tournament", flag, str(path), message)
    assert sorted(p.name for p in tmp_path.rglob("*")) == before
    assert kept.read_text() == "results of yesterday\n"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through any permission bits")
def test_tournament_read_only_folder_fails_before_any_game(tmp_path: Path, no_games) -> None:
    folder = tmp_path / "read-only"
    folder.mkdir(mode=0o500)
    code, _, err = call(tournament.main, [*FOUR_RANDOM, *QUICK, "--json", str(folder / "o.json")])
    assert code == 1
    one_line_error(err, "grove-tournament", "cannot be written", str(folder / "o.json"))
    assert list(folder.iterdir()) == []


def test_existing_output_is_unchanged_when_an_input_is_bad(tmp_path: Path, no_games) -> None:
    kept = tmp_path / "out.json"
    kept.write_text("{}\n")
    stamp = kept.stat().st_mtime_ns
    argv = ["--agents", "random,bogus,random,random", *QUICK, "--json", str(kept)]
    assert call(tournament.main, argv)[0] == 2
    code, _, err = call(
        tournament.main,
        [*FOUR_RANDOM, *QUICK, "--json", str(kept), "--plot", str(tmp_path / "no" / "p.png")],
    )
    assert code == 1 and "--plot" in err
    assert kept.read_text() == "{}\n" and kept.stat().st_mtime_ns == stamp
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_a_write_that_fails_after_the_games_keeps_the_table(tmp_path: Path, monkeypatch) -> None:
    def full(self: object, path: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(arena_tournament.TournamentResult, "save_json", full)
    path = tmp_path / "out.json"
    code, out, err = call(tournament.main, [*FOUR_RANDOM, *QUICK, "--json", str(path)])
    assert code == 1 and "95% CI (Wilson)" in out
    one_line_error(err, "grove-tournament", "--json", str(path), "No space left on device")


# ------------------------------------------------------------------ gauntlet
@pytest.mark.parametrize(
    ("argv", "status", "message"),
    [
        (["--agent", "ppo:/no/such/model"], 1, "/no/such/model"),
        (["--agent", "bogus"], 2, "unknown agent 'bogus'"),
        (["--opponents", "heuristic:noise=9"], 2, "noise must be in"),
        (["--opponents", "human"], 2, "no seat for a person"),
        (["--games", "0"], 2, "games must be an int >= 1"),
        (["--workers", "0"], 2, "workers must be an int >= 1"),
        (["--seed", "-1"], 2, "seed must be an int >= 0"),
        (["--rules", "nope"], 2, "rules must be"),
        (["--players", "9"], 2, "allows num_players in (2, 3, 4), got 9"),
        (["--players", "all", "--rules", "revised", "--plot", "x.png"], 2, "--plot draws one"),
        (["--games", "x"], 2, "invalid int value: 'x'"),
    ],
)
def test_gauntlet_errors(argv: list[str], status: int, message: str) -> None:
    argv = argv if "--agent" in argv else ["--agent", "heuristic", *argv]
    code, out, err = call(gauntlet_cli.main, argv)
    assert code == status and out == ""
    one_line_error(err, "grove-gauntlet", message)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--specs", "bogus"], "unknown agent 'bogus'"),
        (["--specs", "human"], "no seat for a person"),
        (["--games", "0"], "--games must be >= 1"),
        (["--seed", "-1"], "--seed must be >= 0"),
        (["--rules", "nope"], "rules must be"),
        (["--players", "5"], "allows num_players in (2, 3, 4), got 5"),
    ],
)
def test_seat_record_errors(argv: list[str], message: str) -> None:
    code, out, err = call(load_script("seat_record").main, argv)
    assert code == 2 and out == ""
    one_line_error(err, "seat_record.py", message)


def test_gauntlet_takes_the_readme_spec() -> None:
    argv = ["--agent", README_SPEC, "--opponents", "random", "--games", "2", "--players", "2"]
    code, out, err = call(gauntlet_cli.main, argv)
    assert code == 0 and err == "" and f"Gauntlet of {README_SPEC}" in out


# ------------------------------------------------------------------ end to end
def run(args: list[str], stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, *args], input=stdin, capture_output=True, timeout=120, cwd=ROOT
    )


@pytest.mark.slow
def test_end_to_end_missing_model_and_bad_output(tmp_path: Path) -> None:
    missing = tmp_path / "runs" / "x"
    done = run(["-m", "grove_env.agents.cli.tournament", "--agent", f"ppo:{missing}"])
    assert done.returncode == 2  # four positions, one agent: usage, before the file
    done = run(
        ["-m", "grove_env.agents.cli.tournament", "--agents", f"ppo:{missing},random"]
        + ["--players", "2", "--games", "2"]
    )
    assert done.returncode == 1 and done.stdout == b""
    one_line_error(done.stderr.decode(), "grove-tournament", str(missing))
    out = tmp_path / "no" / "t.json"
    done = run(
        ["-m", "grove_env.agents.cli.tournament", "--agents", "random,random"]
        + ["--players", "2", "--games", "2", "--json", str(out)]
    )
    assert done.returncode == 1 and not out.parent.exists()
    one_line_error(done.stderr.decode(), "grove-tournament", str(out), "does not exist")


@pytest.mark.slow
def test_end_to_end_script_error() -> None:
    done = run(["scripts/seat_record.py", "--rules", "nope"])
    assert done.returncode == 2 and done.stdout == b""
    one_line_error(done.stderr.decode(), "seat_record.py", "rules must be")


# ------------------------------------------------------------------ fuzzing
@settings(max_examples=120, deadline=None)
@given(spec=SPEC)
def test_fuzzed_agent_specs_never_end_in_a_traceback(spec: str) -> None:
    argv = ["--players", "2", "--agent", spec, "--agent", "random", "--games", "2"]
    code, out, err = call(tournament.main, [*argv, "--no-progress", "--max-rounds", "3"])
    assert code in (0, 1, 2)
    if code:
        assert out == ""
        one_line_error(err, "grove-tournament")
    else:
        assert "95% CI (Wilson)" in out
