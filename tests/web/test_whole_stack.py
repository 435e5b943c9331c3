"""The browser pages against the whole real stack: a simulated RFID shoe on the firmware wire
protocol, the real table daemon (journal, controller, MQTT publisher), a real mosquitto,
``tablectl web`` (``run_web`` on the real MQTT adapter) and Debian's chromium.

What the pages show is compared with an independent engine (:class:`tablectl.game.Hand`) fed
the same cards and decisions; what the browsers *received* is read from the DevTools protocol
(``Network.eventSourceMessageReceived``), so the secrecy and delay checks look at the browser.
Screenshots go to ``test-artifacts/web/whole-*.png``.
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import expect

from hardware_sim.devices import SimShoe
from hardware_sim.serve import PipeDevice
from tablectl.app import run_daemon, run_web
from tablectl.clock import SystemClock
from tablectl.config import TableConfig, load_config
from tablectl.daemon import TableDaemon
from tablectl.domain.cards import Card
from tablectl.domain.deck import Deck
from tablectl.game import (
    Act,
    ActionIn,
    ActionKind,
    CardIn,
    Done,
    Hand,
    SeatSetup,
    Showdown,
    ShowIn,
    Street,
)
from tablectl.sources.rfid import RfidShoeSource
from tests.conftest import Broker, free_port
from tests.daemon.helpers import Console
from tests.web.conftest import Received, artifact, capture_sse, users_toml
from tests.web.test_console import login, strings_in

ROOT = Path(__file__).resolve().parents[2]
TABLE = "t01"
NAMES = {1: "Ada", 2: "Brook", 3: "Cy"}
STACKS = {1: 3000, 2: 2500, 3: 800}
DELAY = 1.5
MQTT_DEALER = "dealer-mqtt"
WEB_DEALER = "webdealer-t01"

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
kind = "rfid-shoe"
name = "shoe"
url = "/dev/serial/by-id/sim-shoe"
[access.roles]
{mqtt_dealer} = "dealer"
{web_dealer} = "dealer"
[mqtt]
url = "mqtt://127.0.0.1:{port}"
[journal]
path = "{tmp}/journal.sqlite"
[odds]
enabled = true
[web]
credentials = "web.toml"
console_credentials = "console.toml"
users = "users.toml"
broadcast_delay = {delay}
secure_url = "mqtt://127.0.0.1:{port}"
"""


def dollars(units: int) -> str:
    """Chip units (100 a dollar) as the pages write them at this table: its stakes and every
    amount of the script are whole dollars, so every amount is too ($30; one amount with cents
    would put them on all: docs/web.md). Written out here, not taken from the page's code."""
    whole, cents = divmod(units, 100)
    assert cents == 0, f"{units} units: the script keeps to whole dollars"
    return f"${whole:,}"


@dataclass
class WholeStack:
    """Everything running: the daemon with its shoe, the web server, an MQTT dealer console."""

    config: TableConfig
    deck: Deck
    daemon: TableDaemon
    shoe: SimShoe
    url: str
    console: Console
    applied_at: dict[int, float] = field(default_factory=dict)

    async def settle(self, target: int) -> None:
        """Wait until the daemon has applied ``target`` inputs."""
        applied = asyncio.Event()
        self.daemon.on_outcome = lambda _inp, _out: applied.set()
        async with asyncio.timeout(10):
            while self.daemon.applied < target:
                await applied.wait()
                applied.clear()

    async def send(self, name: str, args: dict[str, object] | None = None) -> None:
        reply = await asyncio.to_thread(self.console.send, name, args)
        assert reply["status"] == "ok", reply


