"""What the reference firmware does beyond the shoe contract, seen from firmware_bridge's
client over a real pty: table antennas (TAG_SEEN, TAG_GONE after the debounce, several tags
on one antenna, snapshots), host commands and hostile ones (BAD_PAYLOAD, UNKNOWN_TYPE,
CONFIG_REJECTED, each acknowledged with nothing else changed), a shoe's passage sensor
against its reads (MISREAD NO_TAG), REBOOT, boot ids that never
repeat across restarts of the same store, and radio and antenna faults reported as STATUS
and heartbeat bits."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TypeVar

import pytest

from firmware_bridge.client import Connected, Delivered, DeviceClient, DeviceRebooted
from firmware_bridge.clock import SystemClock
from firmware_bridge.conformance_host import RawHost
from firmware_bridge.frames import Frame, FrameDecoder, FrameFlags, encode_frame
from firmware_bridge.link import open_serial_link
from firmware_bridge.messages import (
    Ack,
    AntennaState,
    Caps,
    ConfigKey,
    DeviceKind,
    Heartbeat,
    HeartbeatStatus,
    Hello,
    Indicate,
    MessageType,
    Misread,
    MisreadReason,
    Reboot,
    SetConfig,
    Severity,
    SnapshotDone,
    Status,
    StatusCode,
    TagGone,
    TagId,
    TagSeen,
    Tech,
    decode_message,
    encode_message,
)

from .harness import ReferenceReader
from .readers import Watch

A = bytes.fromhex("E004010012345678")
B = bytes.fromhex("E004010087654321")
C = bytes.fromhex("E0040100AABBCCDD")


M = TypeVar("M")


def delivered(watch: Watch, kind: type[M]) -> list[M]:
    return [e.message for e in watch.events
            if isinstance(e, Delivered) and isinstance(e.message, kind)]


class Table:
    def __init__(self, firmware: ReferenceReader, client: DeviceClient, watch: Watch) -> None:
        self.firmware, self.client, self.watch = firmware, client, watch


@pytest.fixture
async def table(tmp_path: Path, reference_build: Path) -> AsyncIterator[Table]:
    link = tmp_path / "usb-Ref_Table-if00"
    async with ReferenceReader(reference_build, link, kind="table", antennas=4,
                               store=tmp_path / "store", gone_ms=150) as firmware:
        client = DeviceClient(str(link), name="table", clock=SystemClock(),
                              backoff=(0.05, 0.1))
        async with client:
            watch = Watch(client)
            await watch.until(lambda ev: any(isinstance(e, Connected) for e in ev))
            yield Table(firmware, client, watch)
            await watch.stop()


async def test_table_edges_dwell_and_several_tags_per_antenna(table: Table) -> None:
    up = next(e for e in table.watch.events if isinstance(e, Connected))
    assert up.peer.device_kind is DeviceKind.TABLE and up.peer.antenna_count == 4
    assert up.peer.caps == Caps.TAG_GONE and up.peer.fw_version == "reference-host-1"
    await table.firmware.commands([f"tag 2 {A.hex()} 2", f"tag 2 {B.hex()} 2",
                                   f"tag 3 {C.hex()} 1"])
    await table.watch.until(lambda ev: len(delivered(table.watch, TagSeen)) == 3)
    seen = {(m.antenna, m.uid, m.tech, m.index) for m in delivered(table.watch, TagSeen)}
    assert seen == {(2, A, Tech.ISO15693, 0), (2, B, Tech.ISO15693, 1),
                    (3, C, Tech.ISO14443A, 0)}
    await table.firmware.command(f"untag 2 {A.hex()}")
    await table.watch.until(lambda ev: len(delivered(table.watch, TagGone)) == 1)
    gone = delivered(table.watch, TagGone)[0]
    assert isinstance(gone, TagGone) and (gone.antenna, gone.uid) == (2, A)
    first = next(m for m in delivered(table.watch, TagSeen) if m.uid == A)
    assert gone.t_last_ms >= first.t_ms and gone.dwell_ms == gone.t_last_ms - first.t_ms
    # the snapshot holds what lies there now
    req = table.client.request_snapshot()
    await table.watch.until(lambda ev: SnapshotDone(req, 4) in delivered(table.watch,
                                                                          SnapshotDone))
    states = {m.antenna: m.tags for m in delivered(table.watch, AntennaState)
              if m.req_id == req}
    assert states == {0: (), 1: (), 2: (TagId(Tech.ISO15693, B),),
                      3: (TagId(Tech.ISO14443A, C),)}


async def test_a_tag_that_flickers_within_the_debounce_is_one_read(table: Table) -> None:
    await table.firmware.command(f"tag 1 {A.hex()}")
    await table.watch.until(lambda ev: len(delivered(table.watch, TagSeen)) == 1)
    for _ in range(3):   # missed by 3 sweeps (15 ms), less than the 150 ms debounce
        await table.firmware.commands([f"untag 1 {A.hex()}", "scans 3", f"tag 1 {A.hex()}",
                                       "scans 1"])
    await table.firmware.command(f"untag 1 {A.hex()}")
    await table.firmware.command("settle 1")
    await table.watch.until(lambda ev: len(delivered(table.watch, TagGone)) == 1)
    assert len(delivered(table.watch, TagSeen)) == 1


async def test_hostile_commands_are_acknowledged_reported_and_change_nothing(
        tmp_path: Path, reference_build: Path) -> None:
    # a bare host of our own: the client refuses to send frames like these
    link = tmp_path / "usb-Ref_Table-if00"
    async with ReferenceReader(reference_build, link, kind="table", antennas=2) as firmware:
        port = await open_serial_link(str(link))
        decoder = FrameDecoder()
        got: list[Frame] = []

        async def until(pred: Callable[[], bool]) -> None:
            async with asyncio.timeout(10):
                while not pred():
                    got.extend(f for f in decoder.feed(await port.read())
                               if isinstance(f, Frame))

        try:
            await port.write(b"\x00" + encode_frame(encode_message(Hello(99))))
            await until(lambda: any(f.type == MessageType.HELLO_ACK for f in got))
            hostile = [Frame(0x77, 1, b"\x01\x02", FrameFlags.ACK_REQ),   # not in the catalogue
                       encode_message(SetConfig(ConfigKey.HEARTBEAT_MS, 5), 2),  # out of range
                       Frame(0x41, 3, b"", FrameFlags.ACK_REQ),           # SNAPSHOT_REQ, short
                       Frame(0x40, 4, b"\x09\x00\x00\x00\x00", FrameFlags.ACK_REQ),  # key 9
                       encode_message(Reboot(magic=0x1234), 5),           # not the magic
                       encode_message(Indicate(0, 3, 250), 6)]
            await port.write(b"".join(encode_frame(f) for f in hostile))
            await until(lambda: Ack(6) in [decode_message(f) for f in got
                                           if f.type == MessageType.ACK])
            await until(lambda: sum(f.type == MessageType.STATUS for f in got) == 5)
        finally:
            await port.aclose()
        statuses = [decode_message(f) for f in got if f.type == MessageType.STATUS]
        assert [(m.code, m.severity, m.text) for m in statuses] == [  # type: ignore[union-attr]
            (StatusCode.UNKNOWN_TYPE, Severity.WARN, "type 0x77"),
            (StatusCode.CONFIG_REJECTED, Severity.WARN, "config key 0x03"),
            (StatusCode.BAD_PAYLOAD, Severity.WARN, "type 0x41"),
            (StatusCode.BAD_PAYLOAD, Severity.WARN, "config key 0x09"),
            (StatusCode.BAD_PAYLOAD, Severity.WARN, "type 0x44")]
        await firmware.command("stats")
        assert firmware.indications == ["0 3 250"]
        assert len(firmware.boots) == 1 and firmware.stats["delivered"] == "6"


async def test_reboot_command_and_boot_ids_across_restarts(tmp_path: Path,
                                                           reference_build: Path) -> None:
    link, store = tmp_path / "usb-Ref-if00", tmp_path / "store"
    ids: list[int] = []
    for _ in range(2):
        async with ReferenceReader(reference_build, link, store=store) as firmware:
            client = DeviceClient(str(link), name="shoe", clock=SystemClock(),
                                  backoff=(0.05, 0.1))
            async with client:
                watch = Watch(client)
                await watch.until(lambda ev: any(isinstance(e, Connected) for e in ev))
                client.send(Reboot())
                await watch.until(lambda ev: any(isinstance(e, DeviceRebooted) for e in ev))
                ids += firmware.boots
                await watch.stop()
            stats = await firmware.read_stats()
            assert stats["boot_id"] == f"{firmware.boot_id:08x}"
    assert len(ids) == 4 and len(set(ids)) == 4 and 0 not in ids
    assert stats["boots"] == "4"          # the store counted every boot of both runs


async def test_radio_and_antenna_faults_are_reported(table: Table) -> None:
    await table.firmware.command("antenna_fail 1 1")
    await table.watch.until(lambda ev: len(delivered(table.watch, Status)) == 1)
    await table.firmware.command("antenna_fail 1 0")
    await table.watch.until(lambda ev: len(delivered(table.watch, Status)) == 2)
    await table.firmware.commands(["radio_fail 1", "reboot"])
    await table.watch.until(lambda ev: any(isinstance(e, DeviceRebooted) for e in ev))
    await table.watch.until(lambda ev: len(delivered(table.watch, Status)) >= 4)
    reports = [(m.code, m.severity, m.antenna) for m in delivered(table.watch, Status)]
    assert reports[:4] == [(StatusCode.ANTENNA_FAULT, Severity.ERROR, 1),
                           (StatusCode.ANTENNA_FAULT, Severity.INFO, 1),
                           (StatusCode.WATCHDOG_RESET, Severity.WARN, 255),
                           (StatusCode.READER_INIT_FAILED, Severity.ERROR, 255)]
    await table.firmware.command("radio_fail 0")
    await table.watch.until(lambda ev: len(delivered(table.watch, Status)) == 5)
    await table.firmware.command(f"tag 0 {A.hex()}")
    await table.watch.until(lambda ev: len(delivered(table.watch, TagSeen)) == 1)


async def test_a_full_queue_refuses_reads_loudly_and_reports_once_room_returns(
        tmp_path: Path, reference_build: Path) -> None:
    # a host that stops acknowledging (but keeps the link alive with heartbeats)
    link = tmp_path / "usb-Ref_Shoe-if00"
    async with ReferenceReader(reference_build, link) as firmware, \
            RawHost(await open_serial_link(str(link)), SystemClock()) as host:
        await host.hello(5)
        host.auto_ack = False
        for i in range(71):                               # 64 fit in the queue, 7 do not
            firmware.send_nowait(f"pass 0 e0040100000000{i:02x}")
        await firmware.settle()
        beat = await host.expect("a heartbeat with the overflow bit", lambda s: isinstance(
            s.message, Heartbeat) and bool(s.message.status & HeartbeatStatus.TX_QUEUE_OVERFLOW)
            and s.message.tx_queue_len == 64, 5.0)
        assert beat.message is not None
        stats = await firmware.read_stats()
        assert stats["queued"] == "64" and int(stats["overflows"]) == 71 - 64
        host.mark()
        host.auto_ack = True
        await host.ack()                                  # room returns
        status = await host.expect("STATUS TX_QUEUE_OVERFLOW", lambda s: isinstance(
            s.message, Status) and s.message.code == StatusCode.TX_QUEUE_OVERFLOW, 5.0)
        assert isinstance(status.message, Status) and status.message.severity is Severity.ERROR
        reads = [s.message for s in host.seen if isinstance(s.message, TagSeen)
                 and not s.frame.flags & FrameFlags.RETX]
        assert [r.index for r in reads] == list(range(64))   # the first 64, in order, no gap


async def test_a_shoes_passage_sensor_against_its_reads(tmp_path: Path,
                                                        reference_build: Path) -> None:
    # the sensor may see a card before its tag is read or after; only a card it saw and the
    # radio never read is a MISREAD (NO_TAG), and a read the sensor missed is no error
    link = tmp_path / "usb-Ref_Shoe-if00"
    async with ReferenceReader(reference_build, link, sensor=True) as firmware:
        client = DeviceClient(str(link), name="shoe", clock=SystemClock(), backoff=(0.05, 0.1))
        async with client:
            watch = Watch(client)
            await watch.until(lambda ev: any(isinstance(e, Connected) for e in ev))
            up = next(e for e in watch.events if isinstance(e, Connected))
            assert up.peer.caps == Caps.PASSAGE_SENSOR
            await firmware.commands([f"pass 0 {A.hex()}",          # sensor, then the read
                                     f"pass 0 {B.hex()} 2 late",   # the read, then sensor
                                     "blank",                      # sensor, no read
                                     f"tag 0 {C.hex()}"])          # a read, no sensor
            await watch.until(lambda ev: len(delivered(watch, TagSeen)) == 3)
            await firmware.command("scans 150")   # 750 ms: longer than the 500 ms window
            req = client.request_snapshot()      # in order after anything the shoe queued
            await watch.until(lambda ev: SnapshotDone(req, 1) in delivered(watch, SnapshotDone))
            assert [(m.uid, m.index) for m in delivered(watch, TagSeen)] == [
                (A, 0), (B, 1), (C, 3)]
            assert [(m.antenna, m.reason) for m in delivered(watch, Misread)] == [
                (0, MisreadReason.NO_TAG)]
            await watch.stop()


async def test_blank_needs_a_shoe_with_a_sensor(tmp_path: Path, reference_build: Path) -> None:
    async with ReferenceReader(reference_build, tmp_path / "usb-Ref-if00") as firmware:
        with pytest.raises(AssertionError, match="no passage sensor"):
            await firmware.command("blank")
        up = await firmware.read_stats()
        assert up["state"]      # the firmware still answers
