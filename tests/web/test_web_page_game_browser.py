"""The page in a real browser: a whole game by clicks, a seat's page, replay, watching and
a hostile record (the shared steps and fixtures: ``browser_pages.py``; it skips, saying
which is missing, without playwright or Debian's chromium)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import browser_pages
import pytest
from browser_pages import Page, play_to_the_end, shot, start_play

from grove_env.core import Game
from grove_env.record import record_game
from grove_env.text import tile_name
from grove_env.web.words import move_words

pytestmark = pytest.mark.slow  # Chromium drives a live server

# the shared fixtures, by name
server, browser, page = browser_pages.server, browser_pages.browser, browser_pages.page


def test_a_whole_game_by_clicks_ends_with_the_servers_standings(
    page: Page, server: tuple[str, Any], tmp_path: Path
) -> None:
    started = start_play(page, "classic", 4, 0, ["heuristic", "greedy", "stack-avoider"], seed=4)
    key = started["id"]
    rules = page.locator("#rules-panel")  # folded away once the game starts; its summary opens it
    assert rules.get_attribute("open") is None and page.locator("#rules-goal").is_hidden()
    page.click("#rules-panel summary")
    assert page.locator("#rules-tiles").text_content() == "The 8 tiles: blank, 2, 3, 4, 5, 6, 7, 8."
    page.click("#rules-panel summary")

    def readme_shot(moves: int) -> None:
        if moves == 4:  # a few rounds in: markers on the table
            shot(page, tmp_path, "web.png")

    page.check("#hints-on")
    play_to_the_end(page, server[1], key, seat=0, use_keys=False, after=readme_shot, hints=True)
    game = server[1].get(key, "play").game
    assert game.terminal
    reason = page.locator("#end-reason").text_content()
    assert reason.startswith(f"The game ended after round {len(game.history)} because P")
    assert "8 or more end it" in reason or "no coloured marker left" in reason
    rank = game.standings()[0]
    ties = [s for s in (1, 2, 3) if game.standings()[s] == rank]
    place = page.locator("#place").text_content()
    assert place.startswith(f"You finished {rank}") and place.split()[3] == "of"
    assert (
        ("tied with " + ", ".join(f"P{s}" for s in ties)) in place if ties else "tied" not in place
    )
    assert page.locator("#victim .tile").text_content() not in ("?", "")
    rows = page.locator("#standings tbody tr").all()
    shown = {int(r.get_attribute("data-seat")): int(r.get_attribute("data-rank")) for r in rows}
    assert shown == dict(enumerate(game.standings()))
    scores = page.locator("#seats tbody td.score .count").all_text_contents()
    assert [int(s) for s in scores] == game.scores()
    assert "game over" in page.locator("#status").text_content()
    shot(page, tmp_path, "web-over.png")
    with page.expect_download() as saved:  # the played game's record, to replay
        page.click("#play-record-button")
    record = json.loads(Path(saved.value.path()).read_text())
    assert record["final"]["standings"] == game.standings() and record["seed"] == 4
    with page.expect_response("**/api/play") as again:
        page.click("#again-button")
    assert again.value.json()["id"] != key and page.locator("#result").is_hidden()


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
        assert '"deal"' not in body and '"dealt"' not in body
        assert (view["victim"] is None) != view["over"]  # revealed once the game is over
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
    error = page.locator("#error").text_content()
    assert error.startswith("broken.json is not a game record this page can replay")
    assert "not valid JSON" in error
