"""The reported scenario in Chromium, on the real daemon, mosquitto and ``tablectl web``.

A display of table t01 is open; a first daemon plays two hands and stops; a second daemon for
the same table id, with a fresh journal (so its epochs start at 1 again), starts and deals. The
page must show the new table's hand, board and stacks (and only its seats) within a second of
each snapshot, and after a hand ends nobody to act, the result, and the button moved when the
next hand starts.

"Within a second" is a wait on the page's own state bounded at one second, started once the
snapshot is out: the new daemon's first snapshot as a subscriber of the broker receives it, the
later ones as soon as the dealer's input returns (the daemon publishes while the test waits).
Nothing measures a duration.
"""

from __future__ import annotations

import asyncio
import json
import random
import secrets
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import expect

from tablectl.app import run_daemon, run_web
from tablectl.clock import SystemClock
from tablectl.config import TableConfig, load_config
from tablectl.controller import ControllerInput, Outcome
from tablectl.daemon import TableDaemon
from tablectl.game import Act, ActionIn, ActionKind, Street
from tablectl.publish.mqtt import MqttPublisher
from tablectl.publish.mqtt_settings import MqttSettings
from tests.conftest import Broker, free_port
from tests.controller.helpers import DEALER, Dealer, Driver
from tests.web.conftest import artifact, users_toml
from tests.web.test_whole_stack import dollars

ROOT = Path(__file__).resolve().parents[2]
SHOWN = 1_000
"""How long the page may take to show a snapshot (ms): the issue's "within a second"."""

CONFIG = """
deck = "{root}/config/decks/demo-red.csv"
button = 1
[table]
id = "{table}"
name = "Table One"
[game]
variant = "holdem"
structure = "no-limit"
[game.stakes]
small_blind = 100
big_blind = 200
{seats}
[[sources]]
kind = "manual"
name = "shoe"
[access.roles]
{dealer} = "dealer"
[mqtt]
url = "mqtt://127.0.0.1:{port}"
[journal]
path = "{journal}"
"""
WEB = """[web]
credentials = "web.toml"
users = "users.toml"
"""


def write_config(tmp: Path, port: int, journal: str, stacks: dict[int, int], *,
                 table: str = "t01", web: bool = True) -> TableConfig:
    """A table with a manual source, the journal ``tmp/{journal}.sqlite``, players P1, P2..."""
    seats = "\n".join(f'[[seats]]\nnumber = {n}\nname = "P{n}"\nstack = {s}\n'
                      for n, s in stacks.items())
    path = tmp / f"table-{journal}.toml"
    path.write_text(CONFIG.format(root=ROOT, table=table, seats=seats, dealer=DEALER, port=port,
                                  journal=tmp / f"{journal}.sqlite") + (WEB if web else ""))
    return load_config(path)


@dataclass
class DaemonDriver(Driver):
    """The controller tests' driver, its inputs applied through the running daemon (journal,
    outbox, MQTT) instead of a bare controller."""

    daemon: TableDaemon | None = None

    def feed(self, inp: ControllerInput) -> Outcome:
        assert self.daemon is not None
        self.inputs.append(inp)
        out = self.daemon.apply(inp)
        self.outcomes.append(out)
        return out


class Running:
    """One daemon as a task of this loop."""

    def __init__(self, config: TableConfig) -> None:
        ready: asyncio.Future[TableDaemon] = asyncio.get_running_loop().create_future()
        self.task = asyncio.create_task(run_daemon(config, clock=SystemClock(), sources=[],
                                                   ready=ready.set_result))
        self.ready = ready

    async def dealer(self, seed: int) -> Dealer:
        daemon = await asyncio.wait_for(self.ready, 15)
        return Dealer(DaemonDriver(daemon.controller, daemon=daemon), random.Random(seed))

    async def stop(self) -> None:
        self.task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await self.task


@pytest.fixture
async def web(tmp_path: Path, mosquitto: Broker) -> AsyncIterator[tuple[str, Callable[..., Any]]]:
    (tmp_path / "web.toml").write_text('username = "web-t01"\npassword = "x"\n')
    (tmp_path / "users.toml").write_text(users_toml())
    daemons: list[Running] = []

    def start(journal: str, stacks: dict[int, int]) -> Running:
        running = Running(write_config(tmp_path, mosquitto.port, journal, stacks))
        daemons.append(running)
        return running

    first = write_config(tmp_path, mosquitto.port, "web", {1: 1, 2: 1})
    port = free_port()
    task = asyncio.create_task(run_web(first, host="127.0.0.1", port=port))
    url = f"http://127.0.0.1:{port}"
    try:
        yield url, start
    finally:
        for running in daemons:
            if not running.task.done():
                await running.stop()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


class FirstSnapshot:
    """The first snapshot of table t01 from another journal than ``old``, as a subscriber of
    the broker receives it."""

    def __init__(self, port: int, old: str) -> None:
        self._settings = MqttSettings(host="127.0.0.1", port=port,
                                      client_id=f"probe-{secrets.token_hex(4)}")
        self._old = old
        self.subscribed = asyncio.Event()
        self.task = asyncio.create_task(self._run())

    async def _run(self) -> dict[str, Any]:
        async with MqttPublisher(self._settings) as client:
            await client.subscribe("poker/v1/tables/t01/state")
            self.subscribed.set()
            async for msg in client.messages():
                envelope: dict[str, Any] = json.loads(msg.payload)
                if envelope.get("journal") != self._old:
                    return envelope
        raise AssertionError("the broker connection ended before a snapshot came")


