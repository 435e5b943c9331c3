"""Issue 25 item 2 as reported, through a real mosquitto: mid-hand, a display user (and the
dealer and floor) sends ``recall {"hands": 1}``; the reply holds no hole card, no tag UID of
the deck and no typed ``manual_card`` card, and still says step by step what happened.

A simulated shoe on the real wire protocol deals five hole cards, the dealer types the sixth
with ``manual_card``; the consoles are plain paho clients under their own usernames."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from hardware_sim.devices import SimShoe
from hardware_sim.serve import PipeDevice
from tablectl.app import run_daemon
from tablectl.clock import SystemClock
from tablectl.config import load_config
from tablectl.daemon import TableDaemon
from tablectl.domain.cards import FULL_DECK
from tablectl.history.public_view import HIDDEN
from tablectl.sources.rfid import RfidShoeSource
from tests.conftest import Broker
from tests.daemon.helpers import Console, Listener
from tests.daemon.test_end_to_end import write_config
from tests.security.test_information_flow_property import cards_in, uids_in

USERS = {"dealer-e2e": "dealer", "display-01": "display", "pit-01": "floor"}


def _secure_cards(daemon: TableDaemon) -> set[str]:
    seats = daemon.controller.secure_snapshot()["seats"]
    assert isinstance(seats, list)
    return {c["card"] for s in seats for c in s["cards"]  # type: ignore[index, union-attr]
            if c["card"]}  # type: ignore[index]


async def test_a_display_recalling_mid_hand_sees_no_hole_card_and_no_uid(
        tmp_path: Path, mosquitto: Broker) -> None:
    config = write_config(tmp_path, mosquitto, "holdem", "no-limit",
                          {"small_blind": 100, "big_blind": 200}, [3000, 3000, 3000])
    path = tmp_path / "table.toml"
    path.write_text(path.read_text().replace(
        'dealer-e2e = "dealer"', "\n".join(f'{u} = "{r}"' for u, r in USERS.items())))
    config = load_config(path)
    clock = SystemClock()
    deck = config.load_deck()
    uids = {uid.upper() for d in config.load_decks().values() for uid in d.cards_by_uid}
    shoe = SimShoe(deck, clock=clock, seed=5)
    pipe = PipeDevice(shoe, clock=clock)
    sources = [RfidShoeSource("shoe", "sim", clock=clock, opener=pipe.open)]
    listener = Listener(mosquitto.host, mosquitto.port, "e2e")
    consoles = {u: Console(mosquitto.host, mosquitto.port, "e2e", u) for u in USERS}
    ready: asyncio.Future[TableDaemon] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(run_daemon(config, clock=clock, sources=sources,
                                          ready=ready.set_result))
    try:
        daemon = await asyncio.wait_for(ready, 10)
        assert await asyncio.to_thread(listener.wait_for,
                                       lambda lst: lst.latest_state() is not None)
        dealer = consoles["dealer-e2e"]
        started = await asyncio.to_thread(dealer.send, "start_hand")
        assert started["status"] == "ok", started
        for _ in range(5):
            shoe.draw()
        assert await asyncio.to_thread(listener.wait_for, lambda lst: sum(
            e.get("type") == "cards_dealt" for e in lst.events()) >= 5)
        read = _secure_cards(daemon)
        typed = next(str(c) for c in FULL_DECK if str(c) not in read)
        manual = await asyncio.to_thread(dealer.send, "manual_card", {"card": typed})
        assert manual["status"] == "ok", manual
        assert manual["data"]["card"] is None, "the reply does not echo a hidden card"  # type: ignore[index]
        holes = _secure_cards(daemon)
        assert len(holes) == 6 and typed in holes

        for user, console in consoles.items():
            reply = await asyncio.to_thread(console.send, "recall", {"hands": 1})
            assert reply["status"] == "ok", (user, reply)
            assert not cards_in(reply) & holes, (user, cards_in(reply) & holes)
            assert not uids_in(reply) & uids, user
            steps = reply["data"]["hands"][0]["steps"]  # type: ignore[index]
            kinds = [s["what"] for s in steps]
            assert kinds[0] == "start_hand" and kinds.count("card_read") == 5, kinds
            manual_step = next(s for s in steps if s["what"] == "manual_card")
            assert manual_step["input"]["args"] == {"card": HIDDEN}
            dealt = [e["data"]["seat"] for s in steps for e in s["events"]
                     if e["type"] == "cards_dealt"]
            assert len(dealt) == 6, "each step still says which seat got a card"
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        listener.close()
        for console in consoles.values():
            console.close()
        await pipe.aclose()
