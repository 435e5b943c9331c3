"""The broadcast overlay: a separate login role, hole cards only after the broadcast delay.

The delay is checked on what the browser received: Chromium stamps each SSE message with its
receive time on the monotonic clock (CLOCK_MONOTONIC, as ``time.monotonic()``); the test
records ``time.monotonic()`` before it publishes the hole cards, so ``received - published``
is a lower bound on how long the server held them.
"""

from __future__ import annotations

import json
import time
from typing import Any

from playwright.async_api import expect

from tablectl.controller.payloads import HoleCardsEvent, SecureSnapshot
from tests.web.conftest import PASSWORDS, TABLE, artifact, capture_sse
from tests.web.paho_link import SyncClient
from tests.web.test_console import login, strings_in

DELAY = 1.5
HOLE = {1: ["Qs", "Qh"], 3: ["9c", "8c"]}


def secure_state(hand: str) -> dict[str, Any]:
    seats = [{"seat": s, "name": n, "stack": 19800, "bet": 200, "status": "active",
              "cards": [{"card": c, "up": False} for c in HOLE[s]], "to_act": s == 1}
             for s, n in ((1, "Ada"), (3, "Brook"))]
    body = {"schema": "tablectl.secure-state/1", "table": TABLE,
            "hand": {"id": hand, "number": 7},
            "game": {"variant": "holdem", "structure": "no-limit", "preset": "casino",
                     "label": "No-Limit Hold'em"},
            "stakes": {"small_blind": 100, "big_blind": 200, "ante": 0, "bring_in": 0,
                       "small_bet": 0, "big_bet": 0, "currency": "USD",
                       "units_per_currency": 100},
            "button": 3, "phase": "betting", "street": "preflop", "seats": seats, "board": [],
            "pots": [{"amount": 400, "eligible": [1, 3]}], "to_act": None,
            "last_action": None, "results": [], "errors": [], "devices": [], "burns": [],
            "pending_read": None}
    SecureSnapshot.model_validate(body)
    return {"v": 1, "table": TABLE, "epoch": 1, "seq": 4, "type": "snapshot",
            "ts": "2026-11-29T18:00:00Z", "hand": 7, "data": body}


def floor_stats() -> bytes:
    """The floor's statistics as ``tablectl floor run`` publishes them (docs/floor.md): Ada in
    seat 1; seat 3's figures are of a player who has left it (not Brook's, never drawn)."""
    def ratio(made: int, chances: int) -> dict[str, Any]:
        return {"made": made, "chances": chances, "percent": round(100 * made / chances, 1)}
    ada = {"seat": 1, "name": "Ada", "hands": 120, "vpip": ratio(28, 120),
           "pfr": ratio(18, 120), "three_bet": ratio(2, 33), "wtsd": ratio(9, 36),
           "wsd": ratio(5, 9), "net": 152.5, "currency": "USD", "last_hand": None}
    return json.dumps({"v": 1, "type": "stats", "table": TABLE,
                       "ts": "2026-11-29T17:59:00+00:00", "through": "2026-11-29T17:58:50+00:00",
                       "game": {"variant": "holdem", "structure": "no-limit",
                                "label": "No-Limit Hold'em"},
                       "players": [ada, {**ada, "seat": 3, "name": "Cleo"}]}).encode()


