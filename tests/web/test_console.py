"""The dealer console plays a whole hand by clicks against a stand-in daemon on a real broker,
while a public display watches; the public display never receives a hole card before the
showdown (checked on the SSE messages the browser received, via the DevTools protocol)."""

from __future__ import annotations

import json
from typing import Any

from playwright.async_api import expect

from tests.web.conftest import PASSWORDS, Received, artifact, capture_sse
from tests.web.fake_table import HOLE, FakeTable


def strings_in(obj: Any) -> set[str]:
    """Every string anywhere in a JSON value."""
    if isinstance(obj, str):
        return {obj}
    if isinstance(obj, dict):
        return set().union(*(strings_in(v) for v in obj.values())) if obj else set()
    if isinstance(obj, list):
        return set().union(*(strings_in(v) for v in obj)) if obj else set()
    return set()


async def login(page: Any, base: str, user: str, path: str) -> None:
    await page.goto(f"{base}{path}")
    await expect(page.locator("#user")).to_be_visible()
    await page.fill("#user", user)
    await page.fill("#password", PASSWORDS[user])
    await page.click("#login-submit")
    await page.wait_for_url(f"{base}{path}")


async def test_console_plays_a_complete_hand_by_clicks(stack_factory: Any,
                                                       browser: Any) -> None:
    stack = await stack_factory()
    table = FakeTable(stack.broker.port)
    try:
        display = await browser.new_page(viewport={"width": 1920, "height": 1080})
        received: list[Received] = await capture_sse(display)
        await display.goto(stack.url + "/")
        await expect(display.locator("#live")).to_have_text("live")

        console = await browser.new_page(viewport={"width": 1280, "height": 800},
                                         has_touch=True)
        await login(console, stack.url, "dealer1", "/console")
        await expect(console.locator("body[data-ready='1']")).to_have_count(1)

        async def click(selector: str) -> None:
            # Wait for this command's own reply: the daemon publishes the new state before it
            # replies, and the console ignores taps while a command is in flight.
            await console.evaluate("document.getElementById('reply').removeAttribute('data-ok')")
            await console.click(selector)
            await expect(console.locator("#reply")).to_have_attribute("data-ok", "true")

        async def to_act(seat: int) -> None:
            await expect(console.locator(f'#seat-rows tr.to-act[data-seat="{seat}"]')
                         ).to_have_count(1)

        await click("#cmd-start-hand")
        # Heads-up: the button (seat 1, Ada) posts the small blind and acts first preflop.
        await to_act(1)
        await expect(console.locator("#act-check-call .label")).to_have_text("Call $1")
        await console.screenshot(path=artifact("console-preflop.png"))
        await click("#act-check-call")
        await to_act(3)
        await click("#act-check-call")
        await expect(console.locator("#board .card:not(.slot)")).to_have_count(3)  # flop
        await to_act(3)
        await click("#act-check-call")
        await to_act(1)
        await expect(console.locator("#amount")).to_have_value("2")  # the minimum bet, $2
        await expect(console.locator("#act-bet-raise .label")).to_have_text("Bet $2")
        await click("#act-bet-raise")
        await to_act(3)
        await click("#act-check-call")
        await expect(console.locator("#board .card:not(.slot)")).to_have_count(4)  # turn
        for seat in (3, 1):
            await to_act(seat)
            await click("#act-check-call")
        await expect(console.locator("#board .card:not(.slot)")).to_have_count(5)  # river
        for seat in (3, 1):
            await to_act(seat)
            await click("#act-check-call")

        # Showdown: blinds 1+2, call 1, flop bet 2 and call 2: a pot of $8 to Brook.
        await expect(console.locator("#results .result-name")).to_have_text("Brook")
        await expect(console.locator("#results .result-amount")).to_have_text("$8")
        await expect(display.locator("#results .result-name")).to_have_text("Brook")
        await expect(display.locator("#results .result-amount")).to_have_text("$8")
        await expect(display.locator("#results .result-desc")).to_have_text(
            "Three of a kind, sevens")
        await expect(display.locator('.seat[data-seat="3"] .seat-stack')).to_have_text("$204")
        await expect(display.locator('.seat[data-seat="1"] .seat-stack')).to_have_text("$196")
        await console.screenshot(path=artifact("console-showdown.png"))
        await display.screenshot(path=artifact("display-console-hand.png"))

        # The daemon got exactly the commands the clicks meant.
        assert [(n, a.get("kind"), a.get("amount")) for n, a in table.commands] == [
            ("start_hand", None, None),
            ("action", "call", 100), ("action", "check", None),
            ("action", "check", None), ("action", "bet", 200), ("action", "call", 200),
            ("action", "check", None), ("action", "check", None),
            ("action", "check", None), ("action", "check", None),
        ]

        # A settled hand: nothing to undo or start until next_hand, which moves the button.
        await expect(console.locator("#cmd-undo")).to_be_disabled()
        await expect(console.locator("#cmd-start-hand")).to_be_disabled()
        await click("#cmd-next-hand")
        await expect(console.locator("#hand-no")).to_have_text("Between hands")

        # What the public browser received: no hole card before the showdown view.
        hole = {card for cards in HOLE.values() for card in cards}
        views = [r.view for r in received]

        def at_showdown(view: dict[str, Any]) -> bool:
            # The showdown starts with the daemon's first showdown event (or snapshot).
            return (view.get("snapshot") or {}).get("street") == "showdown" or any(
                ev.get("type") == "showdown" for ev in view.get("log", []))

        first_show = next(i for i, v in enumerate(views) if at_showdown(v))
        assert first_show > 5, "the display should have seen the hand being played"
        for view in views[:first_show]:
            assert not strings_in(view) & hole, json.dumps(view)[:300]
        # ... and the detector works: the showdown view does show them.
        assert hole <= set().union(*(strings_in(v) for v in views[first_show:]))
    finally:
        table.close()
