"""MqttPublisher against a real mosquitto: PUBACKs, birth/LWT, reconnect, NODELAY, commands."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import paho.mqtt.client as paho
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from tablectl.clock import ManualClock
from tablectl.journal import MemoryJournal, NewEvent
from tablectl.publish import (
    ConnectionLostError,
    EventEnvelope,
    IncomingMessage,
    MessageProps,
    NotConnectedError,
    PublishError,
    PublishRefusedError,
    SecretTopicError,
    StatusPayload,
    decode,
    encode,
    flush_outbox,
    publish_event,
    send_reply,
)
from tablectl.publish import topics as tp
from tablectl.publish.mqtt import MqttPublisher
from tablectl.publish.mqtt_settings import Availability, MqttSettings
from tests.conftest import Broker, BrokerFactory

ROOT = Path(__file__).resolve().parents[2]
WAIT = 15.0


def settings(broker: Broker, client_id: str, **kw: object) -> MqttSettings:
    return MqttSettings(host=broker.host, port=broker.port, client_id=client_id,
                        reconnect_min=1, reconnect_max=2, connect_timeout=10, **kw)  # type: ignore[arg-type]


def status(t: str, state: str, epoch: int) -> bytes:
    return encode(StatusPayload(table=t, state=state, version="test", epoch=epoch))


def availability(t: str, epoch: int) -> Availability:
    return Availability(tp.status(t), status(t, "online", epoch), status(t, "offline", epoch))


async def next_message(client: MqttPublisher, match: Callable[[IncomingMessage], bool]
                       ) -> IncomingMessage:
    async with asyncio.timeout(WAIT):
        async for msg in client.messages():
            if match(msg):
                return msg
    raise AssertionError("client closed")


@asynccontextmanager
async def display(broker: Broker, *filters: str, cid: str = "display-1"
                  ) -> AsyncIterator[MqttPublisher]:
    async with MqttPublisher(settings(broker, cid)) as client:
        for f in filters:
            await client.subscribe(f)
        yield client


async def test_publish_subscribe_with_nodelay_on_both_ends(mosquitto: Broker) -> None:
    async with MqttPublisher(settings(mosquitto, "ctl")) as ctl, \
            display(mosquitto, "poker/v1/tables/t1/#") as disp:
        assert ctl.connected and ctl.nodelay() and disp.nodelay()
        await ctl.publish(tp.events("t1"), b"one")
        await ctl.publish(tp.events("t1"), b"two", qos=0)
        first = await next_message(disp, lambda m: True)
        second = await next_message(disp, lambda m: True)
        assert (first.payload, second.payload) == (b"one", b"two")
        assert first.topic == tp.events("t1") and not first.retain


def test_bare_paho_does_not_set_nodelay(mosquitto: Broker) -> None:
    """The baseline that makes the NODELAY check meaningful."""
    c = paho.Client(CallbackAPIVersion.VERSION2, protocol=paho.MQTTv5)
    c.connect(mosquitto.host, mosquitto.port)
    try:
        sock = c.socket()
        assert isinstance(sock, socket.socket)
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 0
    finally:
        c.disconnect()


async def test_secret_is_refused_before_anything_is_sent(mosquitto: Broker) -> None:
    async with MqttPublisher(settings(mosquitto, "ctl")) as ctl, \
            display(mosquitto, "#") as disp:
        with pytest.raises(SecretTopicError):
            await ctl.publish(tp.events("t1"), b"As Kd", secret=True)
        await ctl.publish(tp.secure_holecards("t1"), b"As Kd", secret=True)
        await ctl.publish(tp.events("t1"), b"marker")
        got = await next_message(disp, lambda m: m.topic == tp.events("t1"))
        assert got.payload == b"marker"          # the refused message never went out


async def test_birth_and_clean_offline(mosquitto: Broker) -> None:
    async with MqttPublisher(settings(mosquitto, "ctl"), availability=availability("t1", 7)), \
            display(mosquitto, tp.status("t1").value) as disp:
        birth = await next_message(disp, lambda m: True)
        assert birth.retain
        assert decode(StatusPayload, birth.payload).state == "online"
    async with display(mosquitto, tp.status("t1").value, cid="display-2") as disp:
        after = decode(StatusPayload, (await next_message(disp, lambda m: True)).payload)
        assert (after.state, after.epoch) == ("offline", 7)


async def test_lwt_when_the_controller_process_is_killed(mosquitto: Broker) -> None:
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.publish.lwt_child", mosquitto.host, str(mosquitto.port),
        "t9", "41", cwd=ROOT, stdout=asyncio.subprocess.PIPE)
    try:
        assert child.stdout is not None
        line = await asyncio.wait_for(child.stdout.readline(), WAIT)
        assert line.strip() == b"online"
        async with display(mosquitto, tp.status("t9").value) as disp:
            assert decode(StatusPayload, (await next_message(disp, lambda m: True)).payload
                          ).state == "online"
            child.send_signal(signal.SIGKILL)
            lwt = await next_message(disp, lambda m: True)
            payload = decode(StatusPayload, lwt.payload)
            assert (payload.state, payload.epoch) == ("offline", 41)
            assert lwt.retain is False            # live delivery of the will, not a replay
    finally:
        if child.returncode is None:
            child.kill()
        await child.wait()


async def test_outbox_marks_published_only_after_the_puback(mosquitto: Broker) -> None:
    journal = MemoryJournal(ManualClock())
    journal.start_epoch()
    (rec,) = journal.append_events([NewEvent(tp.events("t1").value, "board", {"c": ["2c"]})])
    async with MqttPublisher(settings(mosquitto, "ctl", keepalive=60)) as ctl, \
            display(mosquitto, tp.events("t1").value) as disp:
        assert mosquitto.proc is not None
        os.kill(mosquitto.proc.pid, signal.SIGSTOP)          # the broker cannot answer
        try:
            task = asyncio.create_task(publish_event(ctl, journal, "t1", rec))
            done, _ = await asyncio.wait({task}, timeout=0.5)
            assert not done                                 # still waiting for its PUBACK
            assert journal.unpublished() == [rec]
        finally:
            os.kill(mosquitto.proc.pid, signal.SIGCONT)
        await asyncio.wait_for(task, WAIT)
        assert journal.unpublished() == []
        got = decode(EventEnvelope, (await next_message(disp, lambda m: True)).payload)
        assert (got.epoch, got.seq, got.data) == (1, 1, {"c": ["2c"]})


async def test_reconnect_after_broker_crash_republishes_and_resends(
        mosquitto: Broker) -> None:
    journal = MemoryJournal(ManualClock())
    journal.start_epoch()
    ctl = MqttPublisher(settings(mosquitto, "ctl"), availability=availability("t1", 1))
    async with ctl:
        connections = ctl.connections()
        first = await anext(connections)
        assert first.count == 1
        await ctl.publish(tp.state("t1"), b"snapshot-1", retain=True)
        mosquitto.kill()                                  # retained state dies with it
        journal.append_events([NewEvent(tp.events("t1").value, "action", {"i": 1})])
        with pytest.raises(PublishError) as info:
            async with asyncio.timeout(WAIT):
                while True:       # until paho notices the dead socket
                    await flush_outbox(ctl, journal, "t1")
                    journal.append_events([NewEvent(tp.events("t1").value, "action", {})])
        assert isinstance(info.value, NotConnectedError | ConnectionLostError)
        pending = len(journal.unpublished())
        assert pending >= 1
        mosquitto.start()
        async with asyncio.timeout(WAIT):
            again = await anext(connections)
        assert again.count == 2 and not again.session_present and ctl.nodelay()
        await ctl.publish(tp.state("t1"), b"snapshot-2", retain=True)   # the daemon's reaction
        assert await flush_outbox(ctl, journal, "t1") == pending
        async with display(mosquitto, tp.state("t1").value, tp.status("t1").value) as disp:
            seen = {m.topic.value: m.payload for m in [
                await next_message(disp, lambda m: True), await next_message(disp, lambda m: True)]}
        assert seen[tp.state("t1").value] == b"snapshot-2"
        assert decode(StatusPayload, seen[tp.status("t1").value]).state == "online"


async def test_command_request_response_round_trip(mosquitto: Broker) -> None:
    async with MqttPublisher(settings(mosquitto, "ctl")) as ctl, \
            MqttPublisher(settings(mosquitto, "console")) as console:
        await ctl.subscribe(tp.cmd_filter("t1"))
        reply_area = tp.reply("dealer", "console-1", "start_hand")
        await console.subscribe(reply_area.value)
        await console.publish(tp.cmd("t1", "start_hand", "dealer"), b'{"id":"c1"}',
                              props=MessageProps(response_topic=reply_area.value,
                                                 correlation_data=b"\x00corr\xff",
                                                 message_expiry=10,
                                                 user_properties=(("schema", "poker.cmd/1"),)))
        request = await next_message(ctl, lambda m: True)
        assert tp.parse_command(request.topic).user == "dealer"
        assert request.props.correlation_data == b"\x00corr\xff"
        assert request.props.response_topic == reply_area.value
        assert request.props.message_expiry is not None and 0 < request.props.message_expiry <= 10
        assert request.props.user_properties == (("schema", "poker.cmd/1"),)
        await send_reply(ctl, request, b'{"id":"c1","status":"ok"}')
        answer = await next_message(console, lambda m: True)
        assert answer.topic == reply_area
        assert answer.props.correlation_data == b"\x00corr\xff"
        assert answer.payload == b'{"id":"c1","status":"ok"}'


def _passwd(workdir: Path, users: list[str]) -> Path:
    path = workdir / "passwd"
    for i, user in enumerate(users):
        flags = ["-c"] if i == 0 else []
        subprocess.run(["mosquitto_passwd", *flags, "-b", str(path), user, f"pw-{user}"],
                       check=True, capture_output=True)
    path.chmod(0o644)
    return path


ACL = """\
pattern read poker/v1/tables/+/state
pattern read poker/v1/replies/%u/#
user controller-t07
topic write poker/v1/tables/t07/#
topic read poker/v1/tables/t07/cmd/#
topic write poker/v1/replies/#
user dealer-t07
topic write poker/v1/tables/t07/cmd/+/dealer-t07
"""


@pytest.fixture
def secured(mosquitto_factory: BrokerFactory, tmp_path: Path) -> Broker:
    users = ["controller-t07", "dealer-t07", "display-01"]
    passwd = _passwd(tmp_path, users)
    acl = tmp_path / "acl"
    acl.write_text(ACL)
    acl.chmod(0o644)
    tmp_path.chmod(0o755)
    # the test runs as root in CI: keep mosquitto from dropping to a user that cannot read
    # the pytest temp dirs (a real deployment chowns the files to mosquitto instead)
    run_as = "user root\n" if os.geteuid() == 0 else ""
    return mosquitto_factory(f"{run_as}password_file {passwd}\nacl_file {acl}\n",
                             anonymous=False)


def creds(broker: Broker, user: str) -> MqttSettings:
    return settings(broker, user, username=user, password=f"pw-{user}")


async def test_acl_pins_the_command_sender_to_the_username(secured: Broker) -> None:
    async with MqttPublisher(creds(secured, "controller-t07")) as ctl, \
            MqttPublisher(creds(secured, "dealer-t07")) as dealer, \
            MqttPublisher(creds(secured, "display-01")) as disp:
        await ctl.subscribe(tp.cmd_filter("t07"))
        with pytest.raises(PublishRefusedError) as forged:
            await dealer.publish(tp.cmd("t07", "void_hand", "floor-boss"), b"{}")
        assert forged.value.reason_code == 0x87
        with pytest.raises(PublishRefusedError):
            await disp.publish(tp.cmd("t07", "void_hand", "display-01"), b"{}")
        with pytest.raises(PublishRefusedError):
            await dealer.publish(tp.cmd("t08", "void_hand", "dealer-t07"), b"{}")
        await dealer.publish(tp.cmd("t07", "void_hand", "dealer-t07"), b"{}")
        got = await next_message(ctl, lambda m: True)
        assert tp.parse_command(got.topic).user == "dealer-t07"


async def test_wrong_credentials_are_a_clear_error(secured: Broker) -> None:
    bad = MqttSettings(host=secured.host, port=secured.port, client_id="x", username="dealer-t07",
                       password="wrong", connect_timeout=10)
    with pytest.raises(NotConnectedError, match="refused"):
        async with MqttPublisher(bad):
            pass


async def test_publishing_while_disconnected_raises(mosquitto: Broker) -> None:
    mosquitto.kill()
    with pytest.raises(NotConnectedError):
        async with MqttPublisher(MqttSettings(host=mosquitto.host, port=mosquitto.port,
                                              client_id="x", connect_timeout=1.5)):
            pass
    ctl = MqttPublisher(settings(mosquitto, "x"))
    with pytest.raises(NotConnectedError):
        await ctl.publish(tp.events("t1"), b"x")


def test_no_threads_leak(mosquitto: Broker) -> None:
    before = threading.active_count()

    async def run() -> None:
        async with MqttPublisher(settings(mosquitto, "x")):
            pass
    asyncio.run(run())
    assert threading.active_count() == before


async def test_start_while_the_broker_is_down_then_connect_later(mosquitto: Broker) -> None:
    mosquitto.kill()
    ctl = MqttPublisher(settings(mosquitto, "ctl"), availability=availability("t1", 3),
                        wait_connected=False)
    async with ctl:
        assert not ctl.connected
        with pytest.raises(NotConnectedError):
            await ctl.publish(tp.events("t1"), b"x")
        mosquitto.start()
        async with asyncio.timeout(WAIT):
            info = await anext(ctl.connections())
        assert info.count == 1 and ctl.nodelay()
        async with display(mosquitto, tp.status("t1").value) as disp:
            birth = decode(StatusPayload, (await next_message(disp, lambda m: True)).payload)
            assert (birth.state, birth.epoch) == ("online", 3)


@pytest.mark.parametrize(("changes", "message"), [
    ({"reconnect_min": 0}, "reconnect_min must be at least 1 s, not 0"),
    ({"reconnect_min": 5, "reconnect_max": 2}, "reconnect_max (2) is below reconnect_min (5)"),
    ({"port": 0}, "port 0 is not 1..65535"),
    ({"port": 70000}, "port 70000 is not 1..65535"),
    ({"keepalive": 0}, "keepalive must be at least 1 s, not 0"),
    ({"session_expiry": -1}, "session_expiry must be 0 s or more, not -1"),
    ({"connect_timeout": 0}, "connect_timeout must be above 0 s, not 0"),
    ({"transport": "udp"}, "transport must be tcp or websockets, not 'udp'"),
])
def test_settings_refuse_values_that_cannot_work(changes: dict[str, object],
                                                 message: str) -> None:
    # reconnect_min=0 would retry a refused connection with no pause at all, forever
    base: dict[str, object] = {"host": "127.0.0.1", "port": 1883, "client_id": "x"}
    with pytest.raises(ValueError, match="MQTT settings: ") as caught:
        MqttSettings(**{**base, **changes})  # type: ignore[arg-type]
    assert message in str(caught.value)
    MqttSettings(**base)  # type: ignore[arg-type]  (the defaults are fine)
