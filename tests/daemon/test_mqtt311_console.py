"""An MQTT 3.1.1 console (no response topic, no correlation data) gets its reply on the
``reply_to`` topic of its payload, as docs/mqtt.md says: a real mosquitto, the daemon, and a
paho client speaking MQTT 3.1.1."""

from __future__ import annotations

import asyncio
import contextlib
import json
import queue
import uuid
from datetime import UTC, datetime
from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from tablectl.app import run_daemon
from tablectl.daemon import TableDaemon
from tests.conftest import Broker
from tests.daemon.test_end_to_end import VARIANTS, write_config

USER = "dealer-e2e"


class Console311:
    """A console on MQTT 3.1.1: replies come to the topic it names in ``reply_to``."""

    def __init__(self, broker: Broker) -> None:
        self.replies: queue.Queue[tuple[str, dict[str, object]]] = queue.Queue()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311,
                                  client_id=f"{USER}-311")
        self.client.on_message = lambda _c, _u, m: self.replies.put(
            (m.topic, json.loads(m.payload)))
        self.client.connect(broker.host, broker.port)
        subscribed = self.client.subscribe(f"poker/v1/replies/{USER}/#", qos=1)
        assert subscribed[0] == mqtt.MQTT_ERR_SUCCESS
        self.client.loop_start()

    def send(self, name: str, reply_to: str) -> tuple[str, dict[str, object]]:
        cid = uuid.uuid4().hex
        body = {"v": 1, "id": cid, "ts": datetime.now(UTC).isoformat(), "args": {},
                "reply_to": reply_to}
        for _ in range(20):
            # resent with the same id until answered: the daemon may not have subscribed yet
            # (a repeated id gets the first reply and runs nothing twice)
            self.client.publish(f"poker/v1/tables/e2e/cmd/{name}/{USER}", json.dumps(body),
                                qos=1).wait_for_publish(10)
            try:
                topic, reply = self.replies.get(timeout=1)
                while reply["id"] != cid:       # a late repeat of an earlier command's reply
                    topic, reply = self.replies.get(timeout=1)
            except queue.Empty:
                continue
            return topic, reply
        raise AssertionError(f"no reply to {name} on {reply_to}")

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


async def test_an_mqtt_311_console_gets_its_reply_on_reply_to(tmp_path: Path,
                                                             mosquitto: Broker) -> None:
    variant, structure, stakes = VARIANTS[1]
    config = write_config(tmp_path, mosquitto, variant, structure, stakes, [2000, 2000])
    ready: asyncio.Future[TableDaemon] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(run_daemon(config, sources=[], ready=ready.set_result))
    console = None
    try:
        await asyncio.wait_for(ready, 20)
        console = Console311(mosquitto)
        mine = f"poker/v1/replies/{USER}/console-311/start_hand"
        topic, reply = await asyncio.to_thread(console.send, "start_hand", mine)
        assert (topic, reply["status"]) == (mine, "ok")
        topic, reply = await asyncio.to_thread(console.send, "start_hand", mine)
        assert topic == mine and reply["status"] == "error"
        assert reply["error"]["code"] == "wrong_phase"  # type: ignore[index]
    finally:
        if console is not None:
            console.close()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
