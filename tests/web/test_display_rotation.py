"""The rotation banner of the table display (issue 28) in a real browser: the game now, the
hands left, the next game and the frozen button of a mixed-game table; nothing at a table
dealing one game; the dealer's choice while the dealer picks."""

from __future__ import annotations

import json
from typing import Any

from playwright.async_api import expect

from tests.web.conftest import TABLE, artifact
from tests.web.paho_link import SyncClient
from tests.web.test_display import state, status

RAZZ = {"variant": "razz", "structure": "fixed-limit", "label": "Razz"}
STUD = {"variant": "stud", "structure": "fixed-limit", "label": "Limit Seven Card Stud"}
GAMES = [{"variant": "holdem", "structure": "fixed-limit", "label": "Limit Hold'em"},
         {"variant": "omaha-hi-lo", "structure": "fixed-limit",
          "label": "Limit Omaha Hi-Lo 8 or Better"}, RAZZ, STUD,
         {"variant": "stud-hi-lo", "structure": "fixed-limit",
          "label": "Limit Seven Card Stud Hi-Lo 8 or Better"}]


def rotation(**over: Any) -> dict[str, Any]:
    return {"name": "horse", "dealers_choice": False, "choosing": False, "game": RAZZ,
            "next": STUD, "hands_left": 3, "frozen_button": 4, "games": GAMES, **over}


async def test_the_display_shows_the_rotation(stack_factory: Any, browser: Any) -> None:
    stack = await stack_factory()
    daemon = SyncClient(stack.broker.port, "controller-t01")
    base = f"poker/v1/tables/{TABLE}"

    def pub(kind: str, obj: dict[str, Any]) -> None:
        daemon.publish(f"{base}/{kind}", json.dumps(obj).encode(), retain=True)

    try:
        pub("status", status("online"))
        pub("state", state(10))                    # one game: no banner
        page = await browser.new_page(viewport={"width": 1920, "height": 1080})
        await page.goto(stack.url + "/")
        await expect(page.locator("#live")).to_have_text("live")
        await expect(page.locator("#rotation")).to_be_hidden()

        pub("state", state(11, rotation=rotation(), button=None))
        banner = page.locator("#rotation")
        await expect(banner).to_be_visible()
        await expect(banner).to_have_text("HORSE: Razz, 3 hands left; next Limit Seven Card "
                                          "Stud; button frozen on seat 4")
        await page.screenshot(path=artifact("display-rotation.png"))

        pub("state", state(12, rotation=rotation(game=GAMES[0], next=GAMES[1], hands_left=1,
                                                 frozen_button=None)))
        await expect(banner).to_have_text("HORSE: Limit Hold'em, 1 hand left; next Limit "
                                          "Omaha Hi-Lo 8 or Better")

        pub("state", state(13, rotation=rotation(name="", dealers_choice=True, choosing=True,
                                                 game=None, next=None, hands_left=0,
                                                 frozen_button=None)))
        await expect(banner).to_have_text("Mixed games: dealer's choice \u2014 the dealer "
                                          "picks the next game")
        await page.close()
    finally:
        daemon.close()
