"""The training package's own order (``TRAINING_ORDER`` in ``test_layers.py``): the
shared parts first, the four learners side by side, the front door last; and SB3 loaded
only by the learner that uses it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_layers import (
    AGENT_ORDER,
    MAX_MODULES_PER_FOLDER,
    MODULES,
    ROOT,
    TRAINING_ORDER,
    layer_violations,
    training_part,
)


@pytest.mark.parametrize(
    ("module", "source", "problem"),
    [
        (
            "grove_env.training.run.planted",
            "from grove_env.training.selfplay.games import SelfPlayGames\n",
            "later in the training order",
        ),
        (
            "grove_env.training.config.planted",
            "from grove_env.training.front import train\n",
            "later in the training order",
        ),
        (
            "grove_env.training.batched.planted",
            "from grove_env.training.sb3.builders import build_env\n",
            "learners are siblings",
        ),
        (
            "grove_env.training.descent.planted",
            "from grove_env.training.batched.update import ppo_update\n",
            "learners are siblings",
        ),
    ],
)
def test_the_check_catches_the_training_order(
    tmp_path: Path, module: str, source: str, problem: str
) -> None:
    path = tmp_path / "planted.py"
    path.write_text(source)
    found = layer_violations({module: path})
    assert len(found) == 1 and problem in found[0], found


def test_every_training_part_is_in_the_order() -> None:
    parts = {m.split(".")[2] for m in MODULES if m.startswith("grove_env.training.")}
    assert parts == set(TRAINING_ORDER)


def test_no_folder_of_training_holds_more_than_eight_modules() -> None:
    folders: dict[Path, int] = {}
    for name, path in MODULES.items():
        if training_part(name) is None:
            continue
        folders[path.parent] = folders.get(path.parent, 0) + 1
    crowded = {
        str(p.relative_to(ROOT)): n for p, n in folders.items() if n > MAX_MODULES_PER_FOLDER
    }
    assert crowded == {}


@pytest.mark.parametrize(
    "module",
    [
        "grove_env.training.batched.trainer",
        "grove_env.training.front",
        "grove_env.training.descent.run",
        "grove_env.training.cli",
    ],
)
def test_the_package_s_own_backends_do_not_load_sb3(module: str) -> None:
    """SB3 is one learner among four: the shared path and the other learners run without it."""
    code = f"import {module}, sys; assert 'stable_baselines3' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_the_architecture_page_draws_the_tested_orders() -> None:
    """``docs/architecture.md`` lists the agents' and the training package's parts in the
    order the layer test holds."""
    page = (ROOT / "docs" / "architecture.md").read_text()
    block = page[page.index("```text") : page.index("```", page.index("```text") + 7)]
    agents = block[block.index("2 agents") : block.index("3 analysis")]
    training = block[block.index("4 training") : block.index("5 command lines")]

    def places(section: str, parts: list[str]) -> list[int]:
        return [re.search(rf"\s{p}[/ ]", section).start() for p in parts]  # type: ignore[union-attr]

    for section, parts in ((agents, AGENT_ORDER[1:]), (training, TRAINING_ORDER)):
        found = places(section, parts)
        assert found == sorted(found), parts
