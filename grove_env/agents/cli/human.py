"""``human``: a person at the keyboard, reading choices from a text stream.

The agent shows what its seat knows (:func:`grove_env.text.describe_observation`),
lists the legal moves by action number and name, and reads a line. It accepts the
number (``7``, in ASCII digits, a sign allowed) or the name (``accuse slot 0``); ``h``
shows the moves again and ``q`` leaves. Anything else (``+-3``, ``²``, ``١``, an empty
line, a number of a thousand digits, bytes that are not text) is explained and asked
again; the end of the input raises :class:`HumanQuit`, which
:mod:`grove_env.agents.cli.play` turns into a clean exit.

>>> import io
>>> import numpy as np
>>> from grove_env.core import Game
>>> from grove_env.observation import ObservationEncoder
>>> g = Game("classic", 4, deals=[(2, 3, 4, 6, 5, 7, 8, 0)])
>>> obs = {"observation": ObservationEncoder(g.rules, 4).encode(g, 0),
...        "action_mask": np.array([1, 1, 1, 0, 0, 0, 0, 0, 0, 0], dtype=np.int8)}
>>> out = io.StringIO()
>>> HumanAgent(io.StringIO("9\\nleave slot 2 unseen\\n"), out).act(obs)
2
>>> "9 is not one of your moves" in out.getvalue()
True
"""

from __future__ import annotations

import re
import sys
from typing import TextIO

import numpy as np

from grove_env.actions import action_name
from grove_env.observation import decode
from grove_env.text import describe_observation

from ..base import BaseAgent

QUIT_WORDS = ("q", "quit", "exit")
NUMBER = re.compile(r"[+-]?[0-9]+", re.ASCII)  # ASCII digits only: not "²", not "١"
HELP_WORDS = ("h", "help", "?")


class HumanQuit(Exception):  # noqa: N818 - a request to leave, not an error
    """The person left the game (``q``) or the input ended."""


class HumanAgent(BaseAgent):
    """Asks a person for each move on ``stdin``/``stdout`` (default: the terminal).

    When the input is not a terminal (a pipe, a file, a test's ``StringIO``) each line
    read is echoed after the prompt, so the transcript shows the choices made.
    """

    name = "human"

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
        self.stdin = stdin if stdin is not None else sys.stdin
        self.stdout = stdout if stdout is not None else sys.stdout
        try:
            self.echo = not self.stdin.isatty()
        except (AttributeError, ValueError):
            self.echo = True

    def say(self, text: str = "") -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def act(self, observation: dict[str, np.ndarray]) -> int:
        legal = [int(a) for a in np.flatnonzero(observation["action_mask"])]
        if not legal:
            raise ValueError("human agent asked to act with an all-zero action mask")
        self.say("What you know:")
        self.say(describe_observation(decode(observation["observation"])))
        self.say(self.moves_text(legal))
        while True:
            line = self.ask("Your move: ")
            if line is None:
                raise HumanQuit("the input ended")
            choice = self.parse(line, legal)
            if choice is not None:
                return choice

    @staticmethod
    def moves_text(legal: list[int]) -> str:
        lines = ["Your moves (type the number or the name; h shows this again, q quits):"]
        lines += [f"  {a}  {action_name(a)}" for a in legal]
        return "\n".join(lines)

    def ask(self, prompt: str) -> str | None:
        """One line from the input without its newline, or ``None`` at the end of input."""
        self.stdout.write(prompt)
        self.stdout.flush()
        try:
            line = self.stdin.readline()
        except UnicodeDecodeError:  # bytes that are not text: a line that is not a move
            line = "\ufffd\n"
        except (OSError, ValueError):  # the input was closed under us: as its end
            line = ""
        if not line:
            self.say()
            return None
        line = line.rstrip("\r\n")
        if self.echo:
            self.say(line)
        return line

    def parse(self, line: str, legal: list[int]) -> int | None:
        """The chosen action, or ``None`` after explaining what went wrong."""
        text = " ".join(line.strip().lower().split())
        numbers = ", ".join(str(a) for a in legal)
        if text in QUIT_WORDS:
            raise HumanQuit("you left the game")
        if text in HELP_WORDS:
            self.say(self.moves_text(legal))
            return None
        if not text:
            self.say(f"Please type one of {numbers} (or the move's name); q quits.")
            return None
        if NUMBER.fullmatch(text):
            shown = text if len(text) <= 12 else text[:9] + "..."
            number = int(text) if len(text) <= 12 else None  # huge: no int of 5000 digits
            if number is not None and number in legal:
                return number
            self.say(
                f"{shown} is not one of your moves now; choose one of {numbers}:\n"
                + "\n".join(f"  {a}  {action_name(a)}" for a in legal)
            )
            return None
        for a in legal:
            if text == action_name(a):
                return a
        shown = line.strip() if len(line.strip()) <= 40 else line.strip()[:37] + "..."
        self.say(
            f"{shown!r} is not a move. Type a number ({numbers}) or a name such as "
            f"{action_name(legal[0])!r}; h lists the moves, q quits."
        )
        return None


def make(
    arg: str | None = None,
    seed: int | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> HumanAgent:
    """Registry factory; ``seed`` is accepted and ignored (people bring their own)."""
    if arg is not None:
        raise ValueError(f"the human agent takes no argument, got {arg!r}")
    return HumanAgent(stdin=stdin, stdout=stdout)
