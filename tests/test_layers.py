"""The layers of the house, read from the source with ``ast``: imports go one way.

=====  ==========================================================================
layer  modules
=====  ==========================================================================
0      the pure game: ``grove_env`` itself, rules, actions, core, observation, text,
       global state (no Gymnasium, PettingZoo or torch)
1      the PettingZoo adapter (``grove_v1``, the outdated ``grove_v0``, wrappers,
       render) and the batched engine ``grove_env.vector``
2      the agents, ``grove_env.agents``, in sub-packages with an order of their own
       (:data:`AGENT_ORDER`: ``base``, ``views``, ``scripted``, ``heuristic``, ``trust``,
       ``learned``, ``arena``, ``cli``; ``trust`` imports only ``base``; ``argparse``
       only in ``cli``)
3      the analysis (``grove_env.analysis``: exact trees, best responses, CFR) and the
       web server ``grove_env.web``
4      training, ``grove_env.training``, in sub-packages with an order of their own
       (:data:`TRAINING_ORDER`: ``config``, ``run``, ``selfplay``, ``measure``,
       ``schedule``, then the learners ``sb3``, ``batched``, ``rllib``, ``descent``,
       which never import each other, then ``front``, the one backend table, and
       ``cli``, ``grove-train``, ``sweep``, ``grove-sweep``, and ``bestresponse``, the
       learned best response)
5      command lines on top: ``train.py``, ``scripts/``, ``benchmarks/``
=====  ==========================================================================

A module may import its own layer and those below. Imports sit at module top; inside
a function only third-party modules may be imported (heavy optional dependencies),
never the package's own (a command line may defer loading torch through the trainer).
Imports under ``if TYPE_CHECKING:`` make no runtime edge, but a circle of modules that
need each other's names, even for type hints only, is still a circle in the design, so
the cycle check sees them too.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = [  # longest prefix wins
    ("grove_env.training", 4),
    ("grove_env.web", 3),
    ("grove_env.analysis", 3),
    ("grove_env.openspiel", 1),
    ("grove_env.agents", 2),
    ("grove_env.vector", 1),
    ("grove_env.grove_v1", 1),
    ("grove_env.env_infos", 1),
    ("grove_env.env_checks", 1),
    ("grove_env.grove_v0", 1),
    ("grove_env.wrappers", 1),
    ("grove_env.render", 1),
    ("grove_env", 0),
]
TOP = 5
SUBPACKAGES = {"agents", "training", "vector"}


def layer_of(module: str) -> int:
    for prefix, layer in LAYERS:
        if module == prefix or module.startswith(prefix + "."):
            return layer
    return TOP


AGENT_ORDER = ["base", "views", "scripted", "heuristic", "trust", "learned", "arena", "cli"]
"""The sub-packages of ``grove_env.agents``, lowest first (``base`` is a module)."""
AGENT_ONLY = {"trust": {"base", "trust"}}
"""Sub-packages that may import only these of the agents (besides the game layer)."""
ARGPARSE_IN = "cli"

TRAINING_ORDER = [
    "config",
    "run",
    "selfplay",
    "measure",
    "schedule",
    "sb3",
    "batched",
    "rllib",
    "descent",
    "front",
    "cli",
    "sweep",
    "bestresponse",
]
"""The parts of ``grove_env.training``, lowest first (``schedule`` and ``front`` are modules;
the package's own ``__init__`` counts as ``front``)."""
LEARNERS = {"sb3", "batched", "rllib", "descent"}
"""The training backends: each may import every part before it but no other learner."""
MAX_MODULES_PER_FOLDER = 8


def agent_part(module: str) -> str | None:
    """The sub-package of ``grove_env.agents`` a module is in (``None`` outside it; the
    package's own ``__init__`` counts as ``base``, whose names it re-exports)."""
    parts = module.split(".")
    if parts[:2] != ["grove_env", "agents"]:
        return None
    return parts[2] if len(parts) > 2 and parts[2] in AGENT_ORDER else "base"


def training_part(module: str) -> str | None:
    """The part of ``grove_env.training`` a module is in (``None`` outside it)."""
    parts = module.split(".")
    if parts[:2] != ["grove_env", "training"]:
        return None
    return parts[2] if len(parts) > 2 and parts[2] in TRAINING_ORDER else "front"


def package_modules() -> dict[str, Path]:
    """Every module of the package (the agents included: they live in it)."""
    found = {}
    paths = [
        Path(folder, name)
        for folder, _, names in os.walk(ROOT / "grove_env")
        for name in names
        if name.endswith(".py")
    ]
    for path in sorted(paths):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = package_modules()
COMMANDS = {
    f"{p.parent.name}.{p.stem}" if p.parent != ROOT else p.stem: p
    for p in [
        ROOT / "train.py",
        *(ROOT / "scripts").glob("*.py"),
        *(ROOT / "benchmarks").glob("*.py"),
    ]
}


def is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports(module: str, path: Path) -> list[tuple[str, int, str]]:
    """``(imported module, line, where)`` for each import; where is top, function or typing."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[tuple[str, int, str]] = []

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = where
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inner = "function"
            elif isinstance(child, ast.If) and is_type_checking(child):
                inner = "typing"
            if isinstance(child, ast.Import):
                found.extend((alias.name, child.lineno, inner) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = package.split(".")
                    anchor = anchor[: len(anchor) - child.level + 1]
                    base = ".".join(anchor + ([base] if base else []))
                for alias in child.names:
                    name = f"{base}.{alias.name}"
                    found.append((name if name in MODULES else base, child.lineno, inner))
            visit(child, inner)

    visit(tree, "top")
    return found


def edges(modules: dict[str, Path]) -> list[tuple[str, str, int, str]]:
    return [
        (module, target, line, where)
        for module, path in modules.items()
        for target, line, where in imports(module, path)
    ]


def own(target: str) -> bool:
    return target == "grove_env" or target.startswith("grove_env.")


def layer_violations(modules: dict[str, Path]) -> list[str]:
    bad = []
    for module, target, line, where in edges(modules):
        if target == "agents" or target.startswith("agents."):
            bad.append(f"{module}:{line} imports top-level {target!r}; use grove_env.agents")
        elif own(target) and layer_of(target) > layer_of(module):
            bad.append(
                f"{module}:{line} (layer {layer_of(module)}) imports {target} "
                f"(layer {layer_of(target)})"
            )
        elif own(target) and where == "function" and module not in COMMANDS:
            bad.append(f"{module}:{line} imports {target} inside a function")
        else:
            bad.extend(agent_order_violations(module, target, line))
            bad.extend(training_order_violations(module, target, line))
    return bad


def training_order_violations(module: str, target: str, line: int) -> list[str]:
    """Breaks of the training package's order (:data:`TRAINING_ORDER`, :data:`LEARNERS`)."""
    mine, theirs = training_part(module), training_part(target)
    if mine is None or theirs is None or mine == theirs:
        return []
    if mine in LEARNERS and theirs in LEARNERS:
        return [f"{module}:{line} ({mine}) imports {target} ({theirs}): learners are siblings"]
    if TRAINING_ORDER.index(theirs) > TRAINING_ORDER.index(mine):
        return [
            f"{module}:{line} ({mine}) imports {target} ({theirs}), later in the training order"
        ]
    return []


def agent_order_violations(module: str, target: str, line: int) -> list[str]:
    """Breaks of the agents' own order (:data:`AGENT_ORDER`, :data:`AGENT_ONLY`), and
    ``argparse`` outside ``cli``."""
    mine = agent_part(module)
    if mine is None:
        return []
    if target.split(".")[0] == "argparse" and mine != ARGPARSE_IN:
        return [f"{module}:{line} imports argparse outside grove_env.agents.{ARGPARSE_IN}"]
    theirs = agent_part(target)
    if theirs is None:
        return []
    if AGENT_ORDER.index(theirs) > AGENT_ORDER.index(mine):
        return [f"{module}:{line} ({mine}) imports {target} ({theirs}), later in the agents' order"]
    if mine in AGENT_ONLY and theirs not in AGENT_ONLY[mine]:
        allowed = sorted(AGENT_ONLY[mine])
        return [f"{module}:{line} ({mine}) imports {target}; {mine} imports only {allowed}"]
    return []


def cycles(modules: dict[str, Path]) -> list[list[str]]:
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, target, _, _ in edges(modules):
        if target in graph and target != module:
            graph[module].add(target)
    found, state, stack = [], dict.fromkeys(graph, 0), []

    def walk(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state[nxt] == 1:
                found.append(stack[stack.index(nxt) :] + [nxt])
            elif state[nxt] == 0:
                walk(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if state[node] == 0:
            walk(node)
    return found


def test_the_walk_sees_every_layer() -> None:
    assert {layer_of(m) for m in MODULES} == {0, 1, 2, 3, 4}
    assert "grove_env.agents.heuristic.search" in MODULES and "grove_env.vector.engine" in MODULES
    assert {"train", "scripts.seat_record"} <= set(COMMANDS)


def test_imports_go_one_way() -> None:
    assert layer_violations({**MODULES, **COMMANDS}) == []


def test_no_import_cycles() -> None:
    assert cycles(MODULES) == []


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        (
            "from grove_env.training.config import TrainConfig\n",
            "layer 0) imports grove_env.training",
        ),
        ("def f():\n    from grove_env import rules\n", "inside a function"),
        ("import agents.base\n", "top-level 'agents.base'"),
    ],
)
def test_the_check_catches(tmp_path: Path, source: str, problem: str) -> None:
    path = tmp_path / "planted.py"
    path.write_text(source)
    found = layer_violations({"grove_env.planted": path})
    assert len(found) == 1 and problem in found[0], found


@pytest.mark.parametrize(
    ("module", "source", "problem"),
    [
        (
            "grove_env.agents.views.planted",
            "from grove_env.agents.heuristic.search import HeuristicAgent\n",
            "later in the agents' order",
        ),
        (
            "grove_env.agents.learned.planted",
            "from ..arena.match import play_game\n",
            "later in the agents' order",
        ),
        (
            "grove_env.agents.trust.planted",
            "from grove_env.agents.views.rows import Rows\n",
            "trust imports only ['base', 'trust']",
        ),
        ("grove_env.agents.arena.planted", "import argparse\n", "argparse outside"),
    ],
)
def test_the_check_catches_the_agents_order(
    tmp_path: Path, module: str, source: str, problem: str
) -> None:
    path = tmp_path / "planted.py"
    path.write_text(source)
    found = layer_violations({module: path})
    assert len(found) == 1 and problem in found[0], found


def test_every_agents_subpackage_is_in_the_order() -> None:
    parts = {m.split(".")[2] for m in MODULES if m.startswith("grove_env.agents.")}
    assert parts - {"base"} == set(AGENT_ORDER) - {"base"}


@pytest.mark.parametrize(
    "b_source",
    [
        "import grove_env.a\n",
        # an import kept for type hints is still a circle in the design
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from grove_env.a import A\n",
    ],
)
def test_the_cycle_check_catches(tmp_path: Path, b_source: str) -> None:
    (tmp_path / "a.py").write_text("from grove_env import b\n")
    (tmp_path / "b.py").write_text(b_source)
    planted = {"grove_env.a": tmp_path / "a.py", "grove_env.b": tmp_path / "b.py"}
    MODULES.update(planted)
    try:
        assert cycles(planted) == [["grove_env.a", "grove_env.b", "grove_env.a"]]
    finally:
        for name in planted:
            del MODULES[name]
