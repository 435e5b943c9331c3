"""Closing the MQTT client while its first connection is still being born is quiet and
clean: ``tablectl run`` that fails its config (a metrics port in use) right after the first
CONNACK exits while the availability guard's read of the retained status is under way, and
once printed a traceback from ``_after_connect`` -> ``_read_retained``."""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
import pytest_asyncio

from tablectl.publish import NotConnectedError
from tablectl.publish.mqtt import MqttPublisher
from tablectl.publish.mqtt_settings import Availability, MqttSettings
from tablectl.publish.topics import Topic

CONNACK = b"\x20\x03\x00\x00\x00"   # MQTT 5 CONNACK: no session, success, no properties
SUBSCRIBE = 0x82


class MuteBroker:
    """A broker that accepts the connection and then answers no SUBSCRIBE until told: the
    client's first SUBSCRIBE (a re-subscribe, or the guard's retained read) waits for its
    SUBACK as long as the test wants."""

    def __init__(self) -> None:
        self.subscribed = asyncio.Event()        # a SUBSCRIBE arrived
        self.suback_sent = asyncio.Event()
        self._release = asyncio.Event()
        self._ids: list[bytes] = []

    def release(self) -> None:
        """Answer the SUBSCRIBEs received so far (success)."""
        self._release.set()

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        answer = asyncio.create_task(self._answer(writer))
        try:
            await reader.read(1 << 16)                     # CONNECT
            writer.write(CONNACK)
            await writer.drain()
            while data := await reader.read(1 << 16):
                if data[0] == SUBSCRIBE and data[1] < 0x80:   # one-byte remaining length
                    self._ids.append(data[2:4])
                    self.subscribed.set()
        except ConnectionError:
            pass
        finally:
            answer.cancel()
            writer.close()

    async def _answer(self, writer: asyncio.StreamWriter) -> None:
        await self._release.wait()
        for packet_id in self._ids:
            writer.write(b"\x90\x04" + packet_id + b"\x00\x00")   # SUBACK, granted QoS 0
        await writer.drain()
        self.suback_sent.set()


@asynccontextmanager
async def mute_broker() -> AsyncIterator[tuple[int, MuteBroker]]:
    broker = MuteBroker()
    server = await asyncio.start_server(broker.serve, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1], broker
    finally:
        server.close()
        await server.wait_closed()


@pytest_asyncio.fixture
async def loop_problems() -> list[dict[str, object]]:
    """What the loop's exception handler is told (a task's exception never retrieved...)."""
    problems: list[dict[str, object]] = []
    asyncio.get_running_loop().set_exception_handler(
        lambda _loop, context: problems.append(context))
    return problems


def daemon_like(port: int, guarded: list[bytes | None], *, wait_connected: bool
                ) -> MqttPublisher:
    settings = MqttSettings(host="127.0.0.1", port=port, client_id="t1-daemon",
                            connect_timeout=2, reconnect_min=1, reconnect_max=1)
    return MqttPublisher(settings, availability=Availability(
        Topic("poker/v1/tables/t1/status"), b"online", b"offline", guard=guarded.append),
        wait_connected=wait_connected)


def quiet(caplog: pytest.LogCaptureFixture) -> list[str]:
    loud = [r for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info]
    return [r.getMessage() for r in loud]


@pytest.mark.parametrize("wait_connected", [False, True])
async def test_closing_during_the_first_retained_read_is_quiet(
        caplog: pytest.LogCaptureFixture, loop_problems: list[dict[str, object]],
        wait_connected: bool) -> None:
    caplog.set_level(logging.DEBUG, logger="tablectl.publish")
    guarded: list[bytes | None] = []
    async with mute_broker() as (port, broker):
        client = daemon_like(port, guarded, wait_connected=wait_connected)
        if wait_connected:
            # the first CONNACK came, the birth never does: entering gives up, and closes
            with pytest.raises(NotConnectedError, match="not connected"):
                await client.__aenter__()
            assert broker.subscribed.is_set()
        else:
            async with client:
                async with asyncio.timeout(30):
                    await broker.subscribed.wait()
                assert not client.connected       # the birth is still to come
        gc.collect()                              # a task never awaited says so when freed
        await asyncio.sleep(0)
    assert guarded == []
    assert loop_problems == []
    assert quiet(caplog) == []


async def test_a_suback_read_while_closing_ends_the_birth_quietly(
        caplog: pytest.LogCaptureFixture, loop_problems: list[dict[str, object]]) -> None:
    # as `tablectl run` with a metrics port in use: the command filter is re-subscribed after
    # the first CONNACK, and its SUBACK is read by the loop while the client is closing, so
    # the birth goes on to the guard's retained read of a client that is gone
    caplog.set_level(logging.DEBUG, logger="tablectl.publish")
    guarded: list[bytes | None] = []
    async with mute_broker() as (port, broker):
        client = daemon_like(port, guarded, wait_connected=False)
        await client.__aenter__()
        await client.subscribe("poker/v1/tables/t1/cmd/#")     # before the CONNACK: kept
        async with asyncio.timeout(30):
            await broker.subscribed.wait()
        broker.release()
        async with asyncio.timeout(30):
            await broker.suback_sent.wait()
        # the SUBACK is in the client's socket; the loop reads it once the close waits
        await client.__aexit__(None, None, None)
        gc.collect()
        await asyncio.sleep(0)
    assert guarded == []
    assert loop_problems == []
    assert quiet(caplog) == []
