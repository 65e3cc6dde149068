"""``grove-web``: serve the page to play, watch and replay games (bound to 127.0.0.1).

::

    grove-web [--host 127.0.0.1] [--port 8000] [--agent ppo:RUN ...]
              [--allow-host NAME ...] [--token TOKEN] [--idle 1800]
              [--max-games 256] [--max-per-client 64] [--workers 4]

Open the printed address in a browser. ``--agent`` adds specs that the page may choose
beyond the built-in agents, such as ``ppo:RUN``, the run directory ``train.py`` printed
(``ppo:runs/smoke-s0-<time>``); the page can never name a file itself. ``--host`` other
than loopback makes the server reachable from other machines: it then warns, serves only
the Host names given with ``--allow-host``, and should be run with an access token
(``--token`` or ``$GROVE_WEB_TOKEN``), which every API call must then carry; the printed
address has it after ``#token=``, where the page reads it (a fragment never reaches a
server log).
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import sys
from collections.abc import Sequence

from grove_env.web.guard import LOOPBACK
from grove_env.web.store import DEFAULT_IDLE, DEFAULT_PER_CLIENT, DEFAULT_PER_KIND, Limits

NEEDS = "the server needs the 'web' extra: pip install 'grove-env[web]'"
try:  # the server needs the 'web' extra; --help and the argument checks do not
    from grove_env.web.app import create_app
except ModuleNotFoundError as missing:
    create_app = None  # type: ignore[assignment]
    NEEDS += f" ({missing.name} is missing)"

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
TOKEN_VARIABLE = "GROVE_WEB_TOKEN"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="grove-web", description="Play, watch and replay In a Grove in the browser."
    )
    add = p.add_argument
    add("--host", default=DEFAULT_HOST, help=f"address to bind (default {DEFAULT_HOST})")
    add("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    add(
        "--agent",
        action="append",
        default=[],
        metavar="SPEC",
        help="an extra agent spec the page may offer, e.g. ppo:RUN with RUN the run directory "
        "train.py printed, such as ppo:runs/smoke-s0-<time> (repeatable)",
    )
    add(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a Host name to serve besides 127.0.0.1, localhost and ::1 (repeatable)",
    )
    add("--token", help=f"access token every API call must carry (default ${TOKEN_VARIABLE})")
    add("--idle", type=float, default=DEFAULT_IDLE, help="seconds before an idle game expires")
    add("--max-games", type=int, default=DEFAULT_PER_KIND, help="games held per kind")
    add("--max-per-client", type=int, default=DEFAULT_PER_CLIENT, help="games per address")
    add("--workers", type=int, default=4, help="game moves computed at once (threads)")
    return p


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if create_app is None:
        print(f"grove-web: {NEEDS}", file=sys.stderr)
        return 1
    import uvicorn  # the server of the 'web' extra, loaded only to serve

    token = args.token or os.environ.get(TOKEN_VARIABLE) or None
    try:
        limits = Limits(args.idle, args.max_games, args.max_per_client)
        if args.workers < 1:
            raise ValueError(f"--workers must be at least 1, got {args.workers}")
        hosts = [*LOOPBACK, *args.allow_host] + ([] if is_loopback(args.host) else [args.host])
        app = create_app(args.agent, limits, hosts, token, args.workers)
    except ValueError as err:
        print(f"grove-web: {err}", file=sys.stderr)
        return 2
    if not is_loopback(args.host):
        print(
            f"grove-web: WARNING: {args.host} is reachable beyond this machine; anyone who can "
            "reach it can start games on it"
            + ("" if token else f"; set an access token (--token or ${TOKEN_VARIABLE})"),
            file=sys.stderr,
        )
    fragment = f"#token={token}" if token else ""
    shown = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    print(f"grove-web: open http://{shown}:{args.port}/{fragment} (Ctrl-C stops)")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
