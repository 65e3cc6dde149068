"""Error messages on one line: how every layer words a problem for a person.

A command line, the web server and the trainer all report bad input as one line that
names the problem (never a traceback). The text they start from may span lines (torch's
and pydantic's messages do) or be huge (a hostile value), so it is flattened and cut
here, once.

>>> one_line("a\\n  b   c")
'a b c'
>>> one_line("x" * 10, limit=8)
'xxxxx...'
>>> describe(ValueError()), describe(KeyError("seat"))
('ValueError', "'seat'")
"""

from __future__ import annotations

LIMIT = 400
"""The longest line :func:`one_line` gives by default, in characters."""


def one_line(text: object, limit: int = LIMIT) -> str:
    """``text`` (say, an exception's message) on one line of at most ``limit`` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def describe(exc: BaseException, limit: int = LIMIT) -> str:
    """An exception as one line: its message, or its kind when it has none."""
    return one_line(exc, limit) or type(exc).__name__
