"""Play in the browser: start ``grove-web`` and open its page.

``grove-web`` serves a page to play a table against agents, watch agents play, and
replay a game's record; it binds 127.0.0.1:8000 unless told otherwise. This tutorial
starts it on a free port, fetches the page as a browser would, and stops it; by hand,
run ``grove-web`` and open http://127.0.0.1:8000/.
"""

from __future__ import annotations

import re
import socket
import subprocess
import time
import urllib.request

from steps import ROOT, resolve


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fetch(url: str, seconds: float = 60.0) -> str:
    """The page at ``url``, waiting for the server to start."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as page:
                return page.read().decode()
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


port = free_port()
print(f"$ grove-web --port {port}")
server = subprocess.Popen([resolve("grove-web"), "--port", str(port)], cwd=ROOT)
try:
    html = fetch(f"http://127.0.0.1:{port}/")
    title = re.search(r"<title>(.*?)</title>", html, flags=re.S)
    print(f"GET / -> {len(html)} characters, title {title.group(1).strip() if title else None!r}")
finally:
    server.terminate()
    server.wait(timeout=30)
