"""The docstring examples of every module in the package (pytest collects only tests/)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import grove_env

MODULES = sorted(
    info.name for info in pkgutil.walk_packages(grove_env.__path__, prefix="grove_env.")
)


def test_every_subpackage_is_walked() -> None:
    assert {
        "grove_env.agents.heuristic.search",
        "grove_env.vector.engine",
        "grove_env.training.config",
    } <= set(MODULES)


OPTIONAL = {  # modules of an optional extra -> the import they need
    "grove_env.training.rllib.backend": "ray.rllib",
    "grove_env.training.rllib.module": "ray.rllib",
}
UNAVAILABLE = {"pyspiel"}
"""Third-party modules whose wheels do not exist everywhere (the openspiel extra)."""


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    if name in OPTIONAL:
        pytest.importorskip(OPTIONAL[name])
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name not in UNAVAILABLE:
            raise
        pytest.skip(f"{name} needs {e.name}, not installed here")
    failures, _ = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert failures == 0, name
