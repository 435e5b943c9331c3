"""A tournament table's display (docs/tournament.md §7): the banner says the level, that a new
one starts with the next hand, hand for hand and a clock no longer updating, from the
snapshot's ``tournament`` (validated against the payload model), in a real browser."""

from __future__ import annotations

import json
from typing import Any

from playwright.async_api import expect

from tests.web.paho_link import SyncClient
from tests.web.test_display import state, status

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
        await page.goto(stack.url + "/")
        await expect(page.locator("#live")).to_have_text("live")
        await expect(page.locator("#tournament")).to_be_hidden()     # a cash table
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
    finally:
        daemon.close()
