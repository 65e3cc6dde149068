"""Human play, driven by scripted input instead of a terminal."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from grove_env.agents.cli.human import HumanAgent, HumanQuit
from grove_env.agents.cli.play import main
from grove_env.core import Game
from grove_env.observation import ObservationEncoder

ROOT = Path(__file__).resolve().parents[2]
BAD_LINES = ["xyz", "", "42", "   "]


def scripted_input(cycles: int = 200) -> str:
    """Bad lines first, then every action number in turn: each prompt finds a legal one."""
    lines = list(BAD_LINES)
    for _ in range(cycles):
        lines += [str(a) for a in range(10)]
    return "\n".join(lines) + "\n"


def play(argv: list[str], stdin_text: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(argv, stdin=io.StringIO(stdin_text), stdout=out)
    return code, out.getvalue()


@pytest.mark.parametrize(
    "argv",
    [
        ["--players", "4", "--opponents", "random"],
        ["--players", "3", "--opponents", "random", "--seat", "2"],
        ["--players", "5", "--rules", "revised", "--opponents", "random", "--seat", "3"],
    ],
)
def test_whole_game_from_scripted_input(argv: list[str]) -> None:
    code, text = play([*argv, "--seed", "11"], scripted_input())
    assert code == 0
    assert "You are P" in text
    assert "--- Your turn. The table (public) ---" in text
    assert "What you know:" in text and "your tiles (not suspects)" in text
    assert "Your moves (type the number or the name" in text
    # the bad lines were explained and asked again
    assert "'xyz' is not a move" in text
    assert "Please type one of" in text
    assert "42 is not one of your moves now" in text
    # reveal and marker flow of every round, then the standings
    assert "Round 1 revealed" in text and "culprit: slot" in text
    assert "(top of the stack) as penalty" in text
    assert "Final standings (1 is best" in text
    assert "You finished" in text
    assert "Traceback" not in text


def test_move_by_name_help_and_quit() -> None:
    lines = "h\nleave slot 1 unseen\nKeep\nq\n"
    code, text = play(["--seed", "2", "--opponents", "random"], lines)
    assert code == 0
    assert "P0 (you): leave slot 1 unseen" in text
    assert "P0 (you): keep" in text
    assert text.count("Your moves (type the number") >= 3  # shown, shown again by h, ...
    assert "Leaving the game: you left the game" in text
    assert "Final standings" not in text


def test_end_of_input_leaves_cleanly() -> None:
    code, text = play(["--seed", "4", "--opponents", "random", "--seat", "1"], "")
    assert code == 0
    assert "Leaving the game: the input ended" in text
    assert "--seed 4" in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--players", "5"], "allows num_players"),
        (["--seat", "4"], "--seat must be in 0..3"),
        (["--opponents", "random,random"], "need 1 or 3 opponent specs"),
        (["--opponents", "bogus"], "unknown agent 'bogus'"),
        (["--opponents", "human"], "one person per terminal"),
        (["--rules", "nope"], "rules must be"),
    ],
)
def test_bad_arguments_exit_2(argv: list[str], message: str, capsys) -> None:
    code, _ = play(argv, "")
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_heuristic_opponents() -> None:
    code, text = play(["--opponents", "heuristic", "--seed", "3"], scripted_input())
    assert code == 0 and "P1 (heuristic)" in text and "Final standings" in text


def test_human_agent_reprompts_until_legal() -> None:
    game = Game("classic", 4, deals=[(2, 3, 4, 6, 5, 7, 8, 0)])
    obs = {
        "observation": ObservationEncoder(game.rules, 4).encode(game, 0),
        "action_mask": np.array([1, 1, 1] + [0] * 7, dtype=np.int8),
    }
    out = io.StringIO()
    agent = HumanAgent(io.StringIO("7\nfoo\n\n1\n"), out)
    assert agent.act(obs) == 1
    text = out.getvalue()
    assert "7 is not one of your moves now" in text and "'foo' is not a move" in text
    assert "  0  leave slot 0 unseen" in text
    with pytest.raises(HumanQuit):
        HumanAgent(io.StringIO(""), io.StringIO()).act(obs)


def test_module_runs_with_piped_stdin() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "grove_env.agents.cli.play", "--players", "3"]
        + ["--opponents", "random", "--seed", "9"],
        input=scripted_input(),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr
    assert "Final standings" in out.stdout and "revealed" in out.stdout
    assert out.stderr == ""
