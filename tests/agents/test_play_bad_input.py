"""Hostile input at ``grove-play`` (issue 9): its command line and the prompt of the game.

The command line answers a mistake with one line and exit 2 (usage) or 1 (failure),
before the game starts. At the prompt, a line that is not a move (``+-3``, ``²``,
``١``, an empty line, a huge number, bytes that are not text, random text) is explained
and asked again: the game in progress is never lost. Hypothesis feeds random specs,
random lines and random bytes; each case is one short game at most.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from command_lines import DAMAGED, README_SPEC, ROOT, SPEC, call, damaged_models, one_line_error
from hypothesis import given, settings
from hypothesis import strategies as st

from grove_env.agents.cli import play
from grove_env.agents.cli.human import QUIT_WORDS, HumanAgent, HumanQuit
from grove_env.core import Game
from grove_env.observation import ObservationEncoder


@pytest.fixture
def damaged(tmp_path: Path) -> dict[str, Path]:
    return damaged_models(tmp_path)


# ------------------------------------------------------------------ play: command line
def play_main(argv: Sequence[str], text: str = "q\n") -> tuple[int, str, str]:
    """``grove-play`` in this process: (exit status, the table's transcript, stderr)."""
    table = io.StringIO()
    code, out, err = call(play.main, argv, stdin=io.StringIO(text), stdout=table)
    assert out == ""  # everything for the person goes to the table's stream
    return code, table.getvalue(), err


@pytest.mark.parametrize("kind", DAMAGED)
def test_play_damaged_or_missing_model_is_a_failure(damaged: dict[str, Path], kind: str) -> None:
    code, text, err = play_main(["--opponent", f"ppo:{damaged[kind]}", "--seed", "1"])
    assert code == 1 and text == ""
    one_line_error(err, "grove-play", str(damaged[kind]))


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--opponent", "bogus"], "unknown agent 'bogus'"),
        (["--opponent", "heuristic:noise=-1"], "noise must be in"),
        (["--opponent", "greedy:x"], "takes no argument"),
        (["--opponents", README_SPEC], "needs --opponent"),
        (["--opponent", "random", "--opponent", "random"], "need 1 or 3 opponent specs"),
        (["--opponent", "human"], "one person per terminal"),
        (["--opponent", "random", "--opponents", "random"], "not allowed with argument"),
        (["--seat", "x"], "invalid int value: 'x'"),
        (["--seat", "-1"], "--seat must be in 0..3"),
        (["--seed", "-5"], "--seed must be >= 0"),
        (["--max-rounds", "0"], "--max-rounds >= 1"),
        (["--players", "99"], "allows num_players"),
        (["--rules", "nope"], "rules must be"),
    ],
)
def test_play_usage_errors_exit_2(argv: list[str], message: str) -> None:
    code, text, err = play_main(argv)
    assert code == 2 and text == ""
    one_line_error(err, "grove-play", message)


def test_play_takes_the_readme_spec_for_every_other_seat() -> None:
    code, text, err = play_main(["--opponent", README_SPEC, "--seed", "2"])
    assert code == 0 and err == ""
    assert f"P1 ({README_SPEC}), P2 ({README_SPEC}), P3 ({README_SPEC})" in text
    code, text, _ = play_main(["--players", "3", "--opponent", README_SPEC, "--opponent", "random"])
    assert code == 0 and f"P1 ({README_SPEC}), P2 (random)" in text


# ------------------------------------------------------------------ play: the prompt
HOSTILE_LINES = ["+-3", "²", "١", "٣", "", "   ", "9" * 5000, "-", "+", "1e3", "0x1", "\0", "1 1"]


def seat_zero_first_move() -> dict[str, np.ndarray]:
    game = Game("classic", 4, deals=[(2, 3, 4, 6, 5, 7, 8, 0)])
    return {
        "observation": ObservationEncoder(game.rules, 4).encode(game, 0),
        "action_mask": np.array([1, 1, 1] + [0] * 7, dtype=np.int8),
    }


@pytest.mark.parametrize("line", HOSTILE_LINES)
def test_a_line_that_is_not_a_move_is_explained_and_asked_again(line: str) -> None:
    out = io.StringIO()
    agent = HumanAgent(io.StringIO(f"{line}\n1\n"), out)
    assert agent.act(seat_zero_first_move()) == 1
    text = out.getvalue()
    assert text.count("Your move: ") == 2
    answer = text.split("Your move: ")[1].splitlines()[1]  # the line after the echo
    assert "not a move" in answer or "not one of your moves" in answer or "Please type" in answer
    assert len(answer) < 200  # a huge number is not printed back in full