async def test_overlay_shows_hole_cards_no_earlier_than_the_delay(stack_factory: Any,
                                                                  browser: Any) -> None:
    """And the floor's statistics of the seated players (docs/floor.md, "What the broadcast
    delay allows"): no earlier either, and only beside the player they are about."""
    stack = await stack_factory(delay=DELAY)
    daemon = SyncClient(stack.broker.port, "controller-t01-secure")
    try:
        page = await browser.new_page(viewport={"width": 1920, "height": 1080})
        received = await capture_sse(page)
        await login(page, stack.url, "camera", "/overlay")
        await expect(page.locator("body.overlay")).to_have_count(1)
        # The page is transparent for the video mixer.
        bg = await page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert bg == "rgba(0, 0, 0, 0)"
        while not received:
            await page.wait_for_timeout(50)

        hand = "t01-000007"
        published = time.monotonic()
        daemon.publish(f"poker/v1/floor/tables/{TABLE}/stats", floor_stats())
        daemon.publish(f"secure/v1/tables/{TABLE}/state",
                       json.dumps(secure_state(hand)).encode())
        for seat, cards in HOLE.items():
            body = {"hand": {"id": hand, "number": 7}, "seat": seat, "cards": cards}
            HoleCardsEvent.model_validate({"type": "holecards", **body})
            daemon.publish(f"secure/v1/tables/{TABLE}/holecards", json.dumps(
                {"v": 1, "table": TABLE, "epoch": 1, "seq": seat, "type": "holecards",
                 "ts": "2026-11-29T18:00:00Z", "hand": 7, "data": body}).encode())

        await expect(page.locator('.hole[data-seat="1"] .card')).to_have_count(2,
                                                                                timeout=10_000)
        await expect(page.locator('.hole[data-seat="3"] .card')).to_have_count(2)
        shown = [await c.get_attribute("data-card")
                 for c in await page.locator('.hole[data-seat="3"] .card').all()]
        assert shown == ["9c", "8c"]
        await expect(page.locator('.hole[data-seat="1"] .hole-name')).to_contain_text("Ada")
        await expect(page.locator("#hand-label")).to_contain_text("Hand #7")
        await expect(page.locator('.hole[data-seat="1"] .hole-stats')).to_have_text(
            "VPIP 23 \u00b7 PFR 15 \u00b7 3-bet 6 \u00b7 WTSD 25 \u00b7 W$SD 56 \u00b7 120 hands")
        await expect(page.locator('.hole[data-seat="3"] .hole-stats')).to_have_count(0)
        await page.screenshot(path=artifact("overlay.png"), omit_background=True)

        cards = {c for cs in HOLE.values() for c in cs}
        with_cards = [r for r in received if strings_in(r.view) & cards]
        assert with_cards, "the overlay browser never received the hole cards"
        for r in received:
            # Chromium's receive stamp and our clock are the same clock: a stamp is never
            # later than when we heard of it, and not much earlier.
            assert r.browser_time <= r.test_time + 0.05
            assert r.test_time - r.browser_time < 5
        first = min(r.browser_time for r in with_cards)
        assert first - published >= DELAY, f"hole cards reached the browser after " \
            f"{first - published:.3f} s, before the {DELAY} s delay"
        with_stats = [r.browser_time for r in received if r.view.get("stats")]
        assert with_stats and min(with_stats) - published >= DELAY
    finally:
        daemon.close()


async def test_roles_keep_pages_apart(stack_factory: Any, browser: Any) -> None:
    stack = await stack_factory()
    page = await browser.new_page()
    # The dealer login cannot open the overlay or its feed ...
    await login(page, stack.url, "dealer1", "/console")
    resp = await page.goto(stack.url + "/overlay")
    assert resp is not None and resp.status == 403
    resp = await page.goto(stack.url + "/events/overlay")
    assert resp is not None and resp.status == 403
    # ... and a wrong password opens nothing.
    other = await browser.new_page()
    await other.goto(stack.url + "/overlay")
    await other.fill("#user", "camera")
    await other.fill("#password", PASSWORDS["dealer1"])
    await other.click("#login-submit")
    await expect(other.locator("#login-error")).to_be_visible()
    resp = await other.goto(stack.url + "/overlay")
    assert resp is not None and resp.url.startswith(stack.url + "/login")


def odds_message(hand: str, board: list[str], players: list[dict[str, Any]],
                 **extra: Any) -> bytes:
    """An odds message as the daemon publishes it (validated against its model)."""
    from tablectl.odds.payload import OddsEnvelope

    doc = {"v": 1, "table": TABLE, "epoch": 1, "seq": 9, "type": "odds",
           "ts": "2026-11-29T18:00:01Z", "hand": 7,
           "data": {"hand": {"id": hand, "number": 7}, "variant": "omaha-hi-lo",
                    "street": "flop" if board else "preflop", "board": board, "dead": [],
                    "exact": True, "runouts": 990, "precision": None, "no_low": 0.25,
                    "players": players, **extra}}
    OddsEnvelope.model_validate(doc)
    return json.dumps(doc).encode()


