"""The page in a real browser: Playwright driving the system's Chromium (no browser download).

Needs the Python package ``playwright`` and Debian's ``chromium`` (``apt-get install
chromium``); the tests skip, saying which is missing, without them. Screenshots go to
pytest's temporary folder, or to ``$GROVE_WEB_SCREENSHOTS`` when it is set (the README's
``docs/web.png`` is made with ``GROVE_WEB_SCREENSHOTS=docs``).
"""

from __future__ import annotations

import json
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

from grove_env.core import Game  # noqa: E402
from grove_env.record import record_game  # noqa: E402
from grove_env.text import tile_name  # noqa: E402
from grove_env.web.app import create_app  # noqa: E402
from grove_env.web.views import seat_view  # noqa: E402
from grove_env.web.words import move_words  # noqa: E402

pytestmark = pytest.mark.slow  # Chromium drives a live server

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


def check_round_result(page: Page, view: dict, use_keys: bool) -> None:
    """The round that just ended is on screen, the next round's table is not; then go on."""
    done = view["rounds"][-1]
    panel = page.locator("#round-result")
    assert panel.is_visible() and page.locator("#actions").is_hidden()
    assert page.locator("#table").is_hidden()
    title = page.locator("#round-title").text_content()
    assert title.startswith(f"Round {done['round']}: suspect {done['culprit']} ")
    cards = panel.locator(".card")
    assert cards.count() == 3 and cards.nth(done["culprit"]).locator(".badge.culprit").count() == 1
    for slot in range(3):
        markers = cards.nth(slot).locator(".marker").all_text_contents()
        assert [m.split()[0] for m in markers] == [f"P{s}" for s in done["stacks"][slot]]
    first = done["first_player"]  # the unseen badge names who did not look, not the viewer
    badge = cards.nth(done["unseen_slot"]).locator(".badge.unseen").text_content()
    assert badge == ("UNSEEN BY YOU" if first == view["seat"] else f"UNSEEN BY P{first}")
    lines = page.locator("#round-lines li").all_text_contents()
    for slot, to, count in done["penalty_flows"]:
        assert f"Suspect {slot} was innocent: its {count} marker(s) go to P{to}," in " ".join(lines)
    before = drawn(page)
    if use_keys:
        page.keyboard.press("Enter")
    else:
        page.click("#continue-button")
    wait_drawn(page, before)
    assert panel.is_hidden()


def check_hints(page: Page, view: dict) -> None:
    """The hints panel lists every legal move (computed for this very view)."""
    page.wait_for_selector(f"#hints[data-draw='{drawn(page)}']")
    rows = page.locator("#hints-table tbody tr")
    shown = [int(r.get_attribute("data-action")) for r in rows.all()]
    assert shown == [m["action"] for m in view["legal"]]
    if view["phase"] == "accuse":
        penalties = page.locator("#hints-table td.penalty").all_text_contents()
        assert all(float(p) >= 0 for p in penalties)


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
            check_round_result(page, view, use_keys)
        if after is not None:
            after(len(views))
    return views


def start_view(page: Page, table: Any, seat: int) -> dict:
    return seat_view(table.game, seat, table.labels)


def test_a_whole_game_by_clicks_ends_with_the_servers_standings(
    page: Page, server: tuple[str, Any], tmp_path: Path
) -> None:
    started = start_play(page, "classic", 4, 0, ["heuristic", "greedy", "stack-avoider"], seed=4)
    key = started["id"]

    def readme_shot(moves: int) -> None:
        if moves == 4:  # a few rounds in: markers on the table
            shot(page, tmp_path, "web.png")

    page.check("#hints-on")
    play_to_the_end(page, server[1], key, seat=0, use_keys=False, after=readme_shot, hints=True)
    game = server[1].get(key, "play").game
    assert game.terminal
    reason = page.locator("#end-reason").text_content()
    assert reason.startswith("Ended by P") and "The game ends after a round" in reason
    rows = page.locator("#standings tbody tr").all()
    shown = {int(r.get_attribute("data-seat")): int(r.get_attribute("data-rank")) for r in rows}
    assert shown == dict(enumerate(game.standings()))
    scores = page.locator("#seats tbody td.score").all_text_contents()
    assert [int(s) for s in scores] == game.scores()
    assert "game over" in page.locator("#status").text_content()
    shot(page, tmp_path, "web-over.png")


