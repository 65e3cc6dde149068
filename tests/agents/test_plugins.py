"""Agents from other packages: the entry-point group ``grove_env.agents``.

The example package ``examples/plugin_agent`` is put on the path and its entry point
(with broken ones beside it) handed to the registry by a stand-in for
``importlib.metadata.entry_points``; one slow test pip-installs the package for real.
"""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from grove_env.agents.arena.gauntlet import run_gauntlet
from grove_env.agents.arena.league import league_pool
from grove_env.agents.base import (
    PLUGIN_GROUP,
    PluginError,
    agent_names,
    discover_plugins,
    make_agent,
    plugin_notes,
)
from grove_env.agents.cli import gauntlet, tournament
from grove_env.analysis.__main__ import main as analysis_main
from grove_env.web.sessions import AgentMenu

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "plugin_agent"
BROKEN = """
class Raises:
    name = "raises"
    def reset(self): pass
    def act(self, observation): raise KeyError("no such tile")

def raises_at_first_move(arg=None, seed=None):
    return Raises()

def no_seed(arg):
    return Raises()

def not_an_agent(arg=None, seed=None):
    return 42
"""
PLUGINS = {
    "example-plugin": "grove_example_plugin:make_agent",
    "missing-module": "no_such_module_here:make_agent",
    "wrong-signature": "broken_plugins:no_seed",
    "raises-at-move": "broken_plugins:raises_at_first_move",
    "not-an-agent": "broken_plugins:not_an_agent",
    "random": "broken_plugins:raises_at_first_move",  # a built-in's name: skipped
}


@pytest.fixture
def plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    (tmp_path / "broken_plugins.py").write_text(BROKEN)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend(str(EXAMPLE))
    found = importlib.metadata.EntryPoints(
        importlib.metadata.EntryPoint(name, value, PLUGIN_GROUP) for name, value in PLUGINS.items()
    )

    def entry_points(**params: str) -> importlib.metadata.EntryPoints:
        return found.select(**params)

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    discover_plugins(refresh=True)
    yield
    monkeypatch.undo()
    discover_plugins(refresh=True)


@pytest.mark.usefixtures("plugins")
def test_a_plugin_is_a_spec_and_a_taken_name_is_skipped() -> None:
    assert {"example-plugin", "raises-at-move", "random"} <= set(agent_names())
    assert make_agent("example-plugin", seed=0).name == "example-plugin"
    assert make_agent("random", seed=0).name == "random"  # the built-in stays
    (note,) = plugin_notes()
    assert "'random'" in note and "taken" in note


@pytest.mark.usefixtures("plugins")
@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("missing-module", "cannot be imported: ModuleNotFoundError"),
        ("wrong-signature", "must be a factory f(arg, seed=None)"),
        ("not-an-agent", "made a int, not an agent"),
        ("example-plugin:x", "failed to make an agent: ValueError"),
    ],
)
def test_a_broken_plugin_fails_in_one_line_naming_it(spec: str, problem: str) -> None:
    with pytest.raises(PluginError) as caught:
        make_agent(spec, seed=0)
    message = str(caught.value)
    assert problem in message and f"plugin agent {spec.split(':')[0]!r}" in message
    assert "\n" not in message


@pytest.mark.usefixtures("plugins")
def test_the_gauntlet_and_the_league_play_a_plugin_and_leave_out_the_broken() -> None:
    result = run_gauntlet("example-plugin", "classic", 3, games=6, opponents=["random"])
    assert result.cells[0].games == 6
    pool, notes = league_pool("classic", 3, ["example-plugin", "raises-at-move", "missing-module"])
    assert "example-plugin" in pool and "heuristic" in pool
    assert not {"raises-at-move", "missing-module"} & set(pool)
    assert sum("raises-at-move" in n and "failed in act()" in n for n in notes) == 1
    assert sum("missing-module" in n for n in notes) == 1


@pytest.mark.usefixtures("plugins")
def test_the_command_lines_play_a_plugin(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--agent", "example-plugin", "--opponents", "random", "--games", "4", "--players", "2"]
    assert gauntlet.main(argv) == 0
    assert "Gauntlet of example-plugin" in capsys.readouterr().out
    argv = ["nashconv", "--agent", "example-plugin", "--rules", "classic", "--players", "2"]
    assert analysis_main(argv) == 0
    assert "NashConv" in capsys.readouterr().out


@pytest.mark.usefixtures("plugins")
@pytest.mark.parametrize(
    ("main", "argv"),
    [
        (gauntlet.main, ["--agent", "raises-at-move", "--opponents", "random", "--games", "4"]),
        (gauntlet.main, ["--agent", "heuristic", "--opponents", "raises-at-move", "--games", "4"]),
        (tournament.main, ["--agents", "missing-module,random,random,random", "--games", "4"]),
    ],
)
def test_a_broken_plugin_on_a_command_line_is_one_line(
    main: object, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 1  # type: ignore[operator]
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "plugin agent" in err, err


@pytest.mark.usefixtures("plugins")
def test_the_web_page_offers_a_plugin_and_not_a_broken_one() -> None:
    menu = AgentMenu()
    assert "example-plugin" in menu.playing("revised", 5)
    assert "missing-module" not in menu.specs and "wrong-signature" not in menu.specs


@pytest.mark.slow
def test_pip_installing_the_example_makes_its_spec_play(tmp_path: Path) -> None:
    target = tmp_path / "site"
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps"]
    pip += ["--no-build-isolation", "--target", str(target), str(EXAMPLE)]
    subprocess.run(pip, check=True, cwd=tmp_path)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(target), str(ROOT)])}
    command = [sys.executable, "-m", "grove_env.agents.cli.gauntlet", "--agent", "example-plugin"]
    command += ["--opponents", "random", "--games", "8"]
    done = subprocess.run(command, env=env, cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "Gauntlet of example-plugin" in done.stdout
