"""The tournament page (``tablectl tournament web``) in Chromium, fed by the service's own
status on a real mosquitto: the level, the time counting down, the next level and the field;
a new level, a pause and hand for hand as they come; a hostile status refused with the screen
unchanged."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tablectl.clock import SystemClock
from tablectl.publish.mqtt import MqttPublisher
from tablectl.publish.mqtt_settings import MqttSettings
from tablectl.publish.topics import Topic
from tablectl.tournament.board import TournamentBoard
from tablectl.tournament.clock import MoveTo, Pause, Start
from tablectl.tournament.service import TournamentService, clock_topic
from tablectl.tournament.store import MemoryTournamentStore
from tablectl.tournament.structure import Structure
from tablectl.tournament.web import TournamentPage
from tests.conftest import Broker
from tests.tournament.conftest import SMALL
from tests.web.conftest import artifact, browser, serving  # noqa: F401 - the Chromium fixture


async def test_the_room_sees_the_clock(mosquitto: Broker, browser: Any) -> None:  # noqa: F811
    def settings(name: str) -> MqttSettings:
        return MqttSettings(host=mosquitto.host, port=mosquitto.port, client_id=name,
                            session_expiry=0)

    async with MqttPublisher(settings("director")) as director, \
            MqttPublisher(settings("tv")) as feed:
        service = TournamentService(MemoryTournamentStore(), SystemClock(), director)
        service.create("d1", Structure.parse(SMALL, "small.toml"))
        for name in ("Ann", "Bob", "Cy"):
            service.register("d1", name)
        await service.publish(service.command("d1", Start()))
        server = TournamentPage(feed, "d1")
        try:
            async with serving(server) as url:
                page = await browser.new_page()
                await page.goto(url)
                await page.locator("#level", has_text="level 1 50/100").wait_for(timeout=15000)
                assert await page.locator("#name").inner_text() == "Test turbo"
                time_text = await page.locator("#time").inner_text()
                assert re.fullmatch(r"(10:00|[0-9]:[0-5][0-9])", time_text), time_text
                assert await page.locator("#next").inner_text() == (
                    "Next: level 2 100/200 (big-blind ante 200)")
                assert await page.locator("#players").inner_text() == "Players 3 of 3"
                assert await page.locator("#h4h").is_hidden()

                await service.publish(service.command("d1", MoveTo(2)))
                await page.locator("#level", has_text="level 2 100/200").wait_for(timeout=15000)
                assert await page.locator("#next").inner_text() == "Next: break 5 min (chip-up 25)"
                # a hostile status: refused, the screen as it was
                await director.publish(clock_topic("d1"), json.dumps({
                    "schema": 1, "tournament": "d1", "clock": {"phase": "running",
                                                               "label": "<b>x</b>"}}).encode(),
                    retain=True, qos=1)
                await page.locator("#refused", has_text="refused").wait_for(timeout=15000)
                assert "level 2 100/200" in await page.locator("#level").inner_text()
                await service.publish(service.command("d1", Pause()))
                await page.locator("#phase", has_text="PAUSED").wait_for(timeout=15000)
                assert await page.locator("#refused").is_hidden()
                # hand for hand, and the round waits for table 3
                body = {**service.status("d1"), "hand_for_hand": True, "hand_for_hand_go": 4,
                        "hand_for_hand_waiting": [3]}
                await director.publish(clock_topic("d1"), json.dumps(body).encode(), retain=True,
                                       qos=1)
                await page.locator("#h4h", has_text="HAND FOR HAND · waiting for table 3"
                                   ).wait_for(timeout=15000)
                await page.screenshot(path=str(artifact("tournament.png")))
        finally:
            await director.publish(Topic("poker/v1/tournaments/d1/clock"), b"", retain=True)


def _status(**clock: Any) -> bytes:
    body: dict[str, Any] = {
        "schema": 1, "tournament": "d1", "name": "Daily", "players_left": 9, "entries": 12,
        "average_stack": 20000, "hand_for_hand": False,
        "clock": {"phase": "running", "label": "level 1 50/100", "time_left": 600,
                  "next": None, "at": "2026-12-03T10:00:00+00:00"}}
    body["clock"].update(clock)
    return json.dumps(body).encode()


@pytest.mark.parametrize(("payload", "says"), [
    (b"{", "not a status"),
    (_status(phase="dancing"), "not a phase"),
    (_status(time_left=-1), "not a time left"),
    (_status(time_left=float("nan")), "not a status"),
    (_status(label=""), "label is not a text"),
    (_status(at="soon"), "not a time"),
    (_status(next=[1]), "next is not an object"),
    (_status().replace(b'"players_left": 9', b'"players_left": -9'), "not a count"),
    (_status().replace(b'"d1"', b'"d2"'), "not a status of tournament d1"),
    (_status().replace(b'"hand_for_hand": false', b'"hand_for_hand": true, '
                       b'"hand_for_hand_waiting": ["<b>3</b>"]'), "not a list of table"),
    (_status().replace(b'"hand_for_hand": false', b'"hand_for_hand": true, '
                       b'"hand_for_hand_waiting": [true]'), "not a list of table"),
    (_status().replace(b'"hand_for_hand": false', b'"hand_for_hand": true, '
                       b'"hand_for_hand_waiting": 3'), "not a list of table"),
])
def test_the_board_refuses_what_it_cannot_show(payload: bytes, says: str) -> None:
    board = TournamentBoard("d1")
    assert board.on_status(_status())
    shown = board.to_json()["status"]
    assert board.on_status(payload) and says in str(board.refused)
    assert board.to_json()["status"] == shown          # the screen as it was