def test_a_seats_page_never_receives_a_hidden_tile(page: Page, server: tuple[str, Any]) -> None:
    started = start_play(page, "revised", 5, 3, ["bluffer", "piler", "follower", "random"], seed=9)
    responses: list[Any] = []
    page.on("response", lambda r: responses.append(r) if "/api/play" in r.url else None)
    views = play_to_the_end(page, server[1], started["id"], seat=3, use_keys=True)
    sent = [started["view"]] + [r.json() for r in responses]
    assert len(sent) == len(views) + 1
    for view in sent:
        body = json.dumps(view)
        assert view["kind"] == "seat" and view["seat"] == 3
        assert '"deal"' not in body and '"dealt"' not in body and '"victim": null' in body
        known = sum(t is not None for t in view["my_tiles"] + [s["tile"] for s in view["suspects"]])
        assert known <= 4  # its own two tiles and at most the two suspects it looked at


def test_a_replay_shows_every_step_of_the_record(page: Page, tmp_path: Path) -> None:
    game, rng = Game("classic", 3, seed=12), random.Random(12)
    while not game.terminal:
        game.apply_action(rng.choice(game.legal_actions()))
    data = record_game(game, ["alice", "bob", "carol"])
    path = tmp_path / "game.json"
    path.write_text(json.dumps(data))
    page.click("#tab-replay")
    page.set_input_files("#record-file", str(path))
    steps = [(r, a) for r in data["rounds"] for a in r["actions"]]
    page.wait_for_function(f"document.querySelector('#steps').textContent === '{len(steps)}'")
    for k, (round_data, move) in enumerate(steps, start=1):
        page.keyboard.press("ArrowRight")
        page.wait_for_function(f"document.querySelector('#step').textContent === '{k}'")
        assert (
            page.locator("#last-move").text_content()
            == f"Last move: P{move['seat']}: {move_words(move['action'])}"
        )
        if move is round_data["actions"][-1]:  # the round ended: its reveal and the counts
            result = round_data["result"]
            assert (
                page.locator("#last-round")
                .text_content()
                .startswith(
                    f"Round {round_data['number']}: suspects "
                    + ", ".join(
                        f"{s}: {tile_name(t, 'classic')}" for s, t in enumerate(result["suspects"])
                    )
                )
            )
            coloured = page.locator("#seats tbody td.coloured").all_text_contents()
            penalty = page.locator("#seats tbody td.penalty").all_text_contents()
            assert [int(c.split()[-1]) for c in coloured] == result["coloured"]
            assert [int(p.split()[-1]) for p in penalty] == result["penalty"]
    ranks = page.locator("#standings tbody tr").all()
    assert {
        int(r.get_attribute("data-seat")): int(r.get_attribute("data-rank")) for r in ranks
    } == dict(enumerate(data["final"]["standings"]))
    page.select_option("#view-select", "1")
    page.wait_for_function("document.querySelector('#mine').textContent.includes('Your tile')")
    shot(page, tmp_path, "web-replay.png")


def test_watching_agents_play_at_speed(page: Page, server: tuple[str, Any], tmp_path: Path) -> None:
    page.click("#tab-watch")
    form = page.locator("#form-watch")
    form.locator(".players").select_option("3")
    form.locator("input[name=seed]").fill("3")
    with page.expect_response("**/api/watch") as started:
        page.click("#start-watch")
    key = started.value.json()["id"]
    page.click("#step-button")
    page.wait_for_function("document.querySelector('#moves').children.length > 0")
    page.select_option("#speed", "100")
    page.click("#run-button")
    page.wait_for_selector("#result:not([hidden])", timeout=60_000)
    game = server[1].get(key, "watch").game
    rows = page.locator("#standings tbody tr").all()
    assert {
        int(r.get_attribute("data-seat")): int(r.get_attribute("data-rank")) for r in rows
    } == dict(enumerate(game.standings()))
    shot(page, tmp_path, "web-watch.png")