def snapshot(dealer: Dealer) -> dict[str, Any]:
    driver = dealer.d
    assert isinstance(driver, DaemonDriver) and driver.daemon is not None
    return dict(driver.daemon.public_snapshot())


async def expect_table(page: Any, snap: dict[str, Any]) -> None:
    """The page shows ``snap``: hand, board, its seats and their stacks, who acts, results,
    button."""
    hand = snap["hand"]
    await expect(page.locator("#hand-no")).to_have_text(
        f"Hand #{hand['number']}" if hand else "", timeout=SHOWN)
    board = page.locator("#board .card:not(.slot)")
    await expect(board).to_have_count(len(snap["board"]), timeout=SHOWN)
    for i, card in enumerate(snap["board"]):
        await expect(board.nth(i)).to_have_attribute("data-card", card, timeout=SHOWN)
    seats = [str(seat["seat"]) for seat in snap["seats"] if seat["status"] != "empty"]
    await expect(page.locator(".seat")).to_have_count(len(seats), timeout=SHOWN)
    for i, number in enumerate(seats):            # no seat left over from another table
        await expect(page.locator(".seat").nth(i)).to_have_attribute("data-seat", number,
                                                                     timeout=SHOWN)
    for seat in snap["seats"]:
        if seat["status"] == "empty":
            continue
        await expect(page.locator(f'.seat[data-seat="{seat["seat"]}"] .seat-stack')
                     ).to_have_text(dollars(seat["stack"]), timeout=SHOWN)
    to_act = snap["to_act"]
    await expect(page.locator("#turn")).to_have_text(
        f"Action on P{to_act['seat']}" if to_act else "", timeout=SHOWN)
    await expect(page.locator(".seat.to-act")).to_have_count(1 if to_act else 0, timeout=SHOWN)
    await expect(page.locator("#results .result")).to_have_count(len(snap["results"]),
                                                                 timeout=SHOWN)
    button = snap["button"]
    await expect(page.locator(".dealer-button")).to_have_count(int(button is not None),
                                                               timeout=SHOWN)
    if button is not None:
        await expect(page.locator(f'.seat[data-seat="{button}"] .dealer-button')
                     ).to_have_count(1, timeout=SHOWN)


async def test_a_fresh_journal_on_the_same_table_is_shown_at_once(
        web: tuple[str, Callable[..., Running]], browser: Any, mosquitto: Broker) -> None:
    url, start = web
    page = await browser.new_page(viewport={"width": 1600, "height": 900})
    first = start("first", {1: 3000, 2: 2500, 3: 1800})
    dealer = await first.dealer(seed=11)
    await page.goto(url + "/")
    await expect(page.locator("#live")).to_have_text("live", timeout=15_000)

    buttons = []
    for _ in range(2):
        dealer.start()
        buttons.append(snapshot(dealer)["button"])
        await expect_table(page, snapshot(dealer))
        dealer.play()
        ended = snapshot(dealer)
        assert ended["phase"] == "settled" and ended["to_act"] is None
        await expect_table(page, ended)          # nobody to act, the result, final stacks
        await expect(page.locator("#results .result").first).to_be_visible()
        dealer.d.cmd("next_hand")
    assert buttons[0] != buttons[1]              # the button moved for the second hand
    driver = dealer.d
    assert isinstance(driver, DaemonDriver) and driver.daemon is not None
    old_journal = driver.daemon.journal.journal_id
    await first.stop()
    await expect(page.locator("#live")).to_have_text("OFFLINE")

    probe = FirstSnapshot(mosquitto.port, old_journal)
    await asyncio.wait_for(probe.subscribed.wait(), 15)
    second = start("second", {1: 7000, 2: 6500, 4: 4400})    # other stacks, a fresh journal
    dealer = await second.dealer(seed=5)
    first_snap = await asyncio.wait_for(probe.task, 15)
    assert first_snap["epoch"] == 1 and first_snap["data"]["seats"]
    await expect(page.locator("#live")).to_have_text("live", timeout=SHOWN)
    await expect_table(page, first_snap["data"])  # the new table between hands, at once
    dealer.start()
    await expect_table(page, snapshot(dealer))   # its hand #1, not the old table's hand #2
    mirror = dealer.mirror
    assert mirror is not None
    while not (mirror.view().street is Street.FLOP and len(mirror.board) == 3):
        exp = mirror.expected()
        if isinstance(exp, Act):                 # everyone calls or checks to the flop
            kind = ActionKind.CALL if ActionKind.CALL in exp.legal.kinds else ActionKind.CHECK
            dealer.d.act(exp.seat, kind.value)
            mirror.apply(ActionIn(exp.seat, kind, None))
        else:
            assert dealer.step()
    snap = snapshot(dealer)
    assert snap["hand"]["number"] == 1 and len(snap["board"]) == 3
    await expect_table(page, snap)               # board and stacks of the new table
    await expect(page.locator("#live")).to_have_text("live")
    await page.screenshot(path=artifact("fresh-journal.png"))
    await page.close()