@pytest.fixture
async def whole_stack(tmp_path: Path, mosquitto: Broker) -> AsyncIterator[WholeStack]:
    seats = "\n".join(f'[[seats]]\nnumber = {n}\nname = "{NAMES[n]}"\nstack = {s}\n'
                      for n, s in STACKS.items())
    (tmp_path / "web.toml").write_text('username = "web-t01"\npassword = "x"\n')
    (tmp_path / "console.toml").write_text(f'username = "{WEB_DEALER}"\npassword = "x"\n')
    (tmp_path / "users.toml").write_text(users_toml())
    path = tmp_path / "table.toml"
    path.write_text(CONFIG.format(root=ROOT, table=TABLE, seats=seats, port=mosquitto.port,
                                  tmp=tmp_path, delay=DELAY, mqtt_dealer=MQTT_DEALER,
                                  web_dealer=WEB_DEALER))
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


async def _web_up(url: str, task: asyncio.Task[None]) -> None:
    """Wait until the web server answers and its public view has the daemon's snapshot."""
    while True:
        if task.done():
            task.result()
            raise AssertionError("tablectl web stopped")
        try:
            view = await asyncio.to_thread(_first_view, url + "/events/public")
            if view.get("snapshot") is not None and not view.get("stale"):
                return
        except OSError:
            pass
        await asyncio.sleep(0.1)


def _first_view(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url, timeout=5) as resp:
        for raw in resp:
            line = raw.decode().strip()
            if line.startswith("data: "):
                view: dict[str, Any] = json.loads(line[6:])
                return view
    return {}


class Dealer:
    """Deals one hand like a person: each card from the shoe when an independent engine
    expects one; decisions are the caller's (through the MQTT console or by clicks)."""

    def __init__(self, stack: WholeStack) -> None:
        self.stack = stack
        setup = stack.daemon.setup
        state = stack.daemon.controller.checkpoint()
        players = [SeatSetup(s.seat, s.stack, s.name) for s in state.seats if s.stack > 0]
        self.mirror = Hand.start(game=setup.game, structure=setup.structure,
                                 rules=setup.rule_set, stakes=setup.stakes, seats=players,
                                 button=state.button)
        self.dealt_at: dict[Card, float] = {}

    async def deal(self) -> Act | Showdown | Done:
        """Draw cards until the engine expects a decision (or the hand is done)."""
        while True:
            exp = self.mirror.expected()
            if isinstance(exp, Act | Showdown | Done):
                return exp
            before = self.stack.daemon.applied
            read = self.stack.shoe.draw()
            card = self.stack.deck.card_for(read.uid_hex)
            assert card is not None, read
            self.dealt_at[card] = time.monotonic()
            self.mirror.apply(CardIn(card))
            await self.stack.settle(before + 1)

    def hole(self) -> dict[int, list[str]]:
        return {s.seat: [str(c.card) for c in s.cards] for s in self.mirror.view().seats}

    def choose(self, exp: Act) -> tuple[ActionKind, int | None]:
        """The short stack (seat 3) moves all-in preflop, the first bettor on the flop bets
        the minimum (a side pot), everyone else calls or checks: all three reach showdown."""
        kinds = exp.legal.kinds
        if exp.seat == 3 and ActionKind.RAISE in kinds:
            return ActionKind.RAISE, exp.legal.max_to
        if self.mirror.view().street is Street.FLOP and ActionKind.BET in kinds:
            return ActionKind.BET, exp.legal.min_to
        if ActionKind.CALL in kinds:
            return ActionKind.CALL, None
        return ActionKind.CHECK, None


def awards(mirror: Hand) -> list[tuple[int, int, int, str, str]]:
    """(pot, seat, amount, half, description) of every award, as the engine computed it."""
    return sorted((r.pot_index, a.seat, a.amount, a.half.value, a.description)
                  for r in mirror.results for a in r.awards)


async def dom_results(page: Any) -> list[tuple[int, int, int, str, str]]:
    out = []
    for row in await page.locator("#results .result").all():
        out.append((int(await row.get_attribute("data-pot")),
                    int(await row.get_attribute("data-seat")),
                    int(await row.get_attribute("data-amount")),
                    str(await row.get_attribute("data-half")),
                    await row.locator(".result-desc").text_content()))
    return sorted(out)


