"""The README is a front page whose commands and links work as written."""

import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def test_quick_start_runs() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "README has no python quick start"
    started = time.monotonic()
    out = subprocess.run(
        [sys.executable, "-c", blocks[0]], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert time.monotonic() - started < 60, "the first command takes over a minute"
    assert "game over" in out.stdout
    assert "player_0" in out.stdout


def test_its_first_screen_says_what_this_is_and_starts_in_a_minute() -> None:
    lines = README.read_text().splitlines()
    first = "\n".join(lines[:40])
    opening = first.split("\n\n")[1]  # the paragraph under the title
    assert opening.count(". ") == 0 and opening.endswith(".") and len(opening.split()) <= 40
    assert re.search(r"```python\n.*?```", first, flags=re.S), "the quick start is not on it"
    prose = re.sub(r"```.*?```", "", first, flags=re.S)
    commands = re.findall(r"```bash\n(.*?)```", first, flags=re.S)
    # a figure of the first screen has one condition: no measured decimals, no ranges
    figures = re.findall(r"(?<!Python )\d+\.\d+|\d+\s*(?:–|to)\s*\d+", prose + "".join(commands))
    assert not figures, figures
    assert "make test" in first and "make train" in first


def test_a_front_page_not_a_lab_notebook() -> None:
    text = README.read_text()
    assert len(text.splitlines()) <= 150
    assert "load average" not in text
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b", text), "a dated figure belongs in docs/"
    # the one results table is written by scripts/results_pages.py (its test checks it)
    assert "<!-- results:headline -->\n| agent | table (fair share) |" in text


def test_its_make_targets_configs_and_links_exist() -> None:
    text = README.read_text()
    targets = set(re.findall(r"^([a-z-]+):", (ROOT / "Makefile").read_text(), flags=re.M))
    used = set(re.findall(r"`?make ([a-z-]+)", text))
    assert {"train", "test", "docs"} <= used <= targets
    for config in re.findall(r"configs/[\w.]+\.yaml", text):
        assert (ROOT / config).is_file(), config
    links = re.findall(r"\]\(([^)#:]+)\)", text)
    assert len(links) >= 10
    for link in links:
        assert (ROOT / link).exists(), f"README links to missing {link}"


def test_its_commands_parse() -> None:
    """The training and evaluation commands of the README are accepted by their parsers."""
    text = README.read_text()
    train = re.search(r"python train\.py --config (configs/\w+\.yaml)", text)
    assert train, "README shows no training command"
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from grove_env.training.config import load_config; "
         "load_config(sys.argv[1])", train.group(1)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    gauntlet = re.search(r"grove-gauntlet (--agent \S+ .*)", text).group(1)
    help_run = subprocess.run(
        [sys.executable, "-m", "grove_env.agents.cli.gauntlet", "--help"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    for flag in re.findall(r"(--[a-z-]+)", gauntlet):
        assert flag in help_run.stdout, flag
