"""The browser tests' server, browser, page and the steps they share (Playwright driving
the system's Chromium, no browser download); the tests are in ``web/test_web_page_game_browser.py``
(playing, watching, replaying) and ``web/test_web_page_layout_browser.py`` (layout, CSP, token).

Needs the Python package ``playwright`` and Debian's ``chromium`` (``apt-get install
chromium``); the tests skip, saying which is missing, without them. Screenshots go to
pytest's temporary folder, or to ``$GROVE_WEB_SCREENSHOTS`` when it is set (the README's
``docs/web.png`` is made with ``GROVE_WEB_SCREENSHOTS=docs``).
"""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the 'web' extra (starlette) is not installed")
pytest.importorskip("uvicorn", reason="the 'web' extra (uvicorn) is not installed")
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
CHROMIUM = (
    os.environ.get("GROVE_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
)
if CHROMIUM is None:
    pytest.skip(
        "Debian's chromium is not installed (apt-get install chromium)", allow_module_level=True
    )

from web_server import serving  # noqa: E402

from grove_env.record import record_game  # noqa: E402
from grove_env.rules import get_rules  # noqa: E402
from grove_env.web.app import create_app  # noqa: E402
from grove_env.web.views import seat_view  # noqa: E402

Page = Any


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, Any]]:
    app = create_app()
    with serving(app) as base:
        yield base, app.state.store


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any, server: tuple[str, Any]) -> Iterator[Page]:
    # Playwright's wait_for_function evaluates strings, which the page's CSP forbids:
    # the tests bypass it; test_the_page_runs_under_its_own_csp runs with it.
    context = browser.new_context(viewport={"width": 1200, "height": 1000}, bypass_csp=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(server[0] + "/")
    page.wait_for_selector("body[data-ready=true]")
    yield page
    context.close()
    assert errors == [], errors


def shot(page: Page, tmp_path: Path, name: str) -> Path:
    folder = Path(os.environ.get("GROVE_WEB_SCREENSHOTS") or tmp_path)
    path = folder / name
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 10_000
    return path


def start_play(
    page: Page, rules: str, players: int, seat: int, opponents: list[str], seed: int
) -> dict:
    form = page.locator("#form-play")
    form.locator(".rules").select_option(rules)
    form.locator(".players").select_option(str(players))
    form.locator("#play-seat").select_option(str(seat))
    for select, spec in zip(form.locator("select[name=agent]").all(), opponents):
        select.select_option(spec)
    form.locator("input[name=seed]").fill(str(seed))
    with page.expect_response("**/api/play") as started:
        page.click("#start-play")
    return started.value.json()


def drawn(page: Page) -> int:
    return int(page.locator("#board").get_attribute("data-draws") or 0)


def wait_drawn(page: Page, before: int) -> None:
    page.wait_for_function(f"Number(document.querySelector('#board').dataset.draws) > {before}")


def check_round_result(page: Page, view: dict, use_keys: bool, record: dict) -> None:
    """The round that just ended is on screen, the next round's table is not, and the
    seats table is the standing of that round in the game's ``record``; then go on."""
    done = view["rounds"][-1]
    panel = page.locator("#round-result")
    assert panel.is_visible() and page.locator("#actions").is_hidden()
    assert page.locator("#table").is_hidden()
    title = page.locator("#round-title").text_content()
    assert title.startswith(f"Round {done['round']}: suspect {done['culprit']} ")
    cards = panel.locator(".card")
    assert cards.count() == 3 and cards.nth(done["culprit"]).locator(".badge.culprit").count() == 1
    for slot in range(3):  # drawn top first, as labelled
        assert "top first" in cards.nth(slot).text_content() or not done["stacks"][slot]
        markers = cards.nth(slot).locator(".marker").all_text_contents()
        assert [m.split()[0] for m in markers] == [f"P{s}" for s in done["stacks"][slot][::-1]]
    first = done["first_player"]  # the unseen badge names who did not look, not the viewer
    badge = cards.nth(done["unseen_slot"]).locator(".badge.unseen").text_content()
    assert badge == ("UNSEEN BY YOU" if first == view["seat"] else f"UNSEEN BY P{first}")
    lines = page.locator("#round-lines li").all_text_contents()
    for slot, to, count in done["penalty_flows"]:
        assert f"Suspect {slot} was innocent: its {count} marker(s) go to P{to}," in " ".join(lines)
    result = record["rounds"][done["round"] - 1]["result"]
    rules = get_rules(view["rules"])
    scores = [rules.score(c, p) for c, p in zip(result["coloured"], result["penalty"])]
    assert seats_shown(page) == list(zip(result["coloured"], result["penalty"], scores))
    for seat, change in enumerate(done["changes"]):
        word = "same" if change["score"] == 0 else "better" if change["score"] < 0 else "worse"
        assert word in page.locator(f"#seats tr[data-seat='{seat}'] .change").text_content()
    before = drawn(page)
    if use_keys:
        page.keyboard.press("Enter")
    else:
        page.click("#continue-button")
    wait_drawn(page, before)
    assert panel.is_hidden()


def seats_shown(page: Page) -> list[tuple[int, int, int]]:
    """``(coloured, penalty, score)`` per seat as the seats table shows them."""
    rows = page.locator("#seats tbody tr").all()
    return [
        tuple(int(r.locator(f"td.{k}").text_content().split()[-1]) for k in ("coloured", "penalty"))
        + (int(r.locator("td.score .count").text_content()),)
        for r in rows
    ]


def check_hints(page: Page, view: dict) -> None:
    """The hints panel lists every legal move (computed for this very view), marks the one
    with the fewest expected penalty markers, and has no blank header."""
    page.wait_for_selector(f"#hints[data-draw='{drawn(page)}']")
    rows = page.locator("#hints-table tbody tr")
    shown = [int(r.get_attribute("data-action")) for r in rows.all()]
    assert shown == [m["action"] for m in view["legal"]]
    headers = page.locator("#hints-table th").all_text_contents()
    assert all(h.strip() for h in headers) and "fewer is better" in headers[1]
    if view["phase"] != "look":
        penalties = [float(p) for p in page.locator("#hints-table td.penalty").all_text_contents()]
        assert all(p >= 0 for p in penalties)
        marked = page.locator("#hints-table tr.recommended")
        assert marked.count() == 1 and "recommended" in marked.text_content()
        assert float(marked.locator("td.penalty").text_content()) == min(penalties)
    if (view["rules"], view["num_players"]) == ("classic", 4):
        zoo = "chance zoo:classic-4p plays it"
        assert zoo in headers and rows.first.locator("td.policy").text_content().endswith("%")


def play_to_the_end(
    page: Page,
    store: Any,
    key: str,
    seat: int,
    use_keys: bool,
    after: Any = None,
    hints: bool = False,
    on_result: Any = None,
) -> list[dict]:
    """Click (or key) a legal move until the game is over; every view the page was sent.

    Each view must be what the server's seat view of its game is at that moment; a round
    that ended must be shown (and gone on from) before the next round's table.
    """
    views = []
    rng = random.Random(seat)
    table = store.get(key, "play")
    rounds_shown = 0
    while page.locator("#result").is_hidden():
        if hints:
            check_hints(page, views[-1] if views else start_view(page, table, seat))
        buttons = page.locator("#actions button.move")
        k, before = rng.randrange(buttons.count()), drawn(page)
        with page.expect_response(f"**/api/play/{key}/act") as answered:
            if use_keys:
                page.keyboard.press(str(k + 1))
            else:
                buttons.nth(k).click()
        view = answered.value.json()
        assert view == seat_view(table.game, seat, table.labels)
        views.append(view)
        wait_drawn(page, before)
        if len(view["rounds"]) > rounds_shown:
            rounds_shown = len(view["rounds"])
            if on_result is not None:
                on_result()
            check_round_result(page, view, use_keys, record_game(table.game))
        if after is not None:
            after(len(views))
    return views


def start_view(page: Page, table: Any, seat: int) -> dict:
    return seat_view(table.game, seat, table.labels)
