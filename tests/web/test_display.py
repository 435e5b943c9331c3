"""The public table display in a real browser, fed by the daemon's payloads (envelopes, bodies
validated against the controller's payload models) on a real broker."""

from __future__ import annotations

import json
from typing import Any

from playwright.async_api import expect

from tablectl.controller.payloads import PUBLIC_EVENT, PublicSnapshot
from tests.web.conftest import TABLE, artifact, capture_sse
from tests.web.paho_link import SyncClient
from tests.web.test_console import login

STAKES = {"small_blind": 100, "big_blind": 200, "ante": 0, "bring_in": 0, "small_bet": 200,
          "big_bet": 400, "currency": "USD", "units_per_currency": 100}
GAME = {"variant": "omaha-hi-lo", "structure": "fixed-limit", "preset": "casino",
        "label": "Limit Omaha Hi-Lo 8 or Better"}


def hidden(n: int = 4) -> list[dict[str, Any]]:
    return [{"card": None, "up": False} for _ in range(n)]


def shown(cards: list[str]) -> list[dict[str, Any]]:
    return [{"card": c, "up": True} for c in cards]


def state(seq: int, **over: Any) -> dict[str, Any]:
    """The retained snapshot: the envelope, the body under ``data``."""
    base: dict[str, Any] = {
        "schema": "tablectl.state/1", "table": TABLE,
        "hand": {"id": "t01-000042", "number": 42},
        "game": GAME, "stakes": STAKES, "button": 3, "phase": "betting", "street": "flop",
        "seats": [
            {"seat": 1, "name": "Ada", "stack": 0, "bet": 0, "status": "all_in",
             "cards": hidden(), "to_act": False},
            {"seat": 3, "name": "Brook", "stack": 18600, "bet": 400, "status": "active",
             "cards": hidden(), "to_act": False},
            {"seat": 5, "name": "Cy", "stack": 17400, "bet": 0, "status": "active",
             "cards": hidden(), "to_act": True},
            {"seat": 8, "name": "Dee", "stack": 19800, "bet": 0, "status": "folded",
             "cards": hidden(), "to_act": False},
        ],
        "board": ["Ah", "Kd", "7c"],
        "pots": [{"amount": 1800, "eligible": [1, 3, 5]}, {"amount": 600, "eligible": [3, 5]}],
        "to_act": {"seat": 5, "legal": [{"kind": "fold"}, {"kind": "call", "amount": 400},
                                         {"kind": "raise", "min": 800, "max": 800}]},
        "last_action": {"seat": 3, "kind": "bet", "amount": 400},
        "results": [], "errors": [],
        "devices": [{"name": "shoe", "kind": "rfid-shoe", "status": "online"}],
    }
    base.update(over)
    PublicSnapshot.model_validate(base)
    return {"v": 1, "table": TABLE, "epoch": 3, "seq": seq, "type": "snapshot",
            "ts": "2026-11-29T18:00:00Z", "hand": 42, "data": base}


def event(seq: int, etype: str, **fields: Any) -> dict[str, Any]:
    PUBLIC_EVENT.validate_python({"type": etype, **fields})
    return {"v": 1, "table": TABLE, "epoch": 3, "seq": seq, "type": etype,
            "ts": "2026-11-29T18:00:01Z", "hand": 42, "data": fields}


def status(value: str) -> dict[str, Any]:
    return {"v": 1, "table": TABLE, "state": value, "version": "0.1.0", "epoch": 3}


