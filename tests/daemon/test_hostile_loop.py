"""The command loop survives any exception from one message (issue 25, item 1, defence in
depth): the failure is logged with the message's topic and size, never its payload, the
sender gets ``internal_error``, and the next message is served."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tablectl.app import initial_state, serve_commands, table_setup
from tablectl.clock import ManualClock
from tablectl.config import load_config
from tablectl.daemon import TableDaemon
from tablectl.journal import MemoryJournal
from tablectl.publish import topics
from tablectl.publish.base import IncomingMessage, MemoryPublisher, MessageProps
from tests.reliability.harness import DEALER, TABLE, VARIANTS, write_config

SECRET = "s3cr3t-payload-text"


class Exploding(TableDaemon):
    """A daemon whose handling of one particular payload raises (a bug stands in)."""

    async def handle_message(self, msg: IncomingMessage) -> None:
        if SECRET.encode() in msg.payload:
            raise RuntimeError(f"boom while reading {msg.payload.decode()}")
        await super().handle_message(msg)


def message(cid: str, name: str = "start_hand", extra: str = "") -> IncomingMessage:
    body = json.dumps({"v": 1, "id": cid, "args": {}, **({"note": extra} if extra else {})})
    return IncomingMessage(topics.cmd(TABLE, name, DEALER), body.encode(),
                           props=MessageProps(response_topic=f"poker/v1/replies/{DEALER}/c"))


async def _messages(*items: IncomingMessage) -> AsyncIterator[IncomingMessage]:
    for item in items:
        yield item


async def test_a_message_that_raises_does_not_stop_the_loop(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    variant, structure, stakes = VARIANTS[1]
    config = load_config(write_config(tmp_path, "mqtt://127.0.0.1:1", variant, structure,
                                      stakes))
    clock = ManualClock()
    publisher = MemoryPublisher()
    daemon = Exploding(table_setup(config), initial_state(config), MemoryJournal(clock),
                       publisher, clock=clock)
    daemon.recover()
    caplog.set_level(logging.ERROR)
    await serve_commands(daemon, _messages(message("bad", extra=SECRET * 50), message("good")))
    replies = [json.loads(m.payload) for m in publisher.sent
               if m.topic.value.startswith("poker/v1/replies/")]
    assert [(r["id"], r["status"], (r.get("error") or {}).get("code")) for r in replies] == [
        ("unknown", "error", "internal_error"), ("good", "ok", None)]
    assert daemon.controller.hand_id is not None           # the good one was applied
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert f"cmd/start_hand/{DEALER}" in logged and "RuntimeError" in logged
    assert SECRET * 10 not in logged and len(logged) < 2000   # bounded: never the payload