async def test_overlay_shows_hi_lo_odds_only_on_the_board_they_were_computed_on(
        stack_factory: Any, browser: Any) -> None:
    """The win % and the high and low shares of each live seat are drawn; a board card
    released before its figures hides the old ones rather than showing them as current."""
    stack = await stack_factory(delay=0.3)
    daemon = SyncClient(stack.broker.port, "controller-t01-secure")
    try:
        page = await browser.new_page(viewport={"width": 1920, "height": 1080})
        await login(page, stack.url, "camera", "/overlay")
        hand = "t01-000007"
        state = secure_state(hand)
        daemon.publish(f"secure/v1/tables/{TABLE}/state", json.dumps(state).encode())
        figures = [{"seat": 1, "name": "Ada", "cards": HOLE[1], "win": 0.5123, "tie": 0.2,
                    "equity": 0.6125, "high": 0.7, "low": 0.525, "scoop": 0.5123},
                   {"seat": 3, "name": "Brook", "cards": HOLE[3], "win": 0.1875, "tie": 0.2,
                    "equity": 0.3875, "high": 0.3, "low": 0.225, "scoop": 0.1875}]
        daemon.publish(f"secure/v1/tables/{TABLE}/odds", odds_message(hand, [], figures))
        ada, brook = (page.locator(f'.hole[data-seat="{s}"]') for s in (1, 3))
        await expect(ada.locator(".odds-win")).to_have_text("61.3%", timeout=10_000)
        await expect(ada.locator(".odds-hilo")).to_have_text("Hi 70.0% \u00b7 Lo 52.5%")
        await expect(brook.locator(".odds-win")).to_have_text("38.8%")
        await expect(brook.locator(".odds-hilo")).to_have_text("Hi 30.0% \u00b7 Lo 22.5%")
        await page.screenshot(path=artifact("overlay-odds-hilo.png"), omit_background=True)

        # the flop is shown before its figures: the preflop ones are not drawn over it
        flop = ["2c", "7d", "9h"]
        state["data"] = {**state["data"], "board": flop, "street": "flop"}
        state["seq"] = 10
        daemon.publish(f"secure/v1/tables/{TABLE}/state", json.dumps(state).encode())
        await expect(page.locator("#board .card")).to_have_count(3, timeout=10_000)
        await expect(page.locator(".odds-win")).to_have_count(0)
        figures[0] = {**figures[0], "equity": 0.25, "high": 0.1, "low": 0.4}
        daemon.publish(f"secure/v1/tables/{TABLE}/odds", odds_message(hand, flop, figures))
        await expect(ada.locator(".odds-win")).to_have_text("25.0%", timeout=10_000)
        await expect(ada.locator(".odds-hilo")).to_have_text("Hi 10.0% \u00b7 Lo 40.0%")

        # run twice (issue 28): every run's board, and the figures of the run being dealt
        run1 = [*flop, "Kc", "4s"]
        state["data"] = {**state["data"], "board": run1, "street": "river",
                         "runs": {"count": 2, "boards": [run1, flop]}}
        state["seq"] = 11
        daemon.publish(f"secure/v1/tables/{TABLE}/state", json.dumps(state).encode())
        await expect(page.locator("#board .run-board")).to_have_count(2, timeout=10_000)
        await expect(page.locator(".odds-win")).to_have_count(0)   # of run 1's flop: gone
        figures[0] = {**figures[0], "equity": 0.75, "high": 0.8, "low": 0.7}
        daemon.publish(f"secure/v1/tables/{TABLE}/odds",
                       odds_message(hand, flop, figures, run=2))
        await expect(ada.locator(".odds-win")).to_have_text("75.0%", timeout=10_000)
    finally:
        daemon.close()
