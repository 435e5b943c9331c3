"""MqttPublisher drives paho from the asyncio loop: no paho thread, writes in the publish call,
reconnects, a blocking connect kept off the loop, keepalive, TLS (with SSL-buffered bytes) and
websockets. Real mosquitto brokers, each on ports of its own.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
import ssl
import subprocess
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, suppress
from pathlib import Path

import paho.mqtt.client as paho
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from tablectl.publish import ConnectionLostError, IncomingMessage, NotConnectedError
from tablectl.publish import topics as tp
from tablectl.publish.mqtt import MqttPublisher
from tablectl.publish.mqtt_settings import MqttSettings
from tablectl.publish.topics import Topic
from tests.conftest import Broker, BrokerFactory

ROOT = Path(__file__).resolve().parents[2]
WAIT = 15.0


def settings(host: str, port: int, client_id: str, **kw: object) -> MqttSettings:
    values: dict[str, object] = {"reconnect_min": 1, "reconnect_max": 2, "connect_timeout": 10,
                                 **kw}
    return MqttSettings(host=host, port=port, client_id=client_id, **values)  # type: ignore[arg-type]


def is_up(client: MqttPublisher) -> bool:
    return client.connected


class MqttLog(logging.Handler):
    """What ``tablectl.publish.mqtt`` logs; ``await log.seen(text)`` waits for it."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []
        self._new = asyncio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())
        self._new.set()

    async def seen(self, text: str, count: int = 1) -> None:
        """Until ``count`` messages containing ``text`` were logged (bounded by WAIT)."""
        try:
            async with asyncio.timeout(WAIT):
                while sum(text in m for m in self.messages) < count:
                    self._new.clear()
                    await self._new.wait()
        except TimeoutError:
            raise AssertionError(f"not logged within {WAIT} s: {text!r} x{count}: "
                                 f"{self.messages}") from None


@pytest.fixture
def mqtt_log() -> Iterator[MqttLog]:
    handler = MqttLog()
    logger = logging.getLogger("tablectl.publish.mqtt")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    yield handler
    logger.removeHandler(handler)
    logger.setLevel(level)


async def take(client: MqttPublisher, n: int) -> list[IncomingMessage]:
    got: list[IncomingMessage] = []
    async with asyncio.timeout(WAIT * 2):
        async for msg in client.messages():
            got.append(msg)
            if len(got) == n:
                break
    return got


class PahoSubscriber:
    """A bare paho subscriber in its own thread (``loop_start``): it receives while the test's
    asyncio loop is blocked."""

    def __init__(self, port: int, topic: str) -> None:
        self.got: list[bytes] = []
        self.arrived = threading.Event()
        subscribed = threading.Event()
        self.client = paho.Client(CallbackAPIVersion.VERSION2, protocol=paho.MQTTv5)
        self.client.on_message = self._on_message
        self.client.on_subscribe = lambda *_a: subscribed.set()
        self.client.connect("127.0.0.1", port)
        self.client.subscribe(topic, qos=1)
        self.client.loop_start()
        assert subscribed.wait(WAIT)

    def _on_message(self, _c: paho.Client, _u: object, msg: paho.MQTTMessage) -> None:
        self.got.append(bytes(msg.payload))
        self.arrived.set()

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture
def paho_subscriber(mosquitto: Broker) -> Iterator[PahoSubscriber]:
    sub = PahoSubscriber(mosquitto.port, tp.events("t1").value)
    yield sub
    sub.close()


async def test_no_paho_thread_runs(mosquitto: Broker) -> None:
    before = set(threading.enumerate())
    async with MqttPublisher(settings(mosquitto.host, mosquitto.port, "ctl")) as ctl:
        await ctl.publish(tp.events("t1"), b"x")
        new = set(threading.enumerate()) - before
        # only the loop's executor may have started a worker (it ran the blocking connect)
        assert all(t.name.startswith("asyncio_") for t in new), [t.name for t in new]
        assert not any("paho" in t.name for t in threading.enumerate())


async def test_qos0_publish_is_on_the_wire_when_the_call_returns(
        mosquitto: Broker, paho_subscriber: PahoSubscriber) -> None:
    async with MqttPublisher(settings(mosquitto.host, mosquitto.port, "ctl")) as ctl:
        await ctl.publish(tp.events("t1"), b"now", qos=0)
        # block the loop: nothing of ours can run until the subscriber has the message
        assert paho_subscriber.arrived.wait(WAIT), "the publish waited for a later loop turn"
        assert paho_subscriber.got == [b"now"]


async def test_qos1_publish_is_written_before_it_waits_for_the_puback(
        mosquitto: Broker, paho_subscriber: PahoSubscriber) -> None:
    async with MqttPublisher(settings(mosquitto.host, mosquitto.port, "ctl")) as ctl:
        task = asyncio.create_task(ctl.publish(tp.events("t1"), b"acked"))
        await asyncio.sleep(0)          # one turn: the publish runs up to its PUBACK wait
        assert not task.done()
        assert paho_subscriber.arrived.wait(WAIT), "the PUBLISH was not written in the call"
        await asyncio.wait_for(task, WAIT)
        assert paho_subscriber.got == [b"acked"]


