"""Hostile input to the web server over real HTTP (issue 25, items 1 and 11): bodies the
strict decoder refuses never reach the daemon's command channel, oversized bodies are refused
before they are read, odd cookies and headers are no session rather than a crash, and the
session cookie is ``Secure`` when the config says so.

Before: ``{"args":{"amount":NaN}}`` went to the daemon (and killed it), a CSRF header with a
non-ASCII byte was a 500 (``hmac.compare_digest`` of a non-ASCII str), and ``[web]
secure_cookie`` was refused by the config as an unknown key.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Broker, free_port
from tests.web.conftest import PASSWORDS, users_toml
from tests.web.fake_table import FakeTable
from tests.web.test_cli import CONFIG, spawn, wait_http
from tests.web.test_http import Browserless

HOSTILE_BODIES: tuple[tuple[bytes, str], ...] = (
    (b'{"args":{"amount":NaN}}', "NaN"),
    (b'{"args":{"amount":Infinity}}', "Infinity"),
    (b'{"args":{"amount":-Infinity}}', "Infinity"),
    (b'{"args":{"seat":9223372036854775808}}', "out of range"),
    (b'{"args":{"amount":1e999}}', "out of range"),
    (b'{"args":{"name":"A\\u0000B"}}', "U+0000"),
    (b'{"args":{"seat":1,"seat":2}}', "twice"),
    (b'{"args":' + b"[" * 2000 + b"]" * 2000 + b"}", "nested deeper"),
    (b'{"args":{"name":"\xff"}}', "not UTF-8"),
    (b'{"args":{},"v":2}', "unknown field"),
    (b'{"args":[1]}', "must be a JSON object"),
    (b'[1,2]', "must be a JSON object"),
    (b'{"args":{"name":"' + b"x" * 300 + b'"}}', "characters"),
    (b'{"args":', "not JSON"),
)


async def dealer_of(url: str) -> tuple[Browserless, str]:
    dealer = Browserless(url)
    info = await dealer.login("dealer1")
    return dealer, str(info["csrf"])


async def test_bodies_the_strict_decoder_refuses_never_reach_the_daemon(
        stack_factory: Any) -> None:
    stack = await stack_factory()
    table = FakeTable(stack.broker.port)
    try:
        dealer, csrf = await dealer_of(stack.url)
        for body, why in HOSTILE_BODIES:
            status, reply = await dealer.post("/api/cmd/action", body,
                                              **{"X-CSRF-Token": csrf})
            assert status == 400, (body[:40], status, reply)
            assert reply["ok"] is False and reply["error"]["code"] == "bad_request"
            assert why in reply["error"]["reason"], (body[:40], reply)
            assert reply["error"]["what"]
        assert table.commands == []          # nothing refused reached the daemon
        # the server and the session are fine: a good command still goes through
        status, reply = await dealer.post("/api/cmd/start_hand", b'{"args": {}}',
                                          **{"X-CSRF-Token": csrf})
        assert status == 200 and reply["ok"] is True, reply
        assert [name for name, _ in table.commands] == ["start_hand"]
    finally:
        table.close()


def raw_request(port: int, head: bytes, body: bytes = b"") -> tuple[int, dict[str, str], bytes]:
    """One request written byte for byte; the status, headers and body of the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(head + body)
        resp = http.client.HTTPResponse(sock)
        resp.begin()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()