async def dom_cards(page: Any, selector: str) -> list[str | None]:
    return [await c.get_attribute("data-card")
            for c in await page.locator(selector).all()]


def first_view_with_showdown_of(views: list[dict[str, Any]], seat: int) -> int:
    for i, view in enumerate(views):
        if any(ev.get("type") == "showdown" and ev.get("seat") == seat
               for ev in view.get("log", [])):
            return i
        snap = view.get("snapshot") or {}
        for s in snap.get("seats", []):
            if s.get("seat") == seat and any(c.get("card") for c in s.get("cards", [])):
                return i
    raise AssertionError(f"the display never saw seat {seat}'s showdown")


async def test_display_shows_the_engines_board_pots_and_winners(whole_stack: WholeStack,
                                                                browser: Any) -> None:
    stack = whole_stack
    page = await browser.new_page(viewport={"width": 1920, "height": 1080})
    received: list[Received] = await capture_sse(page)
    await page.goto(stack.url + "/")
    await expect(page.locator("#live")).to_have_text("live")
    await expect(page.locator("#table-name")).to_have_text("Table One")

    dealer = Dealer(stack)
    await stack.send("start_hand")
    shown_pots = False
    while not isinstance(exp := await dealer.deal(), Done):
        if isinstance(exp, Showdown):  # presets that ask each contender (not this one)
            dealer.mirror.apply(ShowIn(exp.seat))
            await stack.send("action", {"seat": exp.seat, "kind": "show"})
            continue
        if not shown_pots and dealer.mirror.view().street is Street.RIVER:
            # the river is out: board and pots (a side pot since the flop) as the engine
            # has them
            shown_pots = True
            want_board = [str(c) for c in dealer.mirror.board]
            await expect(page.locator("#board .card:not(.slot)")).to_have_count(5)
            assert await dom_cards(page, "#board .card:not(.slot)") == want_board
            want_pots = [p.amount for p in dealer.mirror.view().pots]
            assert len(want_pots) == 2, "the script should make a side pot"
            pots = page.locator("#pots .pot")
            await expect(pots).to_have_count(2)
            assert [await p.get_attribute("data-amount") for p in await pots.all()] \
                == [str(a) for a in want_pots]
            await expect(page.locator("#pots .main-pot .pot-amount")).to_have_text(
                dollars(want_pots[0]))
            await expect(page.locator("#pots .side-pot .pot-amount")).to_have_text(
                dollars(want_pots[1]))
            await page.screenshot(path=artifact("whole-display-river.png"))
        kind, amount = dealer.choose(exp)
        dealer.mirror.apply(ActionIn(exp.seat, kind, amount))
        await stack.send("action", {"seat": exp.seat, "kind": kind.value, "amount": amount})
    assert shown_pots

    # Winners: pot, seat, amount, half and description exactly as the engine settled them.
    want = awards(dealer.mirror)
    await expect(page.locator("#results .result")).to_have_count(len(want))
    assert await dom_results(page) == [(p, s, a, h, d) for p, s, a, h, d in want]
    for pot, seat, amount, _half, _desc in want:
        row = page.locator(f'#results .result[data-seat="{seat}"][data-pot="{pot}"]')
        await expect(row.locator(".result-name")).to_have_text(NAMES[seat])
        await expect(row.locator(".result-amount")).to_have_text(dollars(amount))
        await expect(row.locator(".result-pot")).to_have_text(
            "main pot" if pot == 0 else f"side pot {pot}")
    for seat, final in dealer.mirror.final_stacks.items():
        await expect(page.locator(f'.seat[data-seat="{seat}"] .seat-stack')).to_have_text(
            dollars(final))
    await expect(page.locator("#log li").first).to_have_text("Hand over")
    await page.screenshot(path=artifact("whole-display-showdown.png"))

    # What the browser received: no seat's hole card before that seat showed it.
    views = [r.view for r in received]
    assert len(views) > 10, "the display should have followed the hand"
    hole = dealer.hole()
    for seat, cards in hole.items():
        first = first_view_with_showdown_of(views, seat)
        for view in views[:first]:
            leaked = strings_in(view) & set(cards)
            assert not leaked, (seat, leaked, json.dumps(view)[:400])
    # ... and the detector can fail: after the showdown every hole card was received.
    assert {c for cards in hole.values() for c in cards} <= strings_in(views[-1])
    await page.close()


