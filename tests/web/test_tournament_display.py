"""A tournament table's display (docs/tournament.md §7): the banner says the level, that a new
one starts with the next hand, hand for hand and a clock no longer updating, and under it
the time left counting down (from the snapshot, not the browser's clock, which the page is
given wrong), the next level, the players left and the average stack, from the snapshot's
``tournament`` (validated against the payload model), in a real browser; the broadcast
overlay shows each player's chips in big blinds and M."""

from __future__ import annotations

import json
from typing import Any

from playwright.async_api import expect

from tablectl.controller.payloads import SecureSnapshot
from tests.web.paho_link import SyncClient
from tests.web.test_console import login
from tests.web.test_display import state, status
from tests.web.test_overlay import secure_state

LEVEL = {"number": 4, "label": "level 4 200/400 (big-blind ante 400)", "small_blind": 200,
         "big_blind": 400, "ante": 400, "ante_kind": "big_blind"}


def tournament(**over: Any) -> dict[str, Any]:
    body = {"id": "daily", "link": "following", "says": "following tournament daily",
            "level": LEVEL, "pending": False, "hand_for_hand": False,
            "hand_for_hand_go": None, "waiting": False,
            "status_at": "2026-11-29T18:00:00+00:00", "refused": None}
    body.update(over)
    return body


async def test_a_tournament_table_shows_its_level(stack_factory: Any, browser: Any) -> None:
    stack = await stack_factory()
    base = "poker/v1/tables/t01"
    daemon = SyncClient(stack.broker.port, "controller-t01")
    try:
        daemon.publish(f"{base}/status", json.dumps(status("online")).encode(), retain=True)
        daemon.publish(f"{base}/state", json.dumps(state(10)).encode(), retain=True)
        page = await browser.new_page()
        # the browser's clock a year wrong: the time left does not come from it
        await page.add_init_script("Date.now = () => 1e12 + 3.15e10;")
        await page.goto(stack.url + "/")
        await expect(page.locator("#live")).to_have_text("live")
        await expect(page.locator("#tournament")).to_be_hidden()     # a cash table
        await expect(page.locator("#tournament-clock")).to_be_hidden()
        daemon.publish(f"{base}/state", json.dumps(state(11, tournament=tournament(
            pending=True))).encode(), retain=True)
        await expect(page.locator("#tournament")).to_have_text(
            "Level 4 200/400 (big-blind ante 400) from the next hand")
        daemon.publish(f"{base}/state", json.dumps(state(12, tournament=tournament(
            hand_for_hand=True, hand_for_hand_go=3, waiting=True, link="stale"))).encode(),
            retain=True)
        await expect(page.locator("#tournament")).to_have_text(
            "Level 4 200/400 (big-blind ante 400) \u00b7 HAND FOR HAND: waiting for the "
            "other tables \u00b7 tournament clock not updating: playing the last level known")
        clock = page.locator("#tournament-clock")
        await expect(clock).to_be_hidden()               # a daemon that sends no clock
        running = tournament(phase="running", time_left=10.5, players_left=61,
                             average_stack=24262,
                             next_level="level 5 300/600 (big-blind ante 600)")
        daemon.publish(f"{base}/state", json.dumps(state(13, tournament=running)).encode(),
                       retain=True)
        # 10.5 s shown as 0:11, then counting down by itself, with no new snapshot
        await expect(clock).to_have_text(
            "0:11 left \u00b7 next: level 5 300/600 (big-blind ante 600) \u00b7 61 players "
            "left \u00b7 average stack 24,262")
        await expect(clock).to_contain_text("0:10 left")
        daemon.publish(f"{base}/state", json.dumps(state(14, tournament=tournament(
            phase="paused", time_left=3725, players_left=1, next_level=None))).encode(),
            retain=True)
        await expect(clock).to_have_text("PAUSED 1:02:05 left \u00b7 1 player left")
        daemon.publish(f"{base}/state", json.dumps(state(15, tournament=tournament(
            phase="on_break", time_left=300, players_left=12, average_stack=50000,
            next_level="level 6 400/800 (big-blind ante 800)"))).encode(), retain=True)
        await expect(clock).to_contain_text("BREAK 5:00 left \u00b7 next: level 6")
    finally:
        daemon.close()


async def test_the_overlay_shows_chips_in_big_blinds(stack_factory: Any, browser: Any) -> None:
    stack = await stack_factory(delay=0.1)
    daemon = SyncClient(stack.broker.port, "controller-t01-secure")
    try:
        page = await browser.new_page(viewport={"width": 1920, "height": 1080})
        await login(page, stack.url, "camera", "/overlay")
        await expect(page.locator("body.overlay")).to_have_count(1)
        snap = secure_state("t01-000007")
        snap["data"]["stakes"].update(currency="chips", units_per_currency=1,
                                      big_blind_ante=200)
        snap["data"]["tournament"] = tournament()
        SecureSnapshot.model_validate(snap["data"])
        daemon.publish("secure/v1/tables/t01/state", json.dumps(snap).encode())
        # 19,800 chips at a 200 big blind: 99 big blinds; M: 19,800 / (100 + 200 + 200)
        hole = page.locator('.hole[data-seat="1"] .hole-stack')
        await expect(hole).to_have_text("19,800 chips \u00b7 99 BB \u00b7 M 39",
                                        timeout=10_000)
        # an ante from each of the two seats dealt in: 19,800 / (100 + 200 + 2 x 50) = 49.5
        snap = secure_state("t01-000008")
        snap["data"]["stakes"].update(currency="chips", units_per_currency=1, ante=50)
        snap["data"]["tournament"] = tournament()
        SecureSnapshot.model_validate(snap["data"])
        daemon.publish("secure/v1/tables/t01/state", json.dumps(snap).encode())
        await expect(hole).to_have_text("19,800 chips \u00b7 99 BB \u00b7 M 49",
                                        timeout=10_000)
    finally:
        daemon.close()
