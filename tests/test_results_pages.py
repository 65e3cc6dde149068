"""The results pages are written from the measuring commands' JSON, never by hand.

``scripts/record_result.py`` keeps a command's JSON with the command, the date and the
machine; ``scripts/results_pages.py`` turns the records in ``docs/results/data`` into
the pages of ``docs/results`` and the README's headline table.
"""

from __future__ import annotations

import datetime
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from command_lines import ROOT, load_script

pages = load_script("results_pages")
records = load_script("results_records")  # its sibling: the records and how they print
DATA = ROOT / "docs" / "results" / "data"


def test_the_gauntlet_page_is_regenerated_from_its_json(tmp_path: Path) -> None:
    shutil.copytree(DATA / "gauntlet", tmp_path / "gauntlet")
    written = pages.outputs(tmp_path, tmp_path / "out", tmp_path / "no-readme.md")
    committed = (ROOT / "docs" / "results" / "gauntlet.md").read_text()
    assert written[tmp_path / "out" / "gauntlet.md"] == committed


def test_every_committed_page_and_the_readme_table_is_current() -> None:
    stale = [str(p) for p, text in pages.outputs().items() if p.read_text() != text]
    assert not stale, f"run python scripts/results_pages.py: {stale}"


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="no git")
def test_every_figure_a_page_shows_is_kept_by_git() -> None:
    # a page links a figure only where it lies beside the records; one that git ignores
    # is missing from a clone, and the page written there differs from the committed one
    shown = {m for page in (ROOT / "docs" / "results").glob("*.md")
             for m in re.findall(r"\]\((data/[^)]+\.png)\)", page.read_text())}  # fmt: skip
    assert shown, "no page shows a figure: the pattern no longer matches the pages"
    paths = [f"docs/results/{m}" for m in sorted(shown)]
    ignored = subprocess.run(["git", "check-ignore", *paths], cwd=ROOT, capture_output=True,
                             text=True).stdout.split()  # fmt: skip
    assert not ignored, f"figures the pages show but git ignores: {ignored}"


def test_a_changed_figure_changes_the_page(tmp_path: Path) -> None:
    source = sorted((DATA / "gauntlet").glob("*.json"))[0]
    record = json.loads(source.read_text())
    first = pages.gauntlets(record["result"])[0]
    before = pages.page("gauntlet", [("x", record)])
    cell = first["cells"][0]
    row = f"| {cell['opponent']} | rule-based | {{:.3f}} [{cell['ci_low']:.3f}"
    assert row.format(cell["win_share"]) in before
    cell["win_share"] = 0.123456
    after = pages.page("gauntlet", [("x", record)])
    assert row.format(0.123456) in after and row.format(0.123456) not in before


def test_a_training_record_shows_its_final_nashconv() -> None:
    record = json.loads((DATA / "training" / "default.json").read_text())
    measured = record["result"]["final_eval"]["nash_conv"]
    text = pages.page("training", [("default", record)])
    line = f"exact NashConv: one round {measured['round']:.4f} markers"
    assert f"`final_eval.txt` (`final_nashconv`): {line}" in text
    record["result"]["final_eval"]["nash_conv"] = {"round": 0.25, "game": 0.5}
    text = pages.page("training", [("default", record)])
    assert "one round 0.2500 markers, the whole game 0.5000 outcome (python -m" in text
    del record["result"]["final_eval"]["nash_conv"]
    assert "final_nashconv" not in pages.page("training", [("default", record)])


@pytest.mark.parametrize("path", sorted(DATA.glob("*/*.json")), ids=lambda p: p.stem)
def test_each_record_names_its_command_date_and_machine(path: Path) -> None:
    record = json.loads(path.read_text())
    assert record["kind"] == path.parent.name and record["command"].strip()
    assert datetime.datetime.fromisoformat(record["date"]).year >= 2026
    assert record["machine"]["cpus"] >= 1 and record["machine"]["cpu"]
    page = (ROOT / "docs" / "results" / f"{path.parent.name}.md").read_text()
    assert f"`{records.MACHINE_PATH.sub('<dir>', record['command'])}`" in page
    assert f"data/{path.parent.name}/{path.name}`" in page or f"| {path.stem} |" in page


def test_a_record_of_a_new_kind_gets_a_page_of_its_figures(tmp_path: Path) -> None:
    (tmp_path / "zoo").mkdir()
    record = {"kind": "zoo", "command": "make zoo", "date": "2026-12-03T00:00:00+00:00",
              "machine": {"cpu": "x", "cpus": 2, "python": "3.11"},
              "result": {"cards": [{"name": "a", "elo": 1234.5}]}}  # fmt: skip
    (tmp_path / "zoo" / "cards.json").write_text(json.dumps(record))
    written = pages.outputs(tmp_path, tmp_path, tmp_path / "no-readme.md")
    assert "| cards, 1, elo | 1234.5 |" in written[tmp_path / "zoo.md"]
    assert "No records yet" in written[tmp_path / "nashconv.md"]


def record(tmp_path: Path, *command: str) -> subprocess.CompletedProcess[str]:
    script = ROOT / "scripts" / "record_result.py"
    argv = [sys.executable, str(script), "--kind", "benchmark", str(tmp_path / "r.json")]
    return subprocess.run([*argv, "--", *command], capture_output=True, text=True, timeout=60)