def test_a_hostile_record_is_shown_as_text_or_refused(page: Page, tmp_path: Path) -> None:
    game = Game("classic", 2, seed=1)
    while not game.terminal:
        game.apply_action(game.legal_actions()[0])
    trap = '<img src=x onerror="document.body.dataset.owned=1">'
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(record_game(game, [trap, "bob"])))
    page.click("#tab-replay")
    page.set_input_files("#record-file", str(path))
    page.wait_for_function("document.querySelector('#steps').textContent !== '0'")
    assert trap in page.locator("#seats").text_content()
    assert (
        page.locator("#board img").count() == 0 and page.get_attribute("body", "data-owned") is None
    )
    (tmp_path / "broken.json").write_text('{"format": "grove-record", "rounds": ')
    page.set_input_files("#record-file", str(tmp_path / "broken.json"))
    page.wait_for_selector("#error:not([hidden])")
    assert "not valid JSON" in page.locator("#error").text_content()


def scroll_width(page: Page) -> tuple[int, int]:
    return page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")


def test_a_phone_width_page_never_scrolls_sideways(
    browser: Any, server: tuple[str, Any], tmp_path: Path
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, bypass_csp=True)
    page = context.new_page()
    page.goto(server[0] + "/")
    page.wait_for_selector("body[data-ready=true]")
    widths = [scroll_width(page)]
    started = start_play(page, "revised", 5, 2, ["heuristic"] * 4, seed=8)
    page.check("#hints-on")
    table = server[1].get(started["id"], "play")
    seen_result = False

    def measure(moves: int) -> None:
        widths.append(scroll_width(page))
        if moves == 2:
            shot(page, tmp_path, "web-phone.png")

    def measure_result() -> None:
        nonlocal seen_result
        widths.append(scroll_width(page))  # the held round result, stacks and all
        if not seen_result:
            shot(page, tmp_path, "web-phone-round.png")
        seen_result = True

    play_to_the_end(
        page,
        server[1],
        started["id"],
        2,
        False,
        after=measure,
        hints=True,
        on_result=measure_result,
    )
    widths.append(scroll_width(page))
    for mode in ("watch", "replay"):
        page.click(f"#tab-{mode}")
        widths.append(scroll_width(page))
    context.close()
    assert seen_result and table.game.terminal and len(widths) > 5
    assert all(scroll <= inner == 390 for scroll, inner in widths), widths


def test_the_page_runs_under_its_own_csp(browser: Any, server: tuple[str, Any]) -> None:
    """No bypass here: the page's script and style load, play works, nothing is blocked."""
    context = browser.new_context(viewport={"width": 1200, "height": 1000})
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda err: problems.append(str(err)))
    page.on(
        "console",
        lambda m: problems.append(m.text) if "Content Security Policy" in m.text else None,
    )
    page.goto(server[0] + "/")
    page.wait_for_selector("body[data-ready=true]")
    start_play(page, "classic", 2, 0, ["cfr"], seed=2)
    page.check("#hints-on")
    page.wait_for_selector("#hints-table tbody tr")
    assert page.locator("#hints-policy").text_content() == "cfr plays it"
    with page.expect_response("**/act"):
        page.locator("#actions button.move").first.click()
    assert page.locator("#rules-round li").count() >= 5
    context.close()
    assert problems == [], problems


def test_a_token_in_the_address_opens_a_locked_server(browser: Any) -> None:
    with serving(create_app(token="t0ken")) as base:
        context = browser.new_context(bypass_csp=True)
        page = context.new_page()
        page.goto(base + "/")
        page.wait_for_selector("#error:not([hidden])")
        assert "access token" in page.locator("#error").text_content()
        page.goto(base + "/#token=t0ken")
        page.reload()
        page.wait_for_selector("body[data-ready=true]")
        started = start_play(page, "classic", 3, 1, ["random", "random"], seed=1)
        assert started["view"]["seat"] == 1
        context.close()
