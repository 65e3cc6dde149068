"""``grove-web``: serve the page to play, watch and replay games (bound to 127.0.0.1).

::

    grove-web [--host 127.0.0.1] [--port 8000] [--agent ppo:runs/x/best.zip ...]

Open the printed address in a browser. ``--agent`` adds specs that the page may choose
beyond the built-in agents, such as a trained policy file; the page can never name a
file itself.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from grove_env.agents.base import parse_spec
from grove_env.web.app import create_app

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="grove-web", description="Play, watch and replay In a Grove in the browser."
    )
    p.add_argument("--host", default=DEFAULT_HOST, help=f"address to bind (default {DEFAULT_HOST})")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    p.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="SPEC",
        help="an extra agent spec the page may choose, e.g. ppo:runs/x/best.zip (repeatable)",
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    import uvicorn  # the server of the 'web' extra, loaded only to serve

    for spec in args.agent:
        try:
            parse_spec(spec)
        except ValueError as err:
            print(f"grove-web: {err}")
            return 2
    app = create_app(extra_specs=args.agent)
    print(f"grove-web: open http://{args.host}:{args.port}/ (Ctrl-C stops)")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
