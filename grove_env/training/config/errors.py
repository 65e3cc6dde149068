"""One-line configuration errors: the exceptions, and pydantic's errors in the game's words.

:mod:`grove_env.training.config` raises these; a message names the key, what is allowed
and the value (shortened: a hostile value may be huge, deep or self-nesting).
"""

from __future__ import annotations

import difflib
import reprlib
import typing
from typing import Any

from pydantic_core import ErrorDetails

from grove_env.messages import one_line


class ConfigError(ValueError):
    """A configuration problem, with a message that names the key and what is allowed."""


class ConfigFileError(ConfigError):
    """A config file that cannot be read as a YAML mapping (missing, unreadable, not text)."""


_shown = reprlib.Repr()
_shown.maxstring = _shown.maxother = _shown.maxlong = 60
_shown.maxlist = _shown.maxdict = 6
_shown.maxlevel = 3


def shown(value: Any) -> str:
    """A short repr for a message: a hostile value may be huge, deep or self-nesting."""
    return _shown.repr(value)


def problem(e: Exception) -> str:
    """A parser's complaint on one line, cut to a readable length."""
    return one_line(e, limit=200)


# ----------------------------------------------------------------- one-line errors
KINDS = {  # a value's type -> what a message says it must be ("lr must be a number")
    bool: "true or false",
    int: "an int",
    float: "a number",
    str: "a string",
    list: "a list",
    dict: "a mapping",
}
_MUST = {  # pydantic error type -> what the value must be, from the error's context
    "greater_than_equal": "must be >= {ge}",
    "greater_than": "must be > {gt}",
    "less_than_equal": "must be <= {le}",
    "too_short": "must list at least {min_length} item(s)",
    "literal_error": "must be one of {expected}",
    "string_too_short": "must be a non-empty string",
    "bool_type": f"must be {KINDS[bool]}",
    "int_type": f"must be {KINDS[int]}",
    "float_type": f"must be {KINDS[float]}",
    "finite_number": "must be a finite number",
    "list_type": f"must be {KINDS[list]}",
    "string_type": f"must be {KINDS[str]}",
    "model_type": f"must be {KINDS[dict]}",
}


def _key(loc: tuple[int | str, ...]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")


def _model_in(annotation: Any) -> Any:
    """The model a field holds: itself, or the model of an optional one (``X | None``)."""
    if hasattr(annotation, "model_fields"):
        return annotation
    return next(a for a in typing.get_args(annotation) if hasattr(a, "model_fields"))


def _unknown_key(model: Any, loc: tuple[int | str, ...]) -> str:
    *parents, key = loc
    for parent in parents:  # only a nested mapping can hold an unknown key
        model = _model_in(model.model_fields[parent].annotation)
    prefix = "".join(f"{p}." for p in parents)
    names = list(model.model_fields)
    text = str(key) if isinstance(key, str) and len(key) <= 60 else shown(key)
    close = difflib.get_close_matches(text, names, n=1)
    if close:
        return f"unknown key '{prefix}{text}' (did you mean '{prefix}{close[0]}'?)"
    return f"unknown key '{prefix}{text}'; allowed keys: {', '.join(prefix + k for k in names)}"


def describe(model: Any, error: ErrorDetails) -> str:
    """One line for a pydantic error in validating ``model``: the key, the rule, the value."""
    kind, ctx = error["type"], error.get("ctx", {})
    if kind == "extra_forbidden":
        return _unknown_key(model, error["loc"])
    if kind == "value_error":
        must = str(ctx["error"])
    elif kind in _MUST:
        must = _MUST[kind].format(**ctx)
    else:
        must = error["msg"].replace("Input should be", "must be", 1)
    if not error["loc"]:  # a check across fields names its keys itself
        return must
    return f"{_key(error['loc'])}: {must}, got {shown(error['input'])}"
