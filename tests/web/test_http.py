"""The server's HTTP rules without a browser: login, roles, CSRF, command validation, config."""

from __future__ import annotations

import asyncio
import http.cookiejar
import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tablectl.config import load_config
from tablectl.domain.errors import ConfigError
from tests.web.conftest import PASSWORDS
from tests.web.fake_table import FakeTable


class Browserless:
    """A cookie-keeping HTTP client (blocking calls run in a thread)."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.last_url = ""
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def _call(self, path: str, data: bytes | None, headers: dict[str, str]) -> tuple[int, Any]:
        req = urllib.request.Request(self.base + path, data=data, headers=headers)
        try:
            with self.opener.open(req, timeout=10) as resp:
                body = resp.read()
                status = resp.status
                self.last_url = resp.url
        except urllib.error.HTTPError as exc:
            body, status = exc.read(), exc.code
        try:
            return status, json.loads(body)
        except ValueError:
            return status, body.decode()

    async def get(self, path: str) -> tuple[int, Any]:
        return await asyncio.to_thread(self._call, path, None, {})

    async def post(self, path: str, body: bytes, **headers: str) -> tuple[int, Any]:
        return await asyncio.to_thread(self._call, path, body, headers)

    async def login(self, user: str) -> dict[str, Any]:
        form = f"user={user}&password={PASSWORDS[user]}".encode()
        await self.post("/login", form, **{"Content-Type": "application/x-www-form-urlencoded"})
        status, info = await self.get("/api/session")
        assert status == 200, info
        return dict(info)


async def test_commands_need_a_dealer_session_and_its_csrf_token(stack_factory: Any) -> None:
    stack = await stack_factory()
    table = FakeTable(stack.broker.port)
    try:
        anon = Browserless(stack.url)
        body = json.dumps({"args": {}}).encode()
        status, reply = await anon.post("/api/cmd/start_hand", body)
        assert status == 401 and reply["error"]["code"] == "login"

        camera = Browserless(stack.url)
        info = await camera.login("camera")
        assert info["role"] == "broadcast"
        status, reply = await camera.post("/api/cmd/start_hand", body,
                                          **{"X-CSRF-Token": info["csrf"]})
        assert status == 403 and reply["error"]["code"] == "forbidden"

        dealer = Browserless(stack.url)
        info = await dealer.login("dealer1")
        status, reply = await dealer.post("/api/cmd/start_hand", body)
        assert status == 403 and reply["error"]["code"] == "csrf"
        status, reply = await dealer.post("/api/cmd/start_hand", body,
                                          **{"X-CSRF-Token": info["csrf"],
                                             "Origin": "http://evil.example"})
        assert status == 403 and reply["error"]["code"] == "csrf"
        status, reply = await dealer.post("/api/cmd/replay", body,
                                          **{"X-CSRF-Token": info["csrf"]})
        assert status == 404 and reply["error"]["code"] == "unknown_command"
        status, reply = await dealer.post("/api/cmd/action", b'{"args": [1]}',
                                          **{"X-CSRF-Token": info["csrf"]})
        assert status == 400 and reply["error"]["code"] == "bad_request"
        assert table.commands == []  # nothing refused above reached the daemon

        status, reply = await dealer.post("/api/cmd/start_hand", body,
                                          **{"X-CSRF-Token": info["csrf"]})
        assert status == 200 and reply["ok"] is True
        assert [name for name, _ in table.commands] == ["start_hand"]

        # Logged out, the session and its token are gone.
        status, _ = await dealer.post("/logout", b"", **{"X-CSRF-Token": info["csrf"]})
        assert status == 200
        status, _ = await dealer.get("/api/session")
        assert status == 401
    finally:
        table.close()


async def test_a_command_without_a_reply_times_out_cleanly(stack_factory: Any) -> None:
    stack = await stack_factory()
    stack.server.settings = type(stack.server.settings)(
        table="t01", command_expiry=0.5)  # no daemon is listening
    dealer = Browserless(stack.url)
    info = await dealer.login("dealer1")
    status, reply = await dealer.post("/api/cmd/undo", b'{"args": {}}',
                                      **{"X-CSRF-Token": info["csrf"]})
    assert status == 504 and reply["error"]["code"] == "timeout"


async def test_pages_carry_a_strict_content_security_policy(stack_factory: Any) -> None:
    stack = await stack_factory()
    req = urllib.request.Request(stack.url + "/")

    def head() -> str:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return str(resp.headers["content-security-policy"])

    csp = await asyncio.to_thread(head)
    assert "default-src 'self'" in csp and "script-src 'self'" in csp


CONFIG = """
deck = "deck.csv"
[table]
id = "t01"
[game]
variant = "holdem"
structure = "no-limit"
[game.stakes]
small_blind = 100
big_blind = 200
[[seats]]
number = 1
stack = 100
[[seats]]
number = 2
stack = 100
[[sources]]
kind = "manual"
[journal]
path = "j.sqlite"
"""


def test_web_section_is_optional_and_validated(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text(CONFIG)
    assert load_config(path, env={}).web is None
    path.write_text(CONFIG + '[web]\nport = 8081\nusers = "users.toml"\nbroadcast_delay = 45\n')
    web = load_config(path, env={}).web
    assert web is not None and web.port == 8081 and web.broadcast_delay == 45
    assert web.users == tmp_path / "users.toml"  # relative to the config file
    path.write_text(CONFIG + '[web]\nport = 0\nbroadcast_delay = -1\nsecure_url = "x"\n')
    with pytest.raises(ConfigError) as err:
        load_config(path, env={})
    keys = {p for p, _ in err.value.problems}
    assert {"web.port", "web.broadcast_delay", "web.secure_url"} <= keys


async def test_repeated_failed_logins_lock_the_name_out(stack_factory: Any) -> None:
    stack = await stack_factory()
    guesser = Browserless(stack.url)
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    for _ in range(4):
        await guesser.post("/login", b"user=dealer1&password=guess", **form)
    # Now even the right password is refused, without being checked.
    right = f"user=dealer1&password={PASSWORDS['dealer1']}".encode()
    status, _ = await guesser.post("/login", b"user=dealer1&password=guess", **form)
    assert "error=1" in guesser.last_url  # the fifth failure: still an ordinary refusal
    status, _ = await guesser.post("/login", right, **form)
    assert status == 200 and "error=2" in guesser.last_url  # the locked-out page
    status, _ = await guesser.get("/api/session")
    assert status == 401
    # Another login name is not affected.
    camera = Browserless(stack.url)
    assert (await camera.login("camera"))["role"] == "broadcast"


async def test_the_overlay_page_of_a_server_without_a_secure_feed_says_why(
        stack_factory: Any) -> None:
    """No ``secure_url``: the overlay would never show a card; the broadcast login that lands
    there reads what to set instead of a blank page."""
    stack = await stack_factory(overlay=False)
    client = Browserless(stack.url)
    await client.login("camera")
    status, body = await client.get("/overlay")
    assert status == 503
    assert "secure_url" in body and "docs/web.md" in body
