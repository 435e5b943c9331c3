"""The floor page in Chromium, fed by real table daemons (``tablectl run`` on simulated
shoes) on a real mosquitto: every table with its game, stakes, hand number, pot, players,
controller and reader status, and the error states waiting for a person."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge.messages import TagSeen
from tablectl.floor.web import FloorPage
from tablectl.publish import topics
from tablectl.publish.mqtt import MqttPublisher
from tablectl.publish.mqtt_settings import MqttSettings
from tests.conftest import Broker
from tests.floor.stack import ROOT
from tests.reliability.harness import VARIANTS, open_stack
from tests.web.conftest import artifact, browser, serving  # noqa: F401 - the Chromium fixture

FLAG = {"v": 1, "type": "flag", "hand": "f1:1:1", "rule": "bad-beat", "kind": "bad_beat",
        "seat": 3, "detail": "Ah Ad Ac Ks Kh (at least Ah Ad Ac Th Td)", "ts": "2026-12-01"}


async def card_text(page: Any, table: str) -> str:
    return str(await page.locator(f'article[data-table="{table}"]').inner_text())


@pytest.mark.slow
async def test_the_floor_page_shows_every_table_live(
        tmp_path: Path, mosquitto: Broker, browser: Any) -> None:  # noqa: F811
    settings = MqttSettings(host=mosquitto.host, port=mosquitto.port, client_id="floor-web",
                            session_expiry=0)
    async with contextlib.AsyncExitStack() as stack:
        tables = {}
        for i, name in enumerate(("f1", "f2")):
            variant, structure, stakes = VARIANTS[i + 1]
            (tmp_path / name).mkdir()
            tables[name] = await stack.enter_async_context(open_stack(
                tmp_path / name, mosquitto.host, mosquitto.port, variant=variant,
                structure=structure, stakes=stakes, seed=i + 3, table=name))
        client = await stack.enter_async_context(MqttPublisher(settings))
        page_server = FloorPage(client, throttle=0.05)
        async with serving(page_server) as url:
            page = await browser.new_page()
            await page.goto(url)
            for t in tables.values():
                await t.dealer.play_hand()
            await page.locator('article[data-table="f2"]').wait_for(timeout=15000)
            await page.locator('article[data-table="f1"]').wait_for(timeout=15000)
            f1 = tables["f1"]
            text = await card_text(page, "f1")
            assert "No-Limit Hold'em" in text and "1/2" in text, text
            assert "between hands" in text and "online" in text and "shoe online" in text
            assert "4 players: P1" in text
            reply = await f1.console.command("start_hand", {})
            assert reply["ok"], reply
            await page.locator('article[data-table="f1"] .hand',
                               has_text="Hand #2").wait_for(timeout=15000)
            # the blinds, 100 + 200 chip units: money, as the stakes are
            assert "Pot 3\n" in await card_text(page, "f1") + "\n"
            f2 = await card_text(page, "f2")
            assert "Hi-Lo" in f2 or "hi-lo" in f2.lower(), f2

            # a tag of no deck read at f1: an error state that waits for the floor
            shoe = f1.shoe
            shoe.emit(TagSeen(0, shoe.tech, shoe.uptime_ms, shoe.index, 0,
                              bytes.fromhex("04a1b2c3d4e5f6")))
            await page.wait_for_selector('article[data-table="f1"].attention li.error',
                                         timeout=15000)
            assert "unknown_tag" in await card_text(page, "f1")
            assert "1 waiting for a person" in await page.locator("#count").inner_text()

            # a flag from the floor service
            await client.publish(topics.Topic("poker/v1/floor/flags"),
                                 json.dumps(FLAG).encode())
            await page.wait_for_selector("#flag-list li", timeout=10000)
            flags = await page.locator("#flags").inner_text()
            # the table's name (f1 has none: its id) and the player's, not "seat 3"
            assert "bad-beat: f1 \u00b7 P3 \u2014 Ah Ad Ac" in flags and "seat 3" not in flags

            # f2's daemon dies: the broker publishes its will, the page shows it offline
            tables["f2"].daemon.kill()
            await page.wait_for_selector('article[data-table="f2"].offline', timeout=20000)
            assert "offline" in await card_text(page, "f2")
            await page.screenshot(path=str(artifact("floor.png")))


def test_floor_web_refuses_a_bad_broker_url() -> None:
    out = subprocess.run([sys.executable, "-m", "tablectl", "floor", "web", "--broker",
                          "ftp://x"], capture_output=True, text=True, timeout=60, cwd=ROOT,
                         check=False)
    assert out.returncode == 2 and "mqtt://" in out.stderr
