"""What the agents' command lines share: one-line errors, agent specs, output paths.

Every command line built on the agents (``grove-tournament``, ``grove-play``, the
``scripts/``) answers a mistake with **one line** on stderr, ``PROG: error: WHAT``,
naming the problem and the path or spec, and an exit status:

* ``2``, a usage error: the command line itself is wrong (an unknown option or agent,
  a malformed spec, an option value out of range, the wrong number of agents);
* ``1``, a failure: a file is missing, damaged or cannot be written, an agent cannot
  be loaded here, or an agent fails during a game.

Everything is checked before the first game: agents are built from their specs (so
model files are read) and output paths are proved writable without creating them,
so a long run never ends in an error that was there from the start.

Agent lists: a spec may carry options with commas (``heuristic:noise=0.2,aim=1``),
so a list of specs is given as repeated flags (``--agent SPEC --agent SPEC``); a
comma-separated list (``--agents a,b,c``) is kept for specs without options.

>>> agent_specs(None, "heuristic, random")
['heuristic', 'random']
>>> agent_specs(["heuristic:noise=0.2,aim=1", "random"], None)
['heuristic:noise=0.2,aim=1', 'random']
>>> one_line("a message\\nthat torch spread  over lines")
'a message that torch spread over lines'
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from grove_env.messages import describe, one_line

from ..base import SPEC_HELP, Agent, PluginError, agent_names, make_agent, parse_spec
from ..learned.policy_files import ModelFileError

USAGE = 2
FAILURE = 1
INTERRUPTED = 130
SPECS_WITH_OPTIONS = "a spec with options, such as heuristic:noise=0.2,aim=1, needs {flag}"


EXIT_HELP = """Everything is checked before the first game. Exit status: 0 done, 130 interrupted,
2 a usage error (an unknown option or agent, a malformed spec, a bad value),
1 a failure: {failure}."""


def specs_help(flag: str, listed: str, each: str = "table position") -> str:
    """The ``--help`` lines on agent specs: repeat ``flag`` once per ``each``, or ``listed``."""
    return (
        f"agents: {', '.join(agent_names())}. A spec may carry options after a colon:\n"
        "heuristic:noise=0.2,aim=1, ppo:RUN (the run directory train.py printed).\n"
        f"Repeat {flag} SPEC once per {each};\n{listed} is short for specs without options\n"
        f"({SPECS_WITH_OPTIONS.format(flag=flag)}).\n{SPEC_HELP}"
    )


class CommandError(Exception):
    """A problem that a command line reports in one line, then exits with ``code``."""

    def __init__(self, message: str, code: int = FAILURE) -> None:
        super().__init__(one_line(message))
        self.code = code


def usage_error(message: str) -> CommandError:
    """A :class:`CommandError` for a command line that is wrong in itself (exit 2)."""
    return CommandError(message, USAGE)


class Parser(argparse.ArgumentParser):
    """``argparse`` whose usage errors are one line (no usage block) and exit 2.

    The line reads ``PROG: error: PROBLEM (see --help)``; a command line whose other
    errors have a label of their own (``train.py``'s ``config error:``) passes
    ``label="usage error"`` and reads ``usage error: PROBLEM (see PROG --help)``.
    """

    def __init__(self, *args: Any, label: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.label = label

    def error(self, message: str) -> NoReturn:
        where = f"{self.label}: " if self.label else f"{self.prog}: error: "
        hint = f"{self.prog} --help" if self.label else "--help"
        self.exit(USAGE, f"{where}{one_line(message)} (see {hint})\n")


def parse_and_run(
    prog: str, parser: argparse.ArgumentParser, run: Callable[[Any], int], argv: Any
) -> int:
    """A command line's ``main``: parse ``argv`` (argparse prints its own message and
    gives its exit code), then :func:`run_command` on the parsed arguments."""
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse has printed its message
        return int(exc.code or 0)
    return run_command(prog, lambda: run(args))


def run_command(prog: str, body: Callable[[], int]) -> int:
    """Run a command line's ``body``, turning a :class:`CommandError` into one line."""
    try:
        return body()
    except CommandError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return exc.code
    except PluginError as exc:  # another package's agent failed in a game
        print(f"{prog}: error: {one_line(exc)}", file=sys.stderr)
        return FAILURE
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:  # the reader left (``| head``): nothing more to tell it
        # and no second error when Python flushes stdout on the way out
        with contextlib.suppress(OSError, ValueError, AttributeError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return FAILURE


# --------------------------------------------------------------------------- agents
def agent_specs(
    repeated: Sequence[str] | None, listed: str | None, flag: str = "--agent"
) -> list[str]:
    """The specs of repeated ``flag`` options, else of a comma-separated list.

    Every spec is parsed here (a usage error if it is malformed or names no agent), and
    a spec with options cut at its commas is reported with the way to give it (``flag``).
    """
    specs = [spec.strip() for spec in (repeated or (listed or "").split(","))]
    for spec in specs:
        try:
            parse_spec(spec)
        except ValueError as exc:
            cut = not repeated and "=" in (listed or "")
            hint = f"; {SPECS_WITH_OPTIONS.format(flag=flag)}" if cut else ""
            raise usage_error(f"{exc}{hint}") from None
    return specs


def names_a_file(arg: str) -> bool:
    """Whether a spec's argument is the path of something on disk."""
    try:
        return os.path.lexists(arg)
    except (ValueError, OSError):  # a NUL byte, a name too long
        return False


def build_agent(spec: str, seed: int | None = None, **kwargs: Any) -> Agent:
    """The agent ``spec`` names, or a :class:`CommandError` saying what is wrong with it.

    A spec that is malformed, names no agent or gives an agent bad options is a usage
    error; a model file that is missing, damaged or of another game is a failure, and
    so is an agent whose optional dependencies are not installed.
    """
    try:
        name, arg = parse_spec(spec)
    except ValueError as exc:
        raise usage_error(str(exc)) from None
    try:
        return make_agent(spec, seed=seed, **kwargs)
    except (ModelFileError, OSError) as exc:
        raise CommandError(f"agent {spec!r}: {describe(exc)}") from None
    except ImportError as exc:
        raise CommandError(f"agent {spec!r} is not available here: {describe(exc)}") from None
    except ValueError as exc:
        code = FAILURE if arg is not None and names_a_file(arg) else USAGE
        raise CommandError(f"agent {spec!r}: {describe(exc)}", code) from None
    except Exception as exc:  # a damaged model fails in its loader's own ways
        raise CommandError(f"agent {spec!r} could not be loaded: {describe(exc)}") from None


def refuse_human(specs: Sequence[str], why: str) -> None:
    """A usage error if any spec is the ``human`` agent (who cannot sit here)."""
    for spec in specs:
        try:
            name, _ = parse_spec(spec)
        except ValueError as exc:
            raise usage_error(str(exc)) from None
        if name == "human":
            raise usage_error(f"{spec!r}: {why}")


# --------------------------------------------------------------------------- output paths
def check_output(path: str, option: str) -> None:
    """Prove that ``path`` can be written, without creating or changing it.

    A directory, a folder that does not exist and a place that cannot be written
    are failures; an empty or malformed name is a usage error.
    """
    if not path.strip():
        raise usage_error(f"{option} needs a file name, got {path!r}")
    if "\0" in path:
        raise usage_error(f"{option} {path!r} is not a valid file name")
    target = Path(path)
    try:
        if target.is_dir():
            raise CommandError(f"{option} {path!r} is a directory; give a file name")
        folder = target.parent
        if not folder.is_dir():
            missing = "is not a directory" if folder.exists() else "does not exist"
            raise CommandError(f"{option} {path!r}: the folder {str(folder)!r} {missing}")
        if target.exists():
            with open(target, "ab"):  # opened, not written: contents and time unchanged
                pass
        else:
            fd, probe = tempfile.mkstemp(dir=folder, prefix=".grove-write-check-")
            os.close(fd)
            os.unlink(probe)
    except OSError as exc:
        reason = exc.strerror or describe(exc)
        raise CommandError(f"{option} {path!r} cannot be written: {reason}") from None


def check_plotting(option: str = "--plot") -> None:
    """A failure now, not after the games, if matplotlib is missing."""
    try:
        import matplotlib.backends.backend_agg  # noqa: F401 - only to see that it loads
    except ImportError as exc:
        raise CommandError(
            f"{option} needs matplotlib (pip install 'grove-env[agents]'): {describe(exc)}"
        ) from None


def check_json_and_plot(json_path: str | None, plot_path: str | None) -> None:
    """Check a command's ``--json`` and ``--plot`` outputs (either may be absent): each
    writable (:func:`check_output`), not the same file, and matplotlib there for a plot."""
    named = (("--json", json_path), ("--plot", plot_path))
    outputs = [(flag, path) for flag, path in named if path is not None]
    for flag, path in outputs:
        check_output(path, flag)
    if len(outputs) == 2 and Path(outputs[0][1]).resolve() == Path(outputs[1][1]).resolve():
        raise usage_error(f"--json and --plot name the same file {json_path!r}")
    if plot_path is not None:
        check_plotting()


def write_output(write: Callable[[str], None], path: str, option: str) -> None:
    """Write an output file, a failure in one line if that goes wrong after all."""
    try:
        write(path)
    except OSError as exc:
        raise CommandError(f"{option} {path!r} could not be written: {describe(exc)}") from None