async def test_an_oversized_body_is_refused_before_it_is_read(stack_factory: Any) -> None:
    stack = await stack_factory()
    table = FakeTable(stack.broker.port)
    port = int(stack.url.rsplit(":", 1)[1])
    try:
        dealer, csrf = await dealer_of(stack.url)
        cookie = next(c for c in dealer.opener.handlers  # the session cookie's value
                      if hasattr(c, "cookiejar")).cookiejar
        session = next(iter(cookie)).value
        head = (f"POST /api/cmd/action HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                f"Cookie: tablectl_session={session}\r\nX-CSRF-Token: {csrf}\r\n"
                "Content-Type: application/json\r\n").encode()
        # a declared gigabyte, none of it sent: answered at once
        status, _, body = await asyncio.to_thread(
            raw_request, port, head + b"Content-Length: 1000000000\r\n\r\n")
        assert status == 413 and json.loads(body)["error"]["code"] == "bad_request"
        # chunked, no length: refused when it passes the limit
        chunk = b'{"args":{"name":"' + b"x" * 20000
        status, _, body = await asyncio.to_thread(
            raw_request, port, head + b"Transfer-Encoding: chunked\r\n\r\n",
            f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n0\r\n\r\n")
        assert status == 413 and json.loads(body)["error"]["code"] == "bad_request"
        status, _, body = await asyncio.to_thread(
            raw_request, port, head + b"Content-Length: 12abc\r\n\r\n")
        assert status == 400
        assert table.commands == []
    finally:
        table.close()


async def test_odd_cookies_headers_and_forms_are_refused_not_a_crash(
        stack_factory: Any) -> None:
    stack = await stack_factory()
    port = int(stack.url.rsplit(":", 1)[1])
    table = FakeTable(stack.broker.port)
    try:
        dealer, csrf = await dealer_of(stack.url)
        session = next(iter(next(h for h in dealer.opener.handlers
                                 if hasattr(h, "cookiejar")).cookiejar)).value
        base = f"Host: 127.0.0.1:{port}\r\n".encode()
        for cookie in (b"x" * 4000, b"caf\xe9", b"\x01\x02", b""):
            status, _, _ = await asyncio.to_thread(
                raw_request, port, b"GET /api/session HTTP/1.1\r\n" + base
                + b"Cookie: tablectl_session=" + cookie + b"\r\n\r\n")
            assert status == 401
        # a CSRF header with a byte that is not ASCII (was a 500 from hmac.compare_digest)
        for token in (b"caf\xe9", b"x" * 3000, csrf.encode() + b"\xe9"):
            status, _, body = await asyncio.to_thread(
                raw_request, port, b"POST /api/cmd/start_hand HTTP/1.1\r\n" + base
                + f"Cookie: tablectl_session={session}\r\n".encode()
                + b"X-CSRF-Token: " + token + b"\r\nContent-Length: 2\r\n\r\n", b"{}")
            assert status == 403 and json.loads(body)["error"]["code"] == "csrf"
        # login forms that are not text, or too much of it
        form = "application/x-www-form-urlencoded"
        for body, status_wanted in ((b"user=%FF%FE&password=x", 400),
                                    (b"user=a%00b&password=x", 400),
                                    (b"user=" + b"a" * 5000, 413),
                                    (b"&".join([b"a=1"] * 50), 400)):
            status, reply = await dealer.post("/login", body, **{"Content-Type": form})
            assert status == status_wanted, (body[:30], status, reply)
            assert reply["error"]["code"] == "bad_request"
        other = Browserless(stack.url)
        assert (await other.login("dealer1"))["role"] == "dealer"   # logins still work
        assert table.commands == []
    finally:
        table.close()


def login_cookie(port: int, *headers: str) -> str:
    """The Set-Cookie header of a good dealer login."""
    form = f"user=dealer1&password={PASSWORDS['dealer1']}".encode()
    head = (f"POST /login HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Content-Type: application/x-www-form-urlencoded\r\n"
            + "".join(h + "\r\n" for h in headers)
            + f"Content-Length: {len(form)}\r\n\r\n").encode()
    status, answer, _ = raw_request(port, head, form)
    assert status == 303, status
    return answer["set-cookie"]


@pytest.mark.parametrize(("setting", "proxy", "secure"), [
    (True, False, True), (False, True, False), (None, True, True), (None, False, False)])
async def test_the_session_cookie_is_secure_as_configured(
        stack_factory: Any, setting: bool | None, proxy: bool, secure: bool) -> None:
    """``None``: Secure when the login came over HTTPS, as a TLS proxy on this machine says
    with X-Forwarded-Proto (uvicorn trusts it from 127.0.0.1 only)."""
    stack = await stack_factory()
    stack.server.settings = type(stack.server.settings)(table="t01", secure_cookie=setting)
    port = int(stack.url.rsplit(":", 1)[1])
    extra = ("X-Forwarded-Proto: https",) if proxy else ()
    cookie = await asyncio.to_thread(login_cookie, port, *extra)
    assert cookie.startswith("tablectl_session=")
    assert ("; secure" in cookie.lower()) is secure, cookie


async def test_web_secure_cookie_in_the_config_makes_the_cookie_secure(
        tmp_path: Path, mosquitto: Broker) -> None:
    """Item 11 end to end: ``tablectl web --config`` with ``[web] secure_cookie = true``."""
    port = free_port()
    (tmp_path / "users.toml").write_text(users_toml())
    (tmp_path / "web.toml").write_text('username = "web-t01"\npassword = "x"\n')
    (tmp_path / "console.toml").write_text('username = "console-t01"\npassword = "x"\n')
    config = tmp_path / "t01.toml"
    config.write_text(CONFIG.format(broker=mosquitto.port, port=port)
                      + "secure_cookie = true\n")
    proc = spawn(config)
    try:
        await asyncio.to_thread(wait_http, f"http://127.0.0.1:{port}", proc)
        cookie = await asyncio.to_thread(login_cookie, port)
        assert "; secure" in cookie.lower(), cookie
    finally:
        proc.terminate()
        try:
            proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