def test_undecodable_input_is_a_line_that_is_not_a_move() -> None:
    class Garbled(io.StringIO):
        """A terminal whose first line is bytes that are not text."""

        calls = 0

        def readline(self, size: int | None = -1) -> str:
            self.calls += 1
            if self.calls == 1:
                raise UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")
            return super().readline()

    out = io.StringIO()
    assert HumanAgent(Garbled("2\n"), out).act(seat_zero_first_move()) == 2
    assert "is not a move" in out.getvalue()


def scripted(junk: Sequence[str], cycles: int = 200) -> str:
    """Junk before every try of each action number: a legal one comes at each prompt."""
    lines = []
    for _ in range(cycles):
        for action in range(10):
            lines += [*junk, str(action)]
    return "\n".join(lines) + "\n"


def test_hostile_lines_never_lose_the_game() -> None:
    code, text, err = play_main(["--seed", "5", "--opponents", "random"], scripted(HOSTILE_LINES))
    assert code == 0 and err == ""
    assert "Final standings" in text and "You finished" in text


def test_the_end_of_input_mid_game_leaves_cleanly() -> None:
    code, text, err = play_main(["--seed", "5", "--opponents", "random"], "+-3\n²\n0\n")
    assert code == 0 and err == ""
    assert "Leaving the game: the input ended. (Replay this deal with --seed 5.)" in text


def test_end_to_end_play_with_bytes_that_are_not_text() -> None:
    junk = ["\udcff\udcfe", "+-3", "²"]  # the first: the bytes ff fe, not UTF-8
    text = scripted(junk).encode("utf-8", "surrogateescape")
    done = subprocess.run(
        [sys.executable, "-m", "grove_env.agents.cli.play", "--opponents", "random", "--seed", "3"],
        input=text,
        capture_output=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0 and done.stderr == b""
    assert b"Final standings" in done.stdout and "\ufffd".encode() in done.stdout


# ------------------------------------------------------------------ fuzzing
@settings(max_examples=60, deadline=None)
@given(spec=SPEC)
def test_fuzzed_opponent_specs_never_end_in_a_traceback(spec: str) -> None:
    code, text, err = play_main(["--players", "2", "--opponent", spec, "--seed", "1"])
    assert code in (0, 1, 2)
    if code:
        one_line_error(err, "grove-play")
    else:
        assert "Leaving the game: you left the game" in text


LINE = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"))
JUNK = LINE.filter(lambda line: " ".join(line.strip().lower().split()) not in QUIT_WORDS)


@settings(max_examples=40, deadline=None)
@given(junk=st.lists(JUNK, max_size=4))
def test_fuzzed_play_input_never_loses_the_game(junk: list[str]) -> None:
    argv = ["--players", "2", "--opponents", "random", "--seed", "7", "--max-rounds", "3"]
    code, text, err = play_main(argv, scripted(junk, cycles=100))
    assert code == 0 and err == ""
    assert "You finished" in text


@settings(max_examples=60, deadline=None)
@given(data=st.binary(max_size=60))
def test_fuzzed_bytes_at_the_prompt_are_lines_that_are_not_moves(data: bytes) -> None:
    stream = io.TextIOWrapper(io.BytesIO(data + b"\n0\n1\n2\n"), "utf-8", errors="replace")
    lines = [" ".join(line.strip().lower().split()) for line in stream.read().splitlines()]
    stream.seek(0)
    try:
        chosen = HumanAgent(stream, io.StringIO()).act(seat_zero_first_move())
    except HumanQuit:  # only where a line was a word for leaving (b"q" is one)
        assert any(line in QUIT_WORDS for line in lines)
    else:
        assert chosen in (0, 1, 2)


def test_end_to_end_play_with_its_input_closed() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "grove_env.agents.cli.play", "--opponents", "random"],
        capture_output=True,
        preexec_fn=lambda: os.close(0),  # the child starts with its stdin closed
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 1 and done.stdout == b""
    one_line_error(done.stderr.decode(), "grove-play", "standard input or output is closed")
