"""The floor publishes the seated players' statistics, retained, after a hand ends: a real
mosquitto, the floor service and PostgreSQL (docs/floor.md, "Published for the displays and
the overlay")."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from tablectl.floor.pg import PgStore
from tablectl.floor.service import FloorService, FloorSettings, stats_topic
from tests.conftest import BrokerFactory
from tests.floor.phh_stream import phh_bodies
from tests.floor.streams import T0
from tests.floor.test_bridge import Sub
from tests.floor.test_workers import publish_all, worker_client
from tests.reliability.harness import poll_until

SEATED = [(1, "Phil Ivey"), (2, "Patrik Antonius"), (3, "Tom Dwan"), (5, "Newcomer")]


def snapshot_body(seq: int) -> dict[str, Any]:
    """t01's public snapshot: no-limit hold'em, four players seated, seat 4 empty."""
    seats = [{"seat": s, "name": n, "stack": 100, "status": "out"} for s, n in SEATED]
    seats.append({"seat": 4, "name": "", "stack": 0, "status": "empty"})
    return {"v": 1, "table": "t01", "epoch": 1, "seq": seq, "type": "snapshot",
            "ts": T0.isoformat(), "hand": None,
            "data": {"game": {"variant": "holdem", "structure": "no-limit",
                              "label": "No-Limit Hold'em"},
                     "stakes": {"small_blind": 1000, "big_blind": 2000}, "seats": seats}}


async def test_a_hand_end_publishes_the_seated_players_statistics_retained(
        mosquitto_factory: BrokerFactory, pg_url: str) -> None:
    broker = mosquitto_factory("")
    events = phh_bodies("t01", 1, ["NT/historical/dwan-ivey-2009.phh"])
    messages = [("poker/v1/tables/t01/state", json.dumps(snapshot_body(0)).encode())]
    # everything but the hand's end first: nothing to publish while it is under way
    messages += [("poker/v1/tables/t01/events", json.dumps(b).encode()) for b in events[:-1]]
    store, stats_store = PgStore(pg_url), PgStore(pg_url)   # one connection per thread
    async with contextlib.AsyncExitStack() as stack:
        stack.callback(store.close)
        stack.callback(stats_store.close)
        client = await stack.enter_async_context(worker_client(broker.port, "floor-01", 50))
        service = FloorService(FloorSettings(user="floor-01", batch_max=50), store, client,
                               table_stats=stats_store)
        for topic_filter in service.settings.filters():
            await client.subscribe(topic_filter, qos=1)
        task = asyncio.create_task(service.run())
        stack.push_async_callback(asyncio.wait_for, task, 10)
        stack.callback(service.stop)
        await asyncio.to_thread(publish_all, broker.port, messages)
        await poll_until(lambda: service.stats.messages >= len(messages), 20, every=0.05)
        assert service.stats.stats_published == 0
        await asyncio.to_thread(publish_all, broker.port, [
            ("poker/v1/tables/t01/events", json.dumps(events[-1]).encode())])
        await poll_until(lambda: service.stats.stats_published >= 1, 20, every=0.05)
    # a subscriber that comes later gets it: retained
    late = Sub(broker, stats_topic("t01").value)
    try:
        assert await asyncio.to_thread(late.wait, 1, 10)
        ((_topic, payload),) = late.got
    finally:
        late.close()
    body = json.loads(payload)
    assert body["type"] == "stats" and body["table"] == "t01"
    assert body["game"] == {"variant": "holdem", "structure": "no-limit",
                            "label": "No-Limit Hold'em"}
    assert body["through"] == events[-1]["ts"].replace("Z", "+00:00")
    players = {p["seat"]: p for p in body["players"]}
    assert sorted(players) == [1, 2, 3, 5]           # the empty seat 4 is nobody
    ivey = players[1]
    assert ivey["name"] == "Phil Ivey" and ivey["hands"] == 1 and ivey["net"] == -553500
    assert ivey["three_bet"] == {"made": 1, "chances": 1, "percent": 100.0}
    assert players[3]["wsd"] == {"made": 1, "chances": 1, "percent": 100.0}
    assert players[5]["hands"] == 0 and players[5]["vpip"]["percent"] is None