async def test_display_shows_board_pots_and_winners_of_a_simulated_hand(
        stack_factory: Any, browser: Any) -> None:
    stack = await stack_factory()
    daemon = SyncClient(stack.broker.port, "controller-t01")
    base = f"poker/v1/tables/{TABLE}"

    def pub(kind: str, obj: dict[str, Any], retain: bool = False) -> None:
        daemon.publish(f"{base}/{kind}", json.dumps(obj).encode(), retain=retain)

    try:
        pub("status", status("online"), retain=True)
        pub("state", state(10), retain=True)
        page = await browser.new_page(viewport={"width": 1920, "height": 1080})
        received = await capture_sse(page)
        await page.goto(stack.url + "/")

        # Flop, betting: board, both pots, whose turn, card backs for hidden cards.
        await expect(page.locator("#board .card:not(.slot)")).to_have_count(3)
        cards = page.locator("#board .card:not(.slot)")
        assert [await c.get_attribute("data-card") for c in await cards.all()] == \
            ["Ah", "Kd", "7c"]
        await expect(page.locator("#pots .main-pot .pot-amount")).to_have_text("$18")
        await expect(page.locator("#pots .side-pot .pot-amount")).to_have_text("$6")
        await expect(page.locator(".seat.to-act .seat-name")).to_have_text("Cy")
        await expect(page.locator('.seat[data-seat="5"] .card.back')).to_have_count(4)
        await expect(page.locator('.seat[data-seat="1"] .badge-allin')).to_have_text("ALL-IN")
        await expect(page.locator('.seat[data-seat="8"] .badge-folded')).to_have_text("FOLDED")
        await expect(page.locator('.seat[data-seat="3"] .seat-bet')).to_have_text("$4")
        await expect(page.locator("#live")).to_have_text("live")

        # Each action as it happens: an event after the snapshot shows in the log at once.
        pub("events", event(11, "action", seat=5, kind="call", amount=400, to=400,
                            all_in=False, stack=17000))
        await expect(page.locator("#log li").first).to_have_text("Cy calls $4")
        await page.screenshot(path=artifact("display-flop.png"))

        # Turn and river dealt, then the showdown with a split pot (high and low halves).
        pub("events", event(12, "board", cards=["Ah", "Kd", "7c", "2s"], street="turn"))
        pub("events", event(13, "board", cards=["Ah", "Kd", "7c", "2s", "3c"],
                            street="river"))
        results = [
            {"pot": 0, "seat": 3, "amount": 900, "half": "high",
             "description": "Three of a kind, aces", "cards": ["As", "Ah", "Ac", "Kd", "7c"]},
            {"pot": 0, "seat": 1, "amount": 900, "half": "low",
             "description": "7-5-3-2-A low", "cards": ["7c", "5d", "3c", "2s", "Ah"]},
            {"pot": 1, "seat": 3, "amount": 600, "half": "whole",
             "description": "Three of a kind, aces", "cards": ["As", "Ah", "Ac", "Kd", "7c"]},
        ]
        pub("events", event(14, "winner", pot=0, seat=3, amount=900, half="high",
                            description="Three of a kind, aces"))
        seats = state(14)["data"]["seats"]
        seats[0]["cards"] = shown(["5d", "4h", "Qc", "Jc"])
        seats[1]["cards"] = shown(["As", "Ac", "9h", "9d"])
        seats[2]["cards"] = shown(["Ks", "Qs", "Js", "Ts"])
        pub("state", state(14, phase="showdown", street="showdown", seats=seats,
                           board=["Ah", "Kd", "7c", "2s", "3c"], to_act=None,
                           results=results), retain=True)
        await expect(page.locator("#board .card:not(.slot)")).to_have_count(5)
        await expect(page.locator("#results .result")).to_have_count(3)
        high = page.locator("#results .result-high")
        await expect(high.locator(".result-name")).to_have_text("Brook")
        await expect(high.locator(".result-amount")).to_have_text("$9")
        await expect(high.locator(".result-desc")).to_have_text("Three of a kind, aces")
        await expect(high.locator(".result-half")).to_have_text("High")
        low = page.locator("#results .result-low")
        await expect(low.locator(".result-name")).to_have_text("Ada")
        await expect(low.locator(".result-half")).to_have_text("Low")
        await expect(low.locator(".result-desc")).to_have_text("7-5-3-2-A low")
        side = page.locator("#results .result-whole")
        await expect(side.locator(".result-pot")).to_have_text("side pot 1")
        await expect(page.locator('.seat[data-seat="3"].winner')).to_have_count(1)
        await expect(page.locator("#log li").first).to_have_text(
            "Brook wins $9 (high) \u2013 Three of a kind, aces")
        await page.screenshot(path=artifact("display-showdown.png"))

        # The reader goes offline and the dealer is needed: error banners.
        pub("state", state(15, phase="fault", errors=[
            {"code": "duplicate_card", "message": "Ah was already dealt to seat 3",
             "since": "2026-11-29T18:00:02.000Z"}],
            devices=[{"name": "shoe", "kind": "rfid-shoe", "status": "offline"}]), retain=True)
        await expect(page.locator(".banner-error").first).to_have_text("Reader offline: shoe")
        await expect(page.locator(".banner-error").nth(1)).to_have_text(
            "Ah was already dealt to seat 3")
        await expect(page.locator(".banner-wait")).to_have_text("Waiting for the dealer")

        # The controller dies (its last will): the page says so and greys out, keeping the
        # last state.
        pub("status", status("offline"), retain=True)
        await expect(page.locator("body.stale")).to_have_count(1)
        await expect(page.locator("#live")).to_have_text("OFFLINE")
        await expect(page.locator(".banner-stale")).to_contain_text("OFFLINE")
        await expect(page.locator("#board .card:not(.slot)")).to_have_count(3)
        await page.screenshot(path=artifact("display-stale.png"))

        # Four-colour deck on request.
        diamond = page.locator('#board .card[data-card="Kd"]')
        await expect(diamond).to_have_css("color", "rgb(200, 16, 46)")  # red in two colours
        await page.goto(stack.url + "/?deck=4")
        await expect(page.locator("body.four-colour")).to_have_count(1)
        await expect(diamond).to_have_css("color", "rgb(10, 91, 211)")  # blue diamonds
        await expect(page.locator('#board .card[data-card="7c"]')).to_have_css(
            "color", "rgb(10, 122, 41)")  # green clubs (AA on white)
        assert received, "the browser received no SSE message"
    finally:
        daemon.close()


