"""Dealer's choice from the dealer console against the real daemon (issue 28): the console
shows the rotation, offers a button per game while the table waits for the choice, and the
daemon deals the game chosen."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import expect

from hardware_sim.devices import SimShoe
from hardware_sim.serve import PipeDevice
from tablectl.app import run_daemon, run_web
from tablectl.clock import SystemClock
from tablectl.config import load_config
from tablectl.daemon import TableDaemon
from tablectl.sources.rfid import RfidShoeSource
from tests.conftest import Broker, free_port
from tests.daemon.helpers import Console
from tests.web.conftest import artifact, users_toml
from tests.web.test_console import login
from tests.web.test_whole_stack import (
    CONFIG,
    DELAY,
    MQTT_DEALER,
    NAMES,
    ROOT,
    STACKS,
    TABLE,
    WEB_DEALER,
    WholeStack,
    _web_up,
)

GAMES = """[game]
dealers_choice = true
[[game.games]]
variant = "holdem"
structure = "no-limit"
[[game.games]]
variant = "razz"
hands = 2
[game.games.stakes]
ante = 25
bring_in = 50
small_bet = 100
big_bet = 200
"""


@pytest.fixture
async def choice_stack(tmp_path: Path, mosquitto: Broker) -> AsyncIterator[WholeStack]:
    seats = "\n".join(f'[[seats]]\nnumber = {n}\nname = "{NAMES[n]}"\nstack = {s}\n'
                      for n, s in STACKS.items())
    (tmp_path / "web.toml").write_text('username = "web-t01"\npassword = "x"\n')
    (tmp_path / "console.toml").write_text(f'username = "{WEB_DEALER}"\npassword = "x"\n')
    (tmp_path / "users.toml").write_text(users_toml())
    text = CONFIG.format(root=ROOT, table=TABLE, seats=seats, port=mosquitto.port,
                         tmp=tmp_path, delay=DELAY, mqtt_dealer=MQTT_DEALER,
                         web_dealer=WEB_DEALER)
    one_game = '[game]\nvariant = "holdem"\nstructure = "no-limit"\n'
    assert one_game in text
    path = tmp_path / "table.toml"
    path.write_text(text.replace(one_game, GAMES))
    config = load_config(path)
    clock = SystemClock()
    deck = config.load_deck()
    shoe = SimShoe(deck, clock=clock, seed=7)
    pipe = PipeDevice(shoe, clock=clock)
    source = RfidShoeSource("shoe", "sim", clock=clock, opener=pipe.open)
    ready: asyncio.Future[TableDaemon] = asyncio.get_running_loop().create_future()
    daemon_task = asyncio.create_task(run_daemon(config, clock=clock, sources=[source],
                                                 ready=ready.set_result))
    port = free_port()
    web_task = asyncio.create_task(run_web(config, host="127.0.0.1", port=port))
    console = Console(mosquitto.host, mosquitto.port, TABLE, MQTT_DEALER)
    url = f"http://127.0.0.1:{port}"
    try:
        daemon = await asyncio.wait_for(ready, 10)
        await asyncio.wait_for(_web_up(url, web_task), 15)
        yield WholeStack(config, deck, daemon, shoe, url, console)
    finally:
        console.close()
        for task in (web_task, daemon_task):
            task.cancel()
        for task in (web_task, daemon_task):
            with pytest.raises(asyncio.CancelledError):
                await task
        await pipe.aclose()


async def test_the_dealer_chooses_the_game_on_the_console(choice_stack: WholeStack,
                                                          browser: Any) -> None:
    stack = choice_stack
    page = await browser.new_page(viewport={"width": 1280, "height": 800}, has_touch=True)
    await login(page, stack.url, "dealer1", "/console")
    await expect(page.locator("body[data-ready='1']")).to_have_count(1)
    await expect(page.locator("#live")).to_have_text("live")
    await expect(page.locator("#rotation")).to_have_text(
        "Mixed games: dealer's choice \u2014 the dealer picks the next game")
    # no hand before the choice: start_hand is not offered, the games are
    await expect(page.locator("#cmd-start-hand")).to_be_disabled()
    razz = page.locator('#choose-game button[data-game="razz:fixed-limit"]')
    await expect(razz).to_have_text("Razz")
    await expect(razz).to_be_enabled()
    await razz.click()
    await expect(page.locator("#reply")).to_have_attribute("data-ok", "true")
    await expect(page.locator("#rotation")).to_have_text(
        "Mixed games: Razz, 2 hands left; then the dealer's choice; button frozen on seat 1")
    await expect(razz).to_be_disabled()                    # chosen: no second choice
    await expect(page.locator("#cmd-start-hand")).to_be_enabled()
    await page.screenshot(path=artifact("console-dealers-choice.png"))
    snap = stack.daemon.controller.public_snapshot()
    assert snap["game"]["variant"] == "razz"               # type: ignore[index,call-overload]
    await page.close()
