"""Fixtures for the web tests: users file, a running display server on a real mosquitto,
and Debian's chromium driven by Playwright (never a downloaded browser)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import socket
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tablectl.web.auth import Users, hash_password
from tablectl.web.link import secure_topics, web_topics
from tablectl.web.server import WebServer, WebSettings
from tests.conftest import Broker
from tests.web.paho_link import PahoCommands, PahoFeed

TABLE = "t01"
PASSWORDS = {"dealer1": "felt-and-chips", "camera": "on-air-later"}
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"


def users_toml() -> str:
    """A users file with a dealer and a broadcast login (cheap scrypt cost for tests)."""
    return (
        f'[[users]]\nname = "dealer1"\nrole = "dealer"\n'
        f'password = "{hash_password(PASSWORDS["dealer1"], n=2**10)}"\n\n'
        f'[[users]]\nname = "camera"\nrole = "broadcast"\n'
        f'password = "{hash_password(PASSWORDS["camera"], n=2**10)}"\n'
    )


@pytest.fixture
def users_file(tmp_path: Path) -> Path:
    path = tmp_path / "users.toml"
    path.write_text(users_toml())
    return path


@dataclass
class Stack:
    """The display server running on a private broker."""

    broker: Broker
    server: WebServer
    url: str
    closers: list[Callable[[], None]] = field(default_factory=list)


@pytest.fixture
async def stack_factory(mosquitto: Broker, users_file: Path
                        ) -> AsyncIterator[Callable[..., Any]]:
    """``await make(delay=1.5)`` starts a WebServer on ``mosquitto``; stopped at teardown."""
    running: list[tuple[Stack, asyncio.Task[None]]] = []

    async def make(*, delay: float = 1.5, four_colour: bool = False,
                   overlay: bool = True) -> Stack:
        public = PahoFeed(mosquitto.port, web_topics(TABLE), username="web-t01")
        secure = PahoFeed(mosquitto.port, secure_topics(TABLE), username="web-t01-secure")
        commands = PahoCommands(mosquitto.port, TABLE, "console-t01")
        await commands.ready()
        server = WebServer(WebSettings(table=TABLE, table_name="Table 1", broadcast_delay=delay,
                                       four_colour=four_colour, command_expiry=5),
                           users=Users.load(users_file), public_feed=public,
                           secure_feed=secure if overlay else None, commands=commands)
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        port = sock.getsockname()[1]
        task = asyncio.create_task(server.run(sock=sock))
        stack = Stack(mosquitto, server, f"http://127.0.0.1:{port}",
                      [public.close, secure.close, commands.close, sock.close])
        running.append((stack, task))
        return stack

    yield make
    for stack, task in running:
        stack.server.stop()
        await asyncio.wait_for(task, 10)
        for close in stack.closers:
            close()


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    """Debian's chromium, headless, through Playwright's bundled driver."""
    if not (shutil.which(CHROMIUM) or os.access(CHROMIUM, os.X_OK)):
        pytest.fail("chromium is not installed; .ci/test installs it (apt-get install chromium)")
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            await browser.close()


@dataclass
class Received:
    """One SSE message as the browser received it: Chromium's receive time (monotonic
    seconds, the same clock as ``time.monotonic()`` on Linux), our time of hearing about it,
    and the parsed view."""

    browser_time: float
    test_time: float
    view: dict[str, Any]


async def capture_sse(page: Any) -> list[Received]:
    """Record every SSE message ``page`` receives (call before ``goto``)."""
    received: list[Received] = []
    cdp = await page.context.new_cdp_session(page)
    await cdp.send("Network.enable")

    def on_message(ev: dict[str, Any]) -> None:
        received.append(Received(float(ev["timestamp"]), time.monotonic(),
                                 json.loads(ev["data"])))

    cdp.on("Network.eventSourceMessageReceived", on_message)
    return received


def artifact(name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS / name


@contextlib.asynccontextmanager
async def serving(server: Any) -> AsyncIterator[str]:
    """A read-only page server (``run(sock=...)``/``stop()``: the floor's, the tournament's)
    on a free port of 127.0.0.1; yields its URL, and stops it at the end."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    served = asyncio.create_task(server.run(sock=sock))
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/"
    finally:
        server.stop()
        await asyncio.wait_for(served, 10)
        sock.close()
