"""The server's gate: Host allow-list, access token, JSON-only POSTs, security headers, CLI."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the 'web' extra (starlette) is not installed")
pytest.importorskip("uvicorn", reason="the 'web' extra (uvicorn) is not installed")

import uvicorn  # noqa: E402
from web_server import call, serving  # noqa: E402

from grove_env.web import cli  # noqa: E402
from grove_env.web.app import create_app  # noqa: E402
from grove_env.web.guard import host_name  # noqa: E402

TOKEN = "s3cret-token"
PLAY = {"rules": "classic", "players": 2, "agents": ["random"], "seed": 1}


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with serving(create_app()) as base:
        yield base


@pytest.fixture(scope="module")
def locked() -> Iterator[str]:
    with serving(create_app(token=TOKEN)) as base:
        yield base


def raw_request(base: str, method: str, path: str, headers: dict[str, str], body: bytes = b""):
    host, port = base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    connection.putrequest(method, path, skip_host="host" in {k.lower() for k in headers})
    for key, value in headers.items():
        connection.putheader(key, value)
    connection.putheader("content-length", str(len(body)))
    connection.endheaders(body)
    response = connection.getresponse()
    result = response.status, dict(response.getheaders()), response.read()
    connection.close()
    return result


@pytest.mark.parametrize(
    "host", ["evil.example", "evil.example:8000", "127.0.0.2", "localhost.evil.example", ""]
)
def test_a_host_outside_the_allow_list_is_refused(server: str, host: str) -> None:
    for path in ("/", "/api/options"):
        status, _, body = raw_request(server, "GET", path, {"host": host})
        assert status == 421 and "is not served here" in json.loads(body)["error"]


@pytest.mark.parametrize("host", ["localhost:8000", "127.0.0.1", "[::1]:8000", "LOCALHOST"])
def test_loopback_names_are_served(server: str, host: str) -> None:
    status, _, _ = raw_request(server, "GET", "/api/options", {"host": host})
    assert status == 200


def test_host_names_without_ports() -> None:
    assert [host_name(h) for h in ("a.b:80", "[::1]:8000", "::1", "x")] == [
        "a.b",
        "::1",
        "::1",
        "x",
    ]


@pytest.mark.parametrize(
    "media", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", ""]
)
def test_a_post_must_be_json(server: str, media: str) -> None:
    body = json.dumps(PLAY).encode()
    status, _, answer = raw_request(server, "POST", "/api/play", {"content-type": media}, body)
    assert status == 415 and "must be application/json" in json.loads(answer)["error"]
    status, _, _ = raw_request(
        server, "POST", "/api/play", {"content-type": "application/json; charset=utf-8"}, body
    )
    assert status == 200


def test_every_answer_has_the_security_headers(server: str) -> None:
    for path in ("/", "/static/app.js", "/api/options", "/api/play/nothing"):
        status, headers, _ = raw_request(server, "GET", path, {})
        headers = {k.lower(): v for k, v in headers.items()}
        csp = headers["content-security-policy"]
        assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
        assert "unsafe-inline" not in csp and "default-src 'none'" in csp
        assert headers["x-frame-options"] == "DENY"
        assert headers["x-content-type-options"] == "nosniff"
        assert (headers.get("cache-control") == "no-store") == path.startswith("/api/")


def test_with_a_token_every_api_call_needs_it(locked: str) -> None:
    assert call(locked, "GET", "/")[0] == 200  # the page itself holds nothing
    for method, path in [("GET", "/api/options"), ("POST", "/api/play"), ("GET", "/api/x")]:
        for headers in ({}, {"authorization": "Bearer wrong"}, {"authorization": TOKEN}):
            status, data = call(locked, method, path, PLAY, headers=headers)
            assert status == 401 and "access token" in data["error"]
    good = {"authorization": f"Bearer {TOKEN}"}
    status, data = call(locked, "POST", "/api/play", PLAY, headers=good)
    assert status == 200
    assert call(locked, "GET", f"/api/play/{data['id']}", headers=good)[0] == 200


def served(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> dict[str, Any]:
    """What ``grove-web argv`` would serve, without serving it."""
    seen: dict[str, Any] = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: seen.update(app=app, **kw))
    seen["code"] = cli.main(argv)
    return seen


def test_the_command_line_binds_to_localhost_and_checks_its_specs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    args = cli.build_parser().parse_args([])
    assert (args.host, args.port, args.agent, args.token) == ("127.0.0.1", 8000, [], None)
    monkeypatch.delenv(cli.TOKEN_VARIABLE, raising=False)
    seen = served(monkeypatch, [])
    out = capsys.readouterr()
    assert seen["host"] == "127.0.0.1" and "WARNING" not in out.err
    assert "open http://127.0.0.1:8000/ " in out.out
    for bad, message in [
        (["--agent", "no-such-agent"], "unknown agent 'no-such-agent'"),
        (["--agent", "ppo"], "the ppo agent needs a path"),
        (["--idle", "0"], "store limits must be positive"),
        (["--workers", "0"], "--workers must be at least 1"),
    ]:
        assert served(monkeypatch, bad)["code"] == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err


def test_binding_beyond_loopback_warns_and_takes_a_token(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(cli.TOKEN_VARIABLE, raising=False)
    served(monkeypatch, ["--host", "0.0.0.0", "--allow-host", "grove.lan"])
    out = capsys.readouterr()
    assert "WARNING: 0.0.0.0 is reachable beyond this machine" in out.err
    assert "set an access token" in out.err
    monkeypatch.setenv(cli.TOKEN_VARIABLE, "from-env")
    seen = served(monkeypatch, ["--host", "192.168.1.5"])
    out = capsys.readouterr()
    assert "WARNING" in out.err and "set an access token" not in out.err
    assert "open http://192.168.1.5:8000/#token=from-env" in out.out
    with serving(seen["app"]) as base:
        status, _, _ = raw_request(base, "GET", "/api/options", {"host": "192.168.1.5:8000"})
        assert status == 401  # the bound address is served, with the token
        headers = {"host": "192.168.1.5", "authorization": "Bearer from-env"}
        assert raw_request(base, "GET", "/api/options", headers)[0] == 200


def test_without_the_web_extra_help_works_and_serving_is_one_line(monkeypatch, capsys) -> None:
    # A plain `pip install grove-env` has no starlette: --help still answers, and the
    # server says in one line which extra to install (the import is guarded in cli.py).
    from grove_env.web import cli

    monkeypatch.setattr(cli, "create_app", None)
    assert cli.main(["--port", "1"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'grove-env[web]'" in err
    with pytest.raises(SystemExit) as done:
        cli.main(["--help"])
    assert done.value.code == 0 and "--host" in capsys.readouterr().out
