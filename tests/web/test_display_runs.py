"""A hand run more than once on the table display (issue 28) in a real browser: every run's
board in its own labelled row, the awards of each run, and the log lines of the runs; a bomb
pot's line and a double-board hand's two boards."""

from __future__ import annotations

import json
from typing import Any

from playwright.async_api import expect

from tests.web.conftest import TABLE, artifact
from tests.web.paho_link import SyncClient
from tests.web.test_display import event, shown, state, status

HOLDEM = {"variant": "holdem", "structure": "no-limit", "preset": "casino",
          "label": "No-Limit Hold'em"}


async def test_the_display_shows_every_run_of_a_hand(stack_factory: Any, browser: Any) -> None:
    stack = await stack_factory()
    daemon = SyncClient(stack.broker.port, "controller-t01")
    base = f"poker/v1/tables/{TABLE}"

    def pub(kind: str, obj: dict[str, Any], retain: bool = False) -> None:
        daemon.publish(f"{base}/{kind}", json.dumps(obj).encode(), retain=retain)

    try:
        pub("status", status("online"), retain=True)
        seats = state(10)["data"]["seats"]
        for seat in seats:
            seat["cards"] = shown(["As", "Ad"]) if seat["seat"] == 1 else \
                shown(["Ks", "Kh"]) if seat["seat"] == 3 else []
        pub("state", state(10, game=HOLDEM, seats=seats, phase="dealing", street="flop",
                           board=["7h", "8s", "9d"], to_act=None,
                           runs={"count": 2, "boards": [["7h", "8s", "9d"], ["7h", "8s",
                                                                             "9d"]]}),
            retain=True)
        page = await browser.new_page(viewport={"width": 1920, "height": 1080})
        await page.goto(stack.url + "/")
        rows = page.locator("#board .run-board")
        await expect(rows).to_have_count(2)
        await expect(rows.nth(0).locator(".run-label")).to_have_text("Run 1")
        await expect(rows.nth(1).locator(".card:not(.slot)")).to_have_count(3)

        pub("events", event(11, "runs", count=2, board=["7h", "8s", "9d"]))
        await expect(page.locator("#log li").first).to_have_text("Run it twice")
        pub("events", event(12, "board", cards=["7h", "8s", "9d", "Kd"], street="turn", run=2))
        await expect(page.locator("#log li").first).to_have_text("Run 2 turn: 7h 8s 9d Kd")

        boards = [["7h", "8s", "9d", "Jc", "2s"], ["7h", "8s", "9d", "Kd", "3s"]]
        results = [
            {"pot": 0, "seat": 1, "amount": 5025, "half": "whole", "run": 1,
             "description": "Pair of aces", "cards": ["As", "Ad", "Jc", "9d", "8s"]},
            {"pot": 0, "seat": 3, "amount": 5025, "half": "whole", "run": 2,
             "description": "Three of a kind, kings", "cards": ["Ks", "Kh", "Kd", "9d", "8s"]},
        ]
        pub("state", state(13, game=HOLDEM, seats=seats, phase="settled", street="showdown",
                           board=boards[0], to_act=None, pots=[], results=results,
                           runs={"count": 2, "boards": boards}), retain=True)
        await expect(rows.nth(1).locator(".card:not(.slot)")).to_have_count(5)
        assert [await c.get_attribute("data-card") for c in
                await rows.nth(1).locator(".card").all()] == boards[1]
        assert [await c.get_attribute("data-card") for c in
                await rows.nth(0).locator(".card").all()] == boards[0]
        await expect(page.locator('#results .result[data-run="2"] .result-name')).to_have_text(
            "Brook")
        await expect(page.locator('#results .result[data-run="1"] .result-run')).to_have_text(
            "run 1")
        await page.screenshot(path=artifact("display-run-twice.png"))

        pub("state", state(14, bomb_pot=300), retain=True)  # a bomb pot: one board again
        await expect(page.locator("#board .run-board")).to_have_count(0)
        await expect(page.locator("#board .card:not(.slot)")).to_have_count(3)
        await expect(page.locator("#hand-no")).to_have_text("Hand #42 \u2013 bomb pot $3")
        pub("state", state(15, game=HOLDEM, double_board={"boards": [["7h", "8s", "9d"],
                                                                     ["Ks", "7c", "2h"]]}),
            retain=True)                               # a double-board hand: two boards
        await expect(page.locator("#board .run-label")).to_have_text(["Board 1", "Board 2"])
        await expect(rows.nth(1).locator(".card:not(.slot)")).to_have_count(3)
        await page.close()
    finally:
        daemon.close()