async def test_console_plays_a_complete_hand_by_clicks(whole_stack: WholeStack,
                                                       browser: Any) -> None:
    stack = whole_stack
    console = await browser.new_page(viewport={"width": 1280, "height": 800}, has_touch=True)
    await login(console, stack.url, "dealer1", "/console")
    await expect(console.locator("body[data-ready='1']")).to_have_count(1)
    await expect(console.locator("#live")).to_have_text("live")

    async def click(selector: str, before: Callable[[], Awaitable[None]] | None = None) -> None:
        # each command waits for its own reply (the console ignores taps while one is out)
        await console.evaluate("document.getElementById('reply').removeAttribute('data-ok')")
        if before is not None:
            await before()
        await console.click(selector)
        await expect(console.locator("#reply")).to_have_attribute("data-ok", "true")

    await click("#cmd-start-hand")
    await expect(console.locator("#hand-no")).to_have_text("Hand #1")
    dealer = Dealer(stack)
    last_shown: int | None = None
    while not isinstance(exp := await dealer.deal(), Done):
        if isinstance(exp, Showdown):
            if last_shown is not None:  # the previous contender's cards are face up first
                await expect(console.locator(
                    f'#seat-rows tr[data-seat="{last_shown}"] .card:not(.back)')
                ).to_have_count(2)
            await expect(console.locator("#to-act")).to_have_text("Showdown \u2013 show or muck")
            dealer.mirror.apply(ShowIn(exp.seat))
            await click("#act-show")
            last_shown = exp.seat
            continue
        await expect(console.locator(f'#seat-rows tr.to-act[data-seat="{exp.seat}"]')
                     ).to_have_count(1)
        legal = exp.legal
        if exp.seat == 3 and ActionKind.RAISE in legal.kinds:
            # a raise typed in: three big blinds
            target = 600
            assert legal.min_to is not None and legal.min_to <= target
            dealer.mirror.apply(ActionIn(exp.seat, ActionKind.RAISE, target))

            async def type_amount(value: int = target) -> None:
                await console.fill("#amount", str(value // 100))  # typed in dollars

            await click("#act-bet-raise", type_amount)
            await expect(console.locator("#reply")).to_have_text("\u2713 action done")
            if dealer.mirror.view().street is Street.PREFLOP:
                await console.screenshot(path=artifact("whole-console-raise.png"))
            continue
        kind = ActionKind.CALL if ActionKind.CALL in legal.kinds else ActionKind.CHECK
        if kind is ActionKind.CALL:
            await expect(console.locator("#act-check-call .label")).to_have_text(
                f"Call {dollars(legal.call_amount)}")
        dealer.mirror.apply(ActionIn(exp.seat, kind, None))
        await click("#act-check-call")

    want = awards(dealer.mirror)
    await expect(console.locator("#results .result")).to_have_count(len(want))
    assert await dom_results(console) == want
    assert await dom_cards(console, "#board .card:not(.slot)") == [
        str(c) for c in dealer.mirror.board]
    await expect(console.locator("#phase")).to_have_text("settled \u00b7 showdown")
    await console.screenshot(path=artifact("whole-console-showdown.png"))
    # the journal saw each click as a command of the web console's broker user
    state = stack.daemon.controller.checkpoint()
    assert {s.seat: s.stack for s in state.seats} == dict(dealer.mirror.final_stacks)

    # Start hand is not offered before next_hand (the daemon would refuse it); next moves on.
    await expect(console.locator("#cmd-start-hand")).to_be_disabled()
    await click("#cmd-next-hand")
    await expect(console.locator("#hand-no")).to_have_text("Between hands")
    await console.close()


async def test_overlay_shows_hole_cards_no_earlier_than_the_delay(whole_stack: WholeStack,
                                                                  browser: Any) -> None:
    stack = whole_stack
    page = await browser.new_page(viewport={"width": 1920, "height": 1080})
    received = await capture_sse(page)
    await login(page, stack.url, "camera", "/overlay")
    await expect(page.locator("body.overlay")).to_have_count(1)

    dealer = Dealer(stack)
    await stack.send("start_hand")
    exp = await dealer.deal()  # the hole cards, from the shoe
    assert isinstance(exp, Act)
    hole = dealer.hole()
    for seat, cards in hole.items():
        await expect(page.locator(f'.hole[data-seat="{seat}"] .card')).to_have_count(
            len(cards), timeout=10_000)
        assert await dom_cards(page, f'.hole[data-seat="{seat}"] .card') == cards
        await expect(page.locator(f'.hole[data-seat="{seat}"] .hole-name')).to_contain_text(
            NAMES[seat])
    await expect(page.locator("#hand-label")).to_contain_text("Hand #1")
    await page.screenshot(path=artifact("whole-overlay.png"), omit_background=True)

    # Each card reached the browser no earlier than DELAY after the shoe read it.
    for card, dealt in dealer.dealt_at.items():
        first = next(r for r in received if str(card) in strings_in(r.view))
        assert first.browser_time - dealt >= DELAY, (str(card), first.browser_time - dealt)
    await page.close()


@pytest.mark.timeout(240)
async def test_overlay_shows_live_odds_after_the_delay(whole_stack: WholeStack,
                                                       browser: Any) -> None:
    """The daemon values every position (its worker process), the overlay shows each live
    player's equity once the hole cards are released, and again after a fold."""
    from tablectl.domain.cards import parse_cards
    from tablectl.domain.games import GameKind
    from tablectl.game.equity import equity

    stack = whole_stack
    page = await browser.new_page(viewport={"width": 1920, "height": 1080})
    await login(page, stack.url, "camera", "/overlay")
    dealer = Dealer(stack)
    await stack.send("start_hand")
    exp = await dealer.deal()
    assert isinstance(exp, Act)
    hole = dealer.hole()

    async def shown(seats: list[int], dead: list[str]) -> None:
        # the figures the equity module gives (seeded: the daemon's are the same numbers)
        want = equity(GameKind.HOLDEM, [parse_cards("".join(hole[s])) for s in seats],
                      dead=parse_cards("".join(dead)), seed=0)
        for seat, player in zip(seats, want.players, strict=True):
            # the worker computes in the idle scheduling class: on a machine the rest of the
            # suite keeps busy it gets only the idle moments, so give it a minute
            await expect(page.locator(f'.hole[data-seat="{seat}"] .odds-win')).to_have_text(
                f"{100 * round(player.equity, 4):.1f}%", timeout=60_000)

    await shown(sorted(hole), [])
    await page.screenshot(path=artifact("whole-overlay-odds.png"), omit_background=True)
    folder = exp.seat
    dealer.mirror.apply(ActionIn(folder, ActionKind.FOLD, None))
    await stack.send("action", {"seat": folder, "kind": "fold"})
    left = [s for s in sorted(hole) if s != folder]
    await shown(left, hole[folder])
    await expect(page.locator(f'.hole[data-seat="{folder}"] .odds-win')).to_have_count(0)
    await expect(page.locator(f'.hole[data-seat="{folder}"] .hole-desc')).to_have_text(
        "folded")
    await page.close()
