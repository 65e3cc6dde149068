"""Load on ``grove-web``: N clients play whole games for a while; requests/s, latency, errors.

The server runs as its own process (``python -m grove_env.web`` on a free port of
127.0.0.1), as it would be run. Before the load, one person starts a game and leaves it
idle. Then ``--clients`` threads, each on its own keep-alive connection, start a
person's game (the other seats played by ``--agents``), play random legal moves until
the game is over, and start the next, until ``--seconds`` have passed. A probe asks for
``/api/options`` (the cheapest route) every 0.1 s meanwhile: its latency shows whether
game work holds up the event loop. At the end the idle person's game must still be
served as it was left.

Prints requests/s, the p50/p95/max latency of the clients' requests and of the probe,
the errors (any answer but 200, or a failed connection), the games played, and whether
the idle game was served; ``--json`` writes the same figures. Exits 1 on any error or a
lost idle game.

Usage::

    python benchmarks/web_load.py --clients 50 --seconds 60
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Tally:
    """What the clients saw, under one lock."""

    latencies: list[float] = field(default_factory=list)
    probe: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    games: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


class Client:
    """One keep-alive connection to the server."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any, float]:
        data = None if method == "GET" else json.dumps({} if body is None else body)
        headers = {"content-type": "application/json"} if data is not None else {}
        start = time.perf_counter()
        try:
            self.connection.request(method, path, body=data, headers=headers)
            response = self.connection.getresponse()
            payload = response.read()
        except (OSError, http.client.HTTPException):
            self.connection.close()
            self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
            raise
        elapsed = time.perf_counter() - start
        return response.status, json.loads(payload), elapsed


def play_games(port: int, deadline: float, agents: list[str], seed: int, tally: Tally) -> None:
    """Whole games, one after another, until ``deadline``."""
    client, rng = Client(port), random.Random(seed)
    while time.monotonic() < deadline:
        rules, players = rng.choice([("classic", 4), ("revised", 5), ("classic", 3)])
        request = {"rules": rules, "players": players, "seat": rng.randrange(players)}
        request["agents"] = [rng.choice(agents) for _ in range(players - 1)]
        request["seed"] = rng.randrange(2**31)
        path, body, key = "/api/play", request, None
        while time.monotonic() < deadline:
            try:
                status, data, elapsed = client.call("POST", path, body)
            except (OSError, http.client.HTTPException) as err:
                with tally.lock:
                    tally.errors.append(f"{path}: {type(err).__name__}: {err}")
                break
            with tally.lock:
                tally.latencies.append(elapsed)
                if status != 200:
                    tally.errors.append(f"{path}: {status} {data.get('error', '')}")
            if status != 200:
                break
            view = data["view"] if key is None else data
            key = data["id"] if key is None else key
            if view["over"]:
                with tally.lock:
                    tally.games += 1
                break
            path, body = f"/api/play/{key}/act", {"action": rng.choice(view["legal"])["action"]}


def probe(port: int, deadline: float, tally: Tally) -> None:
    client = Client(port)
    while time.monotonic() < deadline:
        status, _, elapsed = client.call("GET", "/api/options")
        with tally.lock:
            tally.probe.append(elapsed)
            if status != 200:
                tally.errors.append(f"/api/options: {status}")
        time.sleep(0.1)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(port: int) -> subprocess.Popen[bytes]:
    server = subprocess.Popen(
        [sys.executable, "-m", "grove_env.web", "--port", str(port)], stdout=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            Client(port).call("GET", "/api/options")
            return server
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise SystemExit("web_load: the server did not start within 60 s")


def percentile(values: list[float], q: float) -> float:
    return (
        statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else 0.0
    )


def run(clients: int, seconds: float, agents: list[str]) -> dict[str, Any]:
    port = free_port()
    server = start_server(port)
    try:
        person = Client(port)
        request = {"rules": "classic", "players": 4, "seat": 1, "agents": ["heuristic"], "seed": 7}
        _, started, _ = person.call("POST", "/api/play", request)
        tally, deadline = Tally(), time.monotonic() + seconds
        threads = [
            threading.Thread(target=play_games, args=(port, deadline, agents, k, tally))
            for k in range(clients)
        ]
        threads.append(threading.Thread(target=probe, args=(port, deadline, tally)))
        begin = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - begin
        # A new connection: the server closes an idle keep-alive one, as a browser expects.
        status, idle_view, _ = Client(port).call("GET", f"/api/play/{started['id']}")
        idle_kept = status == 200 and idle_view == started["view"]
    finally:
        server.terminate()
        server.wait(timeout=30)
    ms = [1000 * x for x in tally.latencies]
    probe_ms = [1000 * x for x in tally.probe]
    return {
        "clients": clients,
        "seconds": round(wall, 1),
        "requests": len(ms),
        "requests_per_s": round(len(ms) / wall, 1),
        "p50_ms": round(percentile(ms, 50), 1),
        "p95_ms": round(percentile(ms, 95), 1),
        "max_ms": round(max(ms, default=0.0), 1),
        "probe_p50_ms": round(percentile(probe_ms, 50), 1),
        "probe_p95_ms": round(percentile(probe_ms, 95), 1),
        "games": tally.games,
        "errors": len(tally.errors),
        "first_errors": tally.errors[:5],
        "idle_game_served": idle_kept,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--clients", type=int, default=50)
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--agents", default="heuristic,random,greedy", help="specs the clients seat")
    p.add_argument("--json", default=None, help="also write the figures to this file")
    args = p.parse_args(argv)
    if args.clients < 1 or args.seconds <= 0:
        p.error("--clients must be at least 1 and --seconds above 0")
    figures = run(args.clients, args.seconds, args.agents.split(","))
    print(f"web_load: {figures['clients']} clients for {figures['seconds']} s")
    print(
        f"  {figures['requests']} requests, {figures['requests_per_s']} requests/s; "
        f"latency p50 {figures['p50_ms']} ms, p95 {figures['p95_ms']} ms, "
        f"max {figures['max_ms']} ms"
    )
    print(
        f"  probe GET /api/options during the load: p50 {figures['probe_p50_ms']} ms, "
        f"p95 {figures['probe_p95_ms']} ms"
    )
    print(f"  games played to the end: {figures['games']}; errors: {figures['errors']}")
    for error in figures["first_errors"]:
        print(f"    {error}")
    print(f"  the idle game started before the load is still served: {figures['idle_game_served']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=2)
    return 0 if figures["errors"] == 0 and figures["idle_game_served"] else 1


if __name__ == "__main__":
    sys.exit(main())