async def test_display_goes_stale_when_the_server_loses_the_broker(stack_factory: Any,
                                                                   browser: Any) -> None:
    stack = await stack_factory()
    base = f"poker/v1/tables/{TABLE}"
    daemon = SyncClient(stack.broker.port, "controller-t01")
    daemon.publish(f"{base}/status", json.dumps(status("online")).encode(), retain=True)
    daemon.publish(f"{base}/state", json.dumps(state(10)).encode(), retain=True)
    daemon.close()
    page = await browser.new_page()
    await page.goto(stack.url + "/")
    await expect(page.locator("#live")).to_have_text("live")

    stack.broker.kill()
    await expect(page.locator(".banner-stale")).to_contain_text("no broker connection")
    await expect(page.locator("body.stale")).to_have_count(1)
    await expect(page.locator("#board .card:not(.slot)")).to_have_count(3)  # last known state

    stack.broker.start()  # the web server's client reconnects by itself
    daemon = SyncClient(stack.broker.port, "controller-t01")
    try:
        daemon.publish(f"{base}/status", json.dumps(status("online")).encode(), retain=True)
        daemon.publish(f"{base}/state", json.dumps(state(11)).encode(), retain=True)
        await expect(page.locator("#live")).to_have_text("live", timeout=15_000)
        await expect(page.locator("body.stale")).to_have_count(0)
    finally:
        daemon.close()


async def test_display_and_console_say_resyncing_while_a_gap_is_open(stack_factory: Any,
                                                                      browser: Any) -> None:
    """An event after a lost one: the view waits for the next snapshot, and neither page may
    call what it shows live until it comes (docs/mqtt.md section 9.1)."""
    stack = await stack_factory()
    base = f"poker/v1/tables/{TABLE}"
    daemon = SyncClient(stack.broker.port, "controller-t01")
    try:
        daemon.publish(f"{base}/status", json.dumps(status("online")).encode(), retain=True)
        daemon.publish(f"{base}/state", json.dumps(state(10)).encode(), retain=True)
        display = await browser.new_page()
        await display.goto(stack.url + "/")
        console = await browser.new_page()
        await login(console, stack.url, "dealer1", "/console")
        pages = (display, console)
        for page in pages:
            await expect(page.locator("#live")).to_have_text("live")

        daemon.publish(f"{base}/events", json.dumps(event(
            12, "action", seat=3, kind="call", amount=400, to=800, all_in=False,
            stack=18200)).encode())                                   # 11 was lost
        for page in pages:
            await expect(page.locator("#live")).to_have_text("resyncing")
            await expect(page.locator("body.stale")).to_have_count(1)

        daemon.publish(f"{base}/state", json.dumps(state(12)).encode(), retain=True)
        for page in pages:
            await expect(page.locator("#live")).to_have_text("live")
            await expect(page.locator("body.stale")).to_have_count(0)
    finally:
        daemon.close()


async def test_every_amount_of_a_table_has_one_format(stack_factory: Any, browser: Any
                                                      ) -> None:
    """The stakes decide cents, never the amounts of a hand: at $1/$2 the stakes, stacks and
    pots are whole dollars whatever a stack holds (one that is not whole keeps its cents,
    never rounded), so "$1/$2" never becomes "$1.00/$2.00" on the next hand; stakes with cents
    put every amount in cents (docs/web.md)."""
    stack = await stack_factory()
    base = f"poker/v1/tables/{TABLE}"
    daemon = SyncClient(stack.broker.port, "controller-t01")
    page = await browser.new_page()

    def seats(stack3: int, stack5: int) -> list[dict[str, Any]]:
        out = state(0)["data"]["seats"]
        out[1]["stack"], out[2]["stack"] = stack3, stack5
        return out

    async def shows(stakes: str, stack3: str, stack5: str, pot: str) -> None:
        await expect(page.locator("#stakes")).to_have_text(stakes)
        await expect(page.locator('.seat[data-seat="3"] .seat-stack')).to_have_text(stack3)
        await expect(page.locator('.seat[data-seat="5"] .seat-stack')).to_have_text(stack5)
        await expect(page.locator("#pots .main-pot .pot-amount")).to_have_text(pot)

    try:
        daemon.publish(f"{base}/status", json.dumps(status("online")).encode(), retain=True)
        daemon.publish(f"{base}/state", json.dumps(state(10, seats=seats(20100, 33682))
                                                   ).encode(), retain=True)
        await page.goto(stack.url + "/")
        await shows("$1/$2", "$201", "$336.82", "$18")
        await expect(page.locator('.seat[data-seat="3"] .seat-bet')).to_have_text("$4")

        daemon.publish(f"{base}/state", json.dumps(state(11, seats=seats(20100, 33600))
                                                   ).encode(), retain=True)
        await shows("$1/$2", "$201", "$336", "$18")

        cents = {**STAKES, "small_blind": 25, "big_blind": 50}
        daemon.publish(f"{base}/state", json.dumps(state(12, stakes=cents,
                                                         seats=seats(20100, 33600))
                                                   ).encode(), retain=True)
        await shows("$0.25/$0.50", "$201.00", "$336.00", "$18.00")
    finally:
        daemon.close()