async def test_reconnect_after_a_broker_kill_restores_subscriptions(
        mosquitto_factory: BrokerFactory, mqtt_log: MqttLog) -> None:
    broker = mosquitto_factory()
    cmd = tp.cmd("t1", "start_hand", "dealer")
    async with MqttPublisher(settings(broker.host, broker.port, "ctl")) as ctl:
        connections = ctl.connections()
        assert (await anext(connections)).count == 1
        await ctl.subscribe(tp.cmd_filter("t1"))
        assert broker.proc is not None
        os.kill(broker.proc.pid, signal.SIGSTOP)       # no PUBACK for what follows
        in_flight = asyncio.create_task(ctl.publish(tp.events("t1"), b"lost?"))
        await asyncio.sleep(0)
        broker.kill()                                  # the kernel resets the connection
        with pytest.raises(ConnectionLostError):
            await asyncio.wait_for(in_flight, WAIT)
        await mqtt_log.seen("mqtt: disconnected")
        assert not is_up(ctl)
        with pytest.raises(NotConnectedError):
            await ctl.publish(tp.events("t1"), b"x")
        broker.start()
        async with asyncio.timeout(WAIT):
            again = await anext(connections)
        assert again.count == 2 and is_up(ctl) and ctl.nodelay()
        async with MqttPublisher(settings(broker.host, broker.port, "dealer")) as dealer:
            await dealer.publish(cmd, b"after the restart")
        (msg,) = await take(ctl, 1)
        assert (msg.topic, msg.payload) == (cmd, b"after the restart")


async def test_a_broker_refusing_tcp_at_first_is_connected_once_it_comes_up(
        mosquitto_factory: BrokerFactory, mqtt_log: MqttLog) -> None:
    broker = mosquitto_factory(start=False)                 # its port refuses connections
    ctl = MqttPublisher(settings(broker.host, broker.port, "ctl", connect_timeout=WAIT))
    entering = asyncio.create_task(ctl.__aenter__())
    try:
        await mqtt_log.seen("cannot connect", 2)           # refused, and refused again
        assert not entering.done()
        broker.start()
        await asyncio.wait_for(entering, WAIT)
        assert is_up(ctl) and ctl.nodelay()
        await ctl.publish(tp.events("t1"), b"up")
    finally:
        if not entering.done():
            entering.cancel()
        with suppress(BaseException):
            await entering
        await ctl.__aexit__(None, None, None)


async def test_a_stalled_handshake_does_not_block_the_loop(tmp_path: Path) -> None:
    """A listener that accepts TCP and never answers the TLS handshake (a hung broker): the
    handshake waits in the worker thread while the loop goes on, here accepting the
    connection and reading the ClientHello on the client's behalf."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.setblocking(False)
    loop = asyncio.get_running_loop()
    tls = ssl.create_default_context()
    s = settings("127.0.0.1", listener.getsockname()[1], "ctl", tls=tls)
    try:
        async with MqttPublisher(s, wait_connected=False) as ctl:
            conn, _ = await asyncio.wait_for(loop.sock_accept(listener), WAIT)
            with conn:
                hello = await asyncio.wait_for(loop.sock_recv(conn, 4096), WAIT)
                assert hello[:1] == b"\x16"                  # a TLS handshake record
                assert not is_up(ctl)
            # closing conn fails the handshake: the attempt ends, exiting does not wait
    finally:
        listener.close()


async def test_a_silent_broker_is_detected_by_keepalive(mosquitto_factory: BrokerFactory,
                                                        mqtt_log: MqttLog) -> None:
    broker = mosquitto_factory()
    assert broker.proc is not None
    async with MqttPublisher(settings(broker.host, broker.port, "ctl", keepalive=1)) as ctl:
        connections = ctl.connections()
        assert (await anext(connections)).count == 1
        os.kill(broker.proc.pid, signal.SIGSTOP)       # TCP stays up, nothing answers
        try:
            await mqtt_log.seen("mqtt: disconnected")
        finally:
            os.kill(broker.proc.pid, signal.SIGCONT)
        async with asyncio.timeout(WAIT):
            assert (await anext(connections)).count == 2
        await ctl.publish(tp.events("t1"), b"back")


def _open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


async def test_reconnects_and_exit_leak_no_fd_and_no_task(mosquitto_factory: BrokerFactory,
                                                          mqtt_log: MqttLog) -> None:
    broker = mosquitto_factory()
    await asyncio.sleep(0)
    fds = _open_fds()
    tasks = asyncio.all_tasks()
    ctl = MqttPublisher(settings(broker.host, broker.port, "ctl"))
    for session in (1, 2):                              # reusable after exit
        async with ctl:
            connections = ctl.connections()
            await anext(connections)
            broker.kill()
            await mqtt_log.seen("mqtt: disconnected", session)
            broker.start()
            async with asyncio.timeout(WAIT):
                assert (await anext(connections)).count == 2
            await ctl.publish(tp.events("t1"), b"x")
        assert not is_up(ctl)
    await asyncio.sleep(0)
    assert asyncio.all_tasks() == tasks
    assert _open_fds() <= fds


# -- TLS and websockets -------------------------------------------------------------------


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test PKI of tests/security (CA, a server certificate for 127.0.0.1)."""
    root = tmp_path_factory.mktemp("pki") / "site"
    subprocess.run([str(ROOT / "config" / "mosquitto" / "make-test-pki.sh"), str(root)],
                   check=True, capture_output=True, timeout=60)
    for path in [root, *root.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)    # mosquitto may run as its own user
    return root