def test_the_recorder_keeps_the_command_and_the_json_it_wrote(tmp_path: Path) -> None:
    code = "import json, sys; json.dump({'rate': 2.5, 'to': sys.argv[1]}, open(sys.argv[1], 'w'))"
    done = record(tmp_path, sys.executable, "-c", code, "{json}")
    assert done.returncode == 0, done.stderr
    kept = json.loads((tmp_path / "r.json").read_text())
    # the scratch path the command was given is kept as the placeholder it was typed as
    assert kept["result"] == {"rate": 2.5, "to": "{json}"} and kept["command"].endswith("'{json}'")
    assert kept["kind"] == "benchmark" and len(kept["machine"]["load_average"]) == 2


def test_the_recorder_reads_the_last_stdout_line_and_stops_on_failure(tmp_path: Path) -> None:
    done = record(tmp_path, sys.executable, "-c", "print('working'); print('[1, 2]')")
    assert done.returncode == 0 and json.loads((tmp_path / "r.json").read_text())["result"] == [
        1,
        2,
    ]
    (tmp_path / "r.json").unlink()
    done = record(tmp_path, sys.executable, "-c", "raise SystemExit(3)")
    assert done.returncode == 3 and not (tmp_path / "r.json").exists()


def table_cells(text: str) -> list[str]:
    rows = [line for line in text.splitlines() if line.startswith("|") and "---" not in line]
    return [c.strip() for row in rows for c in row.strip("|").split("|")]


def test_the_benchmarks_are_named_columns_not_dotted_json_keys() -> None:
    text = (ROOT / "docs" / "results" / "benchmark.md").read_text()
    cells = table_cells(text)
    dotted = [c for c in cells if re.fullmatch(r"[A-Za-z_][\w=]*(\.[\w=]+)+", c)]
    assert len(cells) > 50 and not dotted, dotted
    headers = [line for line in text.splitlines() if line.startswith("| ") and "/s" in line]
    assert headers, "no rate column names its unit"


MACHINE = re.compile(
    r"(?<![\w.~/:])/(home|work|tmp|Users|opt|usr|root|var|mnt|srv|scratch|private|Volumes)/"
    r"|\b[A-Z]:\\[A-Za-z]"
)
"""An absolute path of a machine's file system (a URL's path does not count)."""


def test_no_docs_page_holds_an_absolute_machine_path() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
        if "_build" not in path.parts
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if MACHINE.search(line)
    ]
    assert not found, found


def test_the_league_page_shows_each_rating_with_the_nashconv_already_measured() -> None:
    (source,) = (DATA / "league").glob("classic-4p.json")
    record = json.loads(source.read_text())
    zoo = next(a for a in record["result"]["agents"] if a["agent"] == "zoo:classic-4p")
    measured = {("classic", 4, "zoo:classic-4p"): 0.0939}
    text = pages.page("league", [("classic-4p", record)], measured)
    row = f"| zoo:classic-4p | {zoo['rating']:.0f} | [{zoo['ci_low']:.0f}, {zoo['ci_high']:.0f}]"
    assert f"{row} | {zoo['games']:,} | 0.0939 |" in text
    assert "| random | 0 | [0, 0] |" in text
    assert "| zoo:classic-4p |" in pages.page("league", [("classic-4p", record)])


def test_a_learned_bound_fills_only_the_cells_with_no_exact_figure() -> None:
    bounds = load_script("results_bounds")
    tables = load_script("results_tables")
    exact = json.loads((DATA / "nashconv" / "revised-3p-game-zoo.json").read_text())
    bound = json.loads((DATA / "bestresponse" / "revised-4p-game-zoo.json").read_text())
    found = bounds.lower_bounds([("b", bound)])
    assert found == {("revised", 4, True, "zoo:revised-4p"): bound["result"]["lower_bound"]}
    shown = f"≥ {bound['result']['lower_bound']:.4f}"
    text = pages.page("nashconv", [("x", exact)], bounds=found)
    assert f"| revised | 4 | whole game, outcome | {shown} |" in text
    assert f"| revised | 3 | whole game, outcome | {exact['result']['nash_conv']:.4f} |" in text
    # an exact record of the same cell wins over the bound
    found[("revised", 3, True, "zoo:revised-3p")] = 0.01
    assert "≥ 0.0100" not in pages.page("nashconv", [("x", exact)], bounds=found)
    cards = dict(tables.zoo_cards(ROOT / "grove_env" / "data" / "zoo"))
    card, three = cards["revised-4p"], cards["revised-3p"]
    assert card is not None and three is not None
    assert tables.whole_game(card, found) == shown
    assert tables.whole_game(card, {}) is None
    assert tables.whole_game(three, found) == three["nash_conv"]["whole_game_outcome"]
    # a response that gained nothing bounds NashConv by 0 alone, never by a negative figure
    assert tables.at_least(-0.0004) == tables.at_least(0.0) == "≥ 0 (no gain found)"


def test_a_curve_row_shows_the_exact_figures_of_its_own_table_and_measure() -> None:
    (curves,) = (DATA / "curves").glob("revised-2p-3p.json")
    record = json.loads(curves.read_text())
    nashconv = [(p.stem, json.loads(p.read_text())) for p in (DATA / "nashconv").glob("*.json")]
    game = next(r for _, r in nashconv if r["result"]["agent"] == "cfr"
                and r["result"]["whole_game"] and r["result"]["players"] == 2
                and r["result"]["rules"] == "revised")  # fmt: skip
    text = pages.page("curves", [("c", record)], nashconv=nashconv)
    two = [line for line in text.splitlines() if line.startswith("| revised-2p |")]
    three = [line for line in text.splitlines() if line.startswith("| revised-3p |")]
    assert two and three
    assert all(f"cfr {game['result']['nash_conv']:.4f}" in line for line in two)
    # the 3p rows measured one round: the whole game's figures are not theirs
    assert all("one round" in line and "zoo:revised-3p" not in line for line in three)
    assert "| beside it |" in pages.page("curves", [("c", record)])
