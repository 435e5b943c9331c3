"""The floor page in Chromium draws every board: each run's of a hand run twice, both of a
double board, and says "bomb pot" (tablectl/floor/static/floor.js; docs/floor.md §5). The
snapshots are the controller's own (tests/floor/format_hands.py), retained on a real
mosquitto as a daemon publishes them."""

from __future__ import annotations

import contextlib
import json
from typing import Any

from tablectl.floor.web import FloorPage
from tablectl.publish import topics
from tablectl.publish.mqtt import MqttPublisher
from tablectl.publish.mqtt_settings import MqttSettings
from tests.conftest import Broker
from tests.floor.format_hands import bomb_pot, dealt, double_board, run_twice
from tests.web.conftest import browser, serving  # noqa: F401 - the Chromium fixture


def _state(table: str, play: Any) -> bytes:
    snap = dealt(play).ctl.public_snapshot()
    return json.dumps({"v": 1, "table": table, "journal": "j1", "epoch": 1, "seq": 30,
                       "type": "snapshot", "ts": "2026-12-03T11:00:00Z", "hand": 1,
                       "data": snap}).encode()


async def test_the_floor_page_draws_every_run_and_board(mosquitto: Broker,
                                                        browser: Any) -> None:  # noqa: F811
    settings = MqttSettings(host=mosquitto.host, port=mosquitto.port, client_id="floor-web-f",
                            session_expiry=0)
    async with contextlib.AsyncExitStack() as stack:
        client = await stack.enter_async_context(MqttPublisher(settings))
        for table, play in (("t11", run_twice), ("t12", double_board), ("t13", bomb_pot)):
            await client.publish(topics.state(table), _state(table, play), retain=True)
        page_server = FloorPage(client, throttle=0.05)
        async with serving(page_server) as url:
            page = await browser.new_page()
            await page.goto(url)
            boards = {}
            for table in ("t11", "t12", "t13"):
                card = page.locator(f'article[data-table="{table}"]')
                await card.locator(".board").first.wait_for(timeout=15000)
                boards[table] = await card.locator(".board").all_inner_texts()
            assert boards["t11"] == ["run 1: 7h 8s 9d Jc 2s", "run 2: Ks 7c 2h Th 3s"]
            assert boards["t12"] == ["board 1: 7h 8s 9d Jc 2s", "board 2: Ks 7c 2h Th 3s"]
            assert boards["t13"] == ["Board: 7h 8s 9d Jc 2s"]
            pot = await page.locator('article[data-table="t13"] .pot').inner_text()
            assert "bomb pot" in pot, pot
