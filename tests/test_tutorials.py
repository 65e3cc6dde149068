"""The tutorials of the docs (``docs/tutorials/*.py``) run as written, at their own size.

Each runs in a subprocess from the repository root, as a reader would run it, and each
test checks what its page promises the reader will see: the run directory's files, a
win share, a NashConv, the served page. A tutorial whose optional suite is missing
says so in one line and exits 0 (checked here too).
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TUTORIALS = ROOT / "docs" / "tutorials"


def run_tutorial(name: str, timeout: int = 600) -> str:
    done = subprocess.run(
        [sys.executable, str(TUTORIALS / name)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def test_every_tutorial_has_a_page_and_a_test() -> None:
    scripts = {p.stem for p in TUTORIALS.glob("*.py")} - {"steps"}
    pages = {p.stem for p in TUTORIALS.glob("*.md")} - {"index"}
    tested = set(re.findall(r'run_tutorial\("(\w+)\.py"', Path(__file__).read_text()))
    assert scripts == pages == tested
    index = (TUTORIALS / "index.md").read_text()
    assert all(f"\n{name}\n" in index for name in scripts)


HARNESS = ("from steps", "import steps", "subprocess", 'sh("', "Popen", "resolve(")
"""What the tutorials' CI harness writes and a user does not: none of it on a page."""


def rendered(page: Path) -> str:
    """The page's text as the site shows it: each literalinclude replaced by what it
    includes (the file after ``:start-after:`` and before ``:end-before:``)."""

    def include(match: re.Match[str]) -> str:
        target = page.parent / match.group(1)
        assert target.is_file(), f"{page.name} includes missing {match.group(1)}"
        text = target.read_text()
        options = dict(re.findall(r"^:([\w-]+):[ \t]*(.*)$", match.group(2), flags=re.M))
        if "start-after" in options:
            text = text.split(options["start-after"], 1)[1]
        if "end-before" in options:
            text = text.split(options["end-before"], 1)[0]
        return text

    pattern = r"```\{literalinclude\}[ \t]*(\S+)\n(.*?)```"
    return re.sub(pattern, include, page.read_text(), flags=re.S)


@pytest.mark.parametrize("page", sorted(TUTORIALS.glob("*.md")), ids=lambda p: p.stem)
def test_a_tutorial_page_shows_the_code_a_user_writes_not_its_harness(page: Path) -> None:
    text = rendered(page)
    shown = [marker for marker in HARNESS if marker in text]
    assert not shown, f"{page.name} shows its CI harness: {shown}"


def test_every_example_has_a_page_and_runs_in_ci() -> None:
    examples = sorted((ROOT / "examples").glob("*.py"))
    index = (ROOT / "docs" / "examples" / "index.md").read_text()
    runners = (ROOT / "tests" / "test_examples.py").read_text() + "".join(
        p.read_text() for p in TUTORIALS.glob("*.py")
    )
    for example in examples:
        page = ROOT / "docs" / "examples" / f"{example.stem}.md"
        assert page.is_file() and f"\n{example.stem}\n" in index, f"no docs page for {example}"
        assert example.read_text() in rendered(page)  # shown whole
        assert f'{example.name}"' in runners or f"examples/{example.name}" in runners, example


@pytest.mark.slow  # a subprocess that trains, plays or serves
def test_train_from_config() -> None:
    out = run_tutorial("train_from_config.py")
    assert "$ python train.py --config configs/smoke.yaml --set run_dir=" in out
    files = re.search(r"the run directory: (.*)", out).group(1).split()
    assert {"best_policy.json", "final_eval.json", "metrics.csv", "config.yaml"} <= set(files)
    share = float(re.search(r"vs 3 random: (\d\.\d+)", out).group(1))
    assert 0.0 <= share <= 1.0
    assert "$ grove-tournament --agent ppo:" in out and "40 games" in out


@pytest.mark.slow  # a subprocess that trains, plays or serves
def test_evaluate() -> None:
    out = run_tutorial("evaluate.py")
    assert "$ grove-tournament --rules classic" in out and "$ grove-gauntlet" in out
    assert re.search(r"from the JSON: mean 0\.\d+, worst [a-z-]+", out)
    assert "Gauntlet of greedy: revised rules, 3 players" in out


@pytest.mark.slow  # a subprocess that trains, plays or serves
def test_text_agents() -> None:
    out = run_tutorial("text_agents.py")
    assert "JSON fields: accusations, first_player, legal_moves" in out
    assert "a bad reply is one line: 'accuse the gardener' is not a move" in out
    assert re.search(r"model\s+0\.\d+", out)
    assert "Gauntlet of text: classic rules, 4 players" in out


@pytest.mark.slow  # a subprocess that trains, plays or serves
def test_exploitability() -> None:
    from grove_env.analysis.best_response import exploitability
    from grove_env.analysis.policies import policy_of
    from grove_env.analysis.round_tree import build_round_tree

    out = run_tutorial("exploitability.py")
    assert "revised 2p one round, random: NashConv" in out
    solved = float(re.search(r"cfr-round, .*: (\d\.\d+) markers", out).group(1))
    assert solved < 1e-3  # the shipped solution is near an equilibrium
    greedy = float(re.search(r"greedy: NashConv (\d\.\d+)", out).group(1))
    expected = exploitability(build_round_tree("revised", 2), policy_of("greedy")).nash_conv
    assert greedy == pytest.approx(expected, abs=1e-4)
    found = re.search(r"random: NashConv >= (-?\d\.\d+) \[(-?\d\.\d+), .*exact (\d\.\d+)", out)
    bound, low, exact = map(float, found.groups())  # type: ignore[union-attr]
    assert bound > 0 and low < exact  # a lower bound, and positive against random


@pytest.mark.slow  # a subprocess that trains, plays or serves
def test_other_libraries_run_or_skip_with_the_install_line() -> None:
    out = run_tutorial("other_libraries.py")
    for script, module, extra in [
        ("tianshou_dqn.py", "tianshou", "suites"),
        ("rllib_ppo.py", "ray", "rllib"),
        ("openspiel_shimmy.py", "pyspiel", "openspiel"),
    ]:
        if importlib.util.find_spec(module) is None:
            assert f"skipped examples/{script}: {module}" in out
            assert f'(pip install -e ".[{extra}]")' in out
        else:
            assert f"$ python examples/{script}" in out
    assert "$ python examples/cleanrl_ppo.py" in out  # torch is in the dev extras


@pytest.mark.slow  # a subprocess that trains, plays or serves
def test_ray_scale_out() -> None:
    out = run_tutorial("ray_scale_out.py")
    if importlib.util.find_spec("ray") is None:
        assert out.startswith("skipped: Ray is not installed")
    else:
        assert "best_policy.json" in out and "40 games" in out


@pytest.mark.slow  # a subprocess that trains, plays or serves
def test_play_in_browser() -> None:
    out = run_tutorial("play_in_browser.py")
    match = re.search(r"GET / -> (\d+) characters, title '([^']*)'", out)
    assert match and int(match.group(1)) > 500 and "Grove" in match.group(2)
