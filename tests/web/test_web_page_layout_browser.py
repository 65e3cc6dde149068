"""The page in a real browser: a phone-width layout, the page under its own CSP, and a
token in the address (the shared steps and fixtures: ``browser_pages.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import browser_pages
import pytest
from browser_pages import Page, play_to_the_end, shot, start_play
from web_server import serving

from grove_env.web.app import create_app

pytestmark = pytest.mark.slow  # Chromium drives a live server

# the shared fixtures, by name
server, browser, page = browser_pages.server, browser_pages.browser, browser_pages.page


def scroll_width(page: Page) -> tuple[int, int]:
    return page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")


def seats_width(page: Page) -> tuple[int, int]:
    """The seats table's scroll width and the width of the box that holds it."""
    return page.evaluate(
        "() => [document.querySelector('#seats').scrollWidth,"
        " document.querySelector('#seats-box').clientWidth]"
    )


def test_a_phone_width_page_never_scrolls_sideways(
    browser: Any, server: tuple[str, Any], tmp_path: Path
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, bypass_csp=True)
    page = context.new_page()
    page.goto(server[0] + "/")
    page.wait_for_selector("body[data-ready=true]")
    widths, seats = [scroll_width(page)], []
    started = start_play(page, "revised", 5, 2, ["heuristic"] * 4, seed=8)
    page.check("#hints-on")
    table = server[1].get(started["id"], "play")
    seen_result = False

    def measure(moves: int) -> None:
        widths.append(scroll_width(page))
        seats.append(seats_width(page))
        if moves == 2:
            shot(page, tmp_path, "web-phone.png")

    def measure_result() -> None:
        nonlocal seen_result
        widths.append(scroll_width(page))  # the held round result, stacks and all
        seats.append(seats_width(page))
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
    assert seats and all(0 < scroll <= box for scroll, box in seats), seats


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
    policies = page.locator("#hints-table th.policy").all_text_contents()
    assert policies == ["chance zoo:classic-2p plays it", "chance cfr plays it"]
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