@pytest.fixture
def tls_broker(mosquitto_factory: BrokerFactory, pki: Path) -> Broker:
    certs = pki / "certs"
    tls = f"cafile {certs}/ca.crt\ncertfile {certs}/server.crt\nkeyfile {certs}/server.key\n"
    run_as = "user root\n" if os.geteuid() == 0 else ""
    # websockets listeners: socket_domain ipv4, or 2.0.x ignores the address (every interface)
    ws = "protocol websockets\nsocket_domain ipv4\n"
    return mosquitto_factory(f"{run_as}listener {{port:tls}} 127.0.0.1\n{tls}"
                             f"listener {{port:ws}} 127.0.0.1\n{ws}"
                             f"listener {{port:wss}} 127.0.0.1\n{ws}{tls}")


def _client_tls(pki: Path) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(pki / "certs" / "ca.crt"))


def _payload(i: int) -> bytes:
    """Sizes from a few bytes to past two TLS records (16 KiB each), content checkable."""
    size = (i * 7919) % 40_000 if i % 5 == 0 else 3 + i % 200
    return (b"%06d" % i + bytes(range(256)) * (size // 256 + 1))[:max(size, 6)]


async def _burst_both_ways(a: MqttPublisher, b: MqttPublisher, n: int) -> None:
    ta, tb = Topic("burst/a"), Topic("burst/b")
    await a.subscribe(tb.value)
    await b.subscribe(ta.value)
    qos = [i % 2 for i in range(n)]                  # QoS 0 and 1 mixed
    sent = asyncio.gather(
        *(a.publish(ta, _payload(i), qos=qos[i]) for i in range(n)),
        *(b.publish(tb, _payload(i), qos=qos[i]) for i in range(n)))
    at_b, at_a, _ = await asyncio.gather(take(b, n), take(a, n), sent)
    for got in (at_b, at_a):
        # in order within a QoS (paho holds QoS 1 beyond its in-flight window, not QoS 0)
        for level in (0, 1):
            assert [m.payload for m in got if m.qos == level] == [
                _payload(i) for i in range(n) if qos[i] == level]


@pytest.mark.parametrize("listener", ["tls", "wss"])
async def test_tls_burst_both_ways(tls_broker: Broker, pki: Path, listener: str) -> None:
    port = tls_broker.ports[listener]
    transport = "websockets" if listener == "wss" else "tcp"
    kw = {"tls": _client_tls(pki), "transport": transport}
    async with MqttPublisher(settings("127.0.0.1", port, "a", **kw)) as a, \
            MqttPublisher(settings("127.0.0.1", port, "b", **kw)) as b:
        assert a.nodelay() and b.nodelay()
        await _burst_both_ways(a, b, 600)


async def test_plain_websockets(tls_broker: Broker) -> None:
    port = tls_broker.ports["ws"]
    async with MqttPublisher(settings("127.0.0.1", port, "a", transport="websockets")) as a, \
            MqttPublisher(settings("127.0.0.1", port, "b", transport="websockets")) as b:
        assert a.nodelay()
        await _burst_both_ways(a, b, 200)


@asynccontextmanager
async def coalescing_tls_proxy(pki: Path, broker_port: int) -> AsyncIterator[int]:
    """A TLS front for the broker's plain listener that forwards whatever it has in one write:
    a burst from the broker reaches the client as TLS records of many MQTT packets each, so
    after paho took one packet the rest wait decrypted inside the SSL object, where the
    selector cannot see them (mosquitto itself writes one record per packet)."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(pki / "certs" / "server.crt", pki / "certs" / "server.key")
    pumps: set[asyncio.Task[None]] = set()

    async def pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(1 << 20):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, ssl.SSLError):
            pass
        finally:
            writer.close()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", broker_port)
        for task in (asyncio.create_task(pump(reader, up_writer)),
                     asyncio.create_task(pump(up_reader, writer))):
            pumps.add(task)
            task.add_done_callback(pumps.discard)

    server = await asyncio.start_server(serve, "127.0.0.1", 0, ssl=context)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        for task in list(pumps):
            task.cancel()
        if pumps:
            await asyncio.wait(pumps)
        await server.wait_closed()


async def test_tls_records_holding_many_packets_are_read_whole(
        mosquitto: Broker, pki: Path) -> None:
    async with coalescing_tls_proxy(pki, mosquitto.port) as port:
        kw = {"tls": _client_tls(pki)}
        async with MqttPublisher(settings("127.0.0.1", port, "a", **kw)) as a, \
                MqttPublisher(settings("127.0.0.1", port, "b", **kw)) as b:
            await _burst_both_ways(a, b, 600)
