"""The server's games without HTTP: the store's limits, replays' memory, failing agents."""

from __future__ import annotations

import json
import random
import threading
import tracemalloc
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the 'web' extra (starlette) is not installed")

from web_server import call, serving  # noqa: E402

from grove_env.agents import base  # noqa: E402
from grove_env.agents.base import BaseAgent, register_agent  # noqa: E402
from grove_env.core import Game  # noqa: E402
from grove_env.record import record_game  # noqa: E402
from grove_env.web.app import create_app  # noqa: E402
from grove_env.web.requests import RequestError  # noqa: E402
from grove_env.web.sessions import Replay  # noqa: E402
from grove_env.web.store import Limits, SessionStore  # noqa: E402


class Fake:
    """A session for the store: a kind and whether it is finished."""

    def __init__(self, kind: str = "play", finished: bool = False) -> None:
        self.kind, self.finished, self.lock = kind, finished, threading.Lock()


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_games_expire_by_idle_time_and_use_keeps_them() -> None:
    clock = Clock()
    store = SessionStore(Limits(idle=60), clock)
    kept, dropped = store.add(Fake(), "a"), store.add(Fake(), "a")
    for _ in range(5):
        clock.now += 50
        store.get(kept, "play")  # used every 50 s: never idle for 60
    assert store.get(kept, "play").kind == "play"
    with pytest.raises(RequestError, match="no play game") as err:
        store.get(dropped, "play")
    assert err.value.status == 404 and len(store) == 1


def test_the_limit_per_kind_drops_finished_games_and_refuses_past_live_ones() -> None:
    store = SessionStore(Limits(per_kind=3, per_client=100), Clock())
    live = store.add(Fake(), "a")
    done = [store.add(Fake(finished=True), f"c{k}") for k in range(2)]
    other = store.add(Fake("watch"), "b")  # another kind has its own room
    store.add(Fake(), "d")  # the oldest finished game goes
    with pytest.raises(RequestError, match="no play game"):
        store.get(done[0], "play")
    store.add(Fake(), "e")  # the next one
    with pytest.raises(RequestError, match="live play games") as err:
        store.add(Fake(), "f")  # only live games left: refused
    assert err.value.status == 429
    assert store.get(live, "play") and store.get(other, "watch") and store.count("play") == 3


def test_the_limit_per_address_touches_only_that_address() -> None:
    store = SessionStore(Limits(per_kind=100, per_client=2), Clock())
    idle_person = store.add(Fake(), "10.0.0.1")
    for _ in range(20):  # a flood from one address: its own finished games make room
        store.add(Fake(finished=True), "10.0.0.2")
    store.add(Fake(), "10.0.0.2")
    store.add(Fake(), "10.0.0.2")
    with pytest.raises(RequestError, match="from your address"):
        store.add(Fake(), "10.0.0.2")
    store.add(Fake(), "10.0.0.1")
    assert store.get(idle_person, "play") and len(store) == 4


def test_an_id_of_another_kind_is_not_found() -> None:
    store = SessionStore(Limits(), Clock())
    key = store.add(Fake("watch"), "a")
    for kind in ("play", "replay"):
        with pytest.raises(RequestError, match=f"no {kind} game"):
            store.get(key, kind)
    for bad in ("", "x" * 17, "../../etc/passwd", key + "="):
        with pytest.raises(RequestError):
            store.get(bad, "watch")


def test_limits_must_be_positive() -> None:
    for bad in ({"idle": 0}, {"per_kind": 0}, {"per_client": -1}):
        with pytest.raises(ValueError, match="store limits must be positive"):
            Limits(**bad)


def finished_record(seed: int = 5) -> dict[str, Any]:
    game, rng = Game("classic", 4, seed=seed), random.Random(seed)
    while not game.terminal:
        game.apply_action(rng.choice(game.legal_actions()))
    return record_game(game, ["a", "b", "c", "d"])


def test_a_replay_keeps_only_what_it_needs() -> None:
    """A valid record padded to about 1.9 MB leaves a replay of a few kB."""
    record = finished_record()
    share = 1_800_000 // len(record["rounds"])  # bytes of padding per round
    for r in record["rounds"]:  # padding the loader reads past: per round and per move
        r["note"] = ["x" * 20] * (share // 48)
        for move in r["actions"]:
            move["why"] = {"k": list(range(share // len(r["actions"]) // 14))}
    body = json.dumps(record)
    assert 1_500_000 < len(body) < 2_000_000
    data = json.loads(body)
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    replay = Replay(data)
    del data
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    kept = sum(s.size_diff for s in after.compare_to(before, "filename"))
    assert kept < 200_000, kept
    assert replay.view(len(replay.steps), None)["over"]


def test_a_replay_refuses_a_label_too_long() -> None:
    record = finished_record()
    record["players"][2] = "x" * 201
    with pytest.raises(RequestError, match="player label 2 is over 200 characters"):
        Replay(record)


class Breaks(BaseAgent):
    """Plays the first legal move, and fails on its ``fail_at``-th decision."""

    name = "breaks"

    def __init__(self, fail_at: int) -> None:
        self.fail_at, self.calls = fail_at, 0

    def act(self, observation: dict) -> int:
        self.calls += 1
        if self.calls == self.fail_at:
            raise RuntimeError("out of cheese\nsecond line")
        return int(observation["action_mask"].argmax())


@pytest.fixture
def breaking_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))
    register_agent("breaks", lambda arg, seed=None: Breaks(int(arg or 3)))
    with serving(create_app(extra_specs=["breaks:3"])) as url:
        yield url


def test_an_agent_failing_mid_game_is_a_409_and_the_game_goes_on(breaking_server: str) -> None:
    base_url = breaking_server
    request = {"rules": "classic", "players": 2, "seat": 0, "agents": ["breaks:3"], "seed": 1}
    status, data = call(base_url, "POST", "/api/play", request)
    key, view = data["id"], data["view"]
    failures = []
    while not view["over"]:
        status, data = call(
            base_url, "POST", f"/api/play/{key}/act", {"action": view["legal"][0]["action"]}
        )
        if status == 409:
            failures.append(data["error"])
            status, data = call(base_url, "GET", f"/api/play/{key}")
        assert status == 200, data
        view = data
    assert len(failures) == 1 and "\n" not in failures[0]
    assert failures[0].startswith("the agent at P1 (breaks:3) failed: out of cheese")
    assert view["seats"][1]["label"] == "random (for breaks:3)"
    status, data = call(base_url, "POST", "/api/watch", {**request, "agents": ["breaks:3"]})
    assert status == 400  # 'seat' is a play key, not a watch key


@pytest.mark.slow
def test_the_load_benchmark_runs_at_a_tiny_size(tmp_path: Any) -> None:
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "benchmarks" / "web_load.py"
    out = tmp_path / "load.json"
    args = ["--clients", "2", "--seconds", "2", "--agents", "random", "--json", str(out)]
    done = subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    figures = json.loads(out.read_text())
    assert figures["errors"] == 0 and figures["idle_game_served"] and figures["requests"] > 10
    assert "requests/s" in done.stdout and "p95" in done.stdout
