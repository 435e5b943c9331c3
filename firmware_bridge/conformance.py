"""The conformance suite of protocol v1: does a reader on a port keep docs/protocol.md?

``python -m firmware_bridge conformance PORT`` runs it against any reader (the reference
firmware, hardware_sim's devices, a vendor's). Each check names the clause of
docs/protocol.md it tests and passes or fails on its own; a failed check does not stop the
others, except that nothing runs without a handshake. What only a person can do (put a tag
on an antenna) is a :class:`Prompt` handed to the caller's prompter, which a test scripts.

The checks, in order (the reader is left rebooted at the end):

* handshake: HELLO_ACK echoes the nonce, major 1, a boot id; a second HELLO keeps the boot id;
* receiver rules: corrupted chunks (CRC, COBS, version, an overlong run) are dropped and the
  valid frame after them is delivered; a duplicate is re-acknowledged and not delivered again;
  a gap is answered by NAK; an unknown type is acknowledged and reported (UNKNOWN_TYPE); a short
  payload is acknowledged and reported (BAD_PAYLOAD); a longer payload is accepted;
* SET_CONFIG: a value out of range is acknowledged and reported (CONFIG_REJECTED), an unknown
  key as BAD_PAYLOAD, and the heartbeat check after them finds the old period kept;
* messages: SNAPSHOT_REQ is answered by ANTENNA_STATE for every antenna, then SNAPSHOT_DONE;
* liveness: heartbeats come while the link is up;
* MISREAD (needs a person, and only for a shoe that announces a passage sensor): a card with
  its tag covered is reported as MISREAD NO_TAG;
* reliability (needs a tag): an unacknowledged TAG_SEEN is resent (RETX) after 250 ms; after a
  HELLO, HELLO_ACK names it as the oldest unacknowledged seq and it is resent first;
* REBOOT: the reader comes back with a new boot id.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Final

from firmware_bridge.clock import Clock
from firmware_bridge.conformance_host import CheckFailed, RawHost, Seen
from firmware_bridge.frames import Frame, FrameFlags, cobs_encode, crc32, encode_frame
from firmware_bridge.link import Link
from firmware_bridge.messages import (
    Ack,
    AntennaState,
    Caps,
    ConfigKey,
    Heartbeat,
    HelloAck,
    MessageType,
    Misread,
    MisreadReason,
    Nak,
    Reboot,
    SnapshotDone,
    SnapshotReq,
    Status,
    StatusCode,
    TagSeen,
    encode_message,
)

WAIT: Final = 3.0
"""Seconds a check waits for an answer a conforming reader sends at once."""
HEARTBEAT_WITHIN: Final = 2.5
"""Seconds within which the reader's next HEARTBEAT must come (it sends one a second)."""


@dataclass(frozen=True, slots=True)
class Prompt:
    """Something a person must do at the reader.

    Attributes:
        action: ``tag`` (one tag comes onto ``antenna``; on a shoe: one card slides out) or
            ``dead`` (a shoe with a passage sensor: a card whose tag cannot be read slides
            out).
        antenna: which antenna.
        text: the instruction as a person reads it.
    """

    action: str
    antenna: int
    text: str


Prompter = Callable[[Prompt], Awaitable[None]]
"""Called with each prompt; returns once the person (or the script) did it."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """The outcome of one check.

    Attributes:
        clause: the section of docs/protocol.md the check tests.
        check: what was checked, in a sentence.
        passed: True, False, or None when it was skipped.
        detail: why it failed or was skipped.
    """

    clause: str
    check: str
    passed: bool | None
    detail: str = ""


class _Suite:
    def __init__(self, host: RawHost, prompter: Prompter | None, antenna: int,
                 wait: float, heartbeat_within: float) -> None:
        self.host, self.prompter, self.antenna, self.wait = host, prompter, antenna, wait
        self.heartbeat_within = heartbeat_within
        self.verdicts: list[Verdict] = []
        self.peer: HelloAck | None = None
        self.tag_seq = 0
        self._nonce = 0x5EED0000

    def nonce(self) -> int:
        self._nonce += 1
        return self._nonce

    async def check(self, clause: str, text: str,
                    body: Callable[[], Awaitable[None]]) -> bool:
        try:
            await body()
        except CheckFailed as exc:
            self.verdicts.append(Verdict(clause, text, False, str(exc)))
            return False
        self.verdicts.append(Verdict(clause, text, True))
        return True

    def skip(self, clause: str, text: str, why: str) -> None:
        self.verdicts.append(Verdict(clause, text, None, why))

    # ---- helpers -----------------------------------------------------------------------------

    async def acked(self, seq: int) -> None:
        await self.host.expect(f"ACK {seq}", lambda s: s.message == Ack(seq), self.wait)

    async def snapshot(self, req_id: int) -> list[AntennaState]:
        assert self.peer is not None
        done = SnapshotDone(req_id, self.peer.antenna_count)
        start = self.host.cursor
        await self.host.expect(f"SNAPSHOT_DONE {req_id}", lambda s: s.message == done,
                               self.wait)
        return [s.message for s in self.host.seen[start:]
                if isinstance(s.message, AntennaState) and s.message.req_id == req_id]

    async def status(self, code: StatusCode) -> Status:
        seen = await self.host.expect(f"STATUS {code.name}", lambda s: isinstance(
            s.message, Status) and s.message.code == code, self.wait)
        assert isinstance(seen.message, Status)
        return seen.message

    # ---- the checks --------------------------------------------------------------------------

    async def handshake(self) -> None:
        nonce = self.nonce()
        ack = await self.host.hello(nonce)
        if ack.proto_major != 1:
            raise CheckFailed(f"HELLO_ACK speaks major {ack.proto_major}, not 1")
        if ack.boot_id == 0:
            raise CheckFailed("HELLO_ACK has boot id 0")
        self.peer = ack

    async def same_boot(self) -> None:
        assert self.peer is not None
        again = await self.host.hello(self.nonce())
        if again.boot_id != self.peer.boot_id:
            raise CheckFailed(f"boot id {self.peer.boot_id:#x} became {again.boot_id:#x} "
                              "without a reboot")
        self.peer = again

    async def corrupted_then_valid(self) -> None:
        # four broken copies of a SNAPSHOT_REQ (req 40) with the seq the valid one (req 41)
        # uses next: a reader that took any of them would snapshot 40 and drop 41 as a repeat
        mistaken = encode_message(SnapshotReq(40), self.host.next_seq)
        bad_crc = bytearray(mistaken.to_bytes())
        bad_crc[-1] ^= 0xFF
        version = bytearray(mistaken.to_bytes())
        version[0] = 0x21                       # format version 2
        version[-4:] = crc32(bytes(version[:-4])).to_bytes(4, "little")
        await self.host.send(b"\x00" + cobs_encode(bytes(bad_crc)) + b"\x00"
                             + b"\x05\x01\x00"                       # bad COBS
                             + cobs_encode(bytes(version)) + b"\x00"
                             + b"\x01" * 300 + encode_frame(mistaken))  # overlong: dropped
        self.host.mark()
        seq = await self.host.send_reliable(SnapshotReq(41))
        await self.acked(seq)
        states = await self.snapshot(41)
        stray = [s for s in self.host.seen if isinstance(s.message, (AntennaState, SnapshotDone))
                 and s.message.req_id == 40]
        if stray:
            raise CheckFailed("a frame glued to an overlong run was delivered")
        assert self.peer is not None
        if [s.antenna for s in states] != list(range(self.peer.antenna_count)):
            raise CheckFailed(f"ANTENNA_STATE for antennas {[s.antenna for s in states]}, "
                              f"expected 0..{self.peer.antenna_count - 1}")

    async def duplicate(self) -> None:
        self.host.mark()
        seq = await self.host.send_reliable(SnapshotReq(42))
        await self.snapshot(42)
        start = self.host.mark()
        await self.host.send_reliable(SnapshotReq(43), seq)   # the same seq again
        await self.acked(seq)
        nxt = await self.host.send_reliable(SnapshotReq(44))
        await self.acked(nxt)
        await self.snapshot(44)
        if any(isinstance(s.message, (AntennaState, SnapshotDone)) and s.message.req_id == 43
               for s in self.host.seen[start:]):
            raise CheckFailed("a duplicate seq was delivered again")

    async def gap(self) -> None:
        missing = self.host.next_seq
        self.host.mark()
        await self.host.send_reliable(SnapshotReq(45), missing + 1)
        await self.host.expect(f"NAK {missing}", lambda s: s.message == Nak(missing), self.wait)
        await self.host.send_reliable(SnapshotReq(46))
        await self.host.send_reliable(SnapshotReq(47))
        await self.acked(missing + 1)

    async def unknown_type(self) -> None:
        self.host.mark()
        seq = await self.host.send_reliable(Frame(0x7E, 0, b"\x01\x02\x03"))
        await self.acked(seq)
        await self.status(StatusCode.UNKNOWN_TYPE)

    async def short_payload(self) -> None:
        self.host.mark()
        seq = await self.host.send_reliable(Frame(MessageType.SNAPSHOT_REQ, 0, b""))
        await self.acked(seq)
        await self.status(StatusCode.BAD_PAYLOAD)

    async def config_rejected(self) -> None:
        # heartbeat_ms 60000 is out of range (the link is dead after 3 s): refused, and the
        # heartbeat check after it, which waits 2.5 s (at most a few more for an emulator:
        # far under 60), fails a reader that took it; an unknown
        # key is a payload it cannot decode
        self.host.mark()
        seq = await self.host.send_reliable(Frame(
            MessageType.SET_CONFIG, 0, bytes([ConfigKey.HEARTBEAT_MS]) + (60_000).to_bytes(
                4, "little")))
        await self.acked(seq)
        await self.status(StatusCode.CONFIG_REJECTED)
        self.host.mark()
        seq = await self.host.send_reliable(Frame(MessageType.SET_CONFIG, 0,
                                                  bytes([0xEE, 1, 0, 0, 0])))
        await self.acked(seq)
        await self.status(StatusCode.BAD_PAYLOAD)

    async def long_payload(self) -> None:
        self.host.mark()  # a payload longer than the message needs: trailing bytes ignored
        await self.host.send_reliable(Frame(MessageType.SNAPSHOT_REQ, 0, b"\x30extra"))
        await self.snapshot(0x30)

    async def heartbeat(self) -> None:
        self.host.mark()
        await self.host.expect("HEARTBEAT", lambda s: isinstance(s.message, Heartbeat)
                               and s.message.uptime_ms is not None, self.heartbeat_within)

    async def resend(self) -> None:
        assert self.prompter is not None and self.peer is not None
        self.host.auto_ack = False
        self.host.mark()
        await self.prompter(Prompt("tag", self.antenna, f"Put a tag on antenna "
                                   f"{self.antenna} (on a shoe: slide one card out)"))
        first = await self.host.expect("TAG_SEEN", lambda s: isinstance(s.message, TagSeen),
                                       30.0)
        assert isinstance(first.message, TagSeen)
        if first.message.antenna != self.antenna:
            raise CheckFailed(f"TAG_SEEN on antenna {first.message.antenna}, "
                              f"expected {self.antenna}")
        self.tag_seq = first.frame.seq
        await self.host.expect("TAG_SEEN resent with RETX", self._resent, 2.0)

    def _resent(self, seen: Seen) -> bool:
        return (seen.frame.seq == self.tag_seq and bool(seen.frame.flags & FrameFlags.RETX)
                and isinstance(seen.message, TagSeen))

    async def resend_after_hello(self) -> None:
        try:
            ack = await self.host.hello(self.nonce())
            if ack.oldest_unacked_seq != self.tag_seq:
                raise CheckFailed(f"HELLO_ACK names oldest unacked seq "
                                  f"{ack.oldest_unacked_seq}, expected {self.tag_seq}")
            first = await self.host.expect("a reliable frame after HELLO_ACK",
                                           lambda s: s.frame.reliable, self.wait)
            if not self._resent(first):
                raise CheckFailed(f"the first reliable frame after HELLO_ACK was seq "
                                  f"{first.frame.seq}, not the resent TAG_SEEN "
                                  f"{self.tag_seq}")
        finally:
            self.host.auto_ack = True
            await self.host.ack()

    async def dead_tag(self) -> None:
        assert self.prompter is not None
        self.host.mark()
        await self.prompter(Prompt("dead", 0, "Slide one card out of the shoe with its tag "
                                   "covered by a strip of foil (or a card with no tag)"))
        seen = await self.host.expect("MISREAD NO_TAG", lambda s: isinstance(
            s.message, (Misread, TagSeen)), 30.0)
        if not isinstance(seen.message, Misread) \
                or (seen.message.antenna, seen.message.reason) != (0, MisreadReason.NO_TAG):
            raise CheckFailed(f"expected MISREAD NO_TAG on antenna 0, got {seen.message}")

    async def reboot(self) -> None:
        assert self.peer is not None
        old = self.peer.boot_id
        self.host.mark()
        await self.host.send_reliable(Reboot())
        # the unsolicited HELLO_ACK may be lost in the reset; the HELLO after must find it
        with contextlib.suppress(CheckFailed):
            await self.host.expect("HELLO_ACK of a new boot", lambda s: isinstance(
                s.message, HelloAck) and s.message.boot_id != old, 10.0)
        ack = await self.host.hello(self.nonce())
        if ack.boot_id == old:
            raise CheckFailed("the boot id did not change across REBOOT")
        self.peer = ack


async def run_conformance(link: Link, *, clock: Clock, prompter: Prompter | None = None,
                          antenna: int = 0, wait: float = WAIT,
                          heartbeat_within: float = HEARTBEAT_WITHIN) -> list[Verdict]:
    """Run every check against the reader at the other end of ``link`` (closed at the end).

    Args:
        link: an open link to the reader.
        clock: paces our heartbeats (the reader must not think us gone during a prompt).
        prompter: asked to do what only a person can (a tag on an antenna); without one,
            the checks that need a tag are skipped.
        antenna: the antenna the tag checks use.
        wait: seconds to wait for an answer a conforming reader sends at once.
        heartbeat_within: seconds within which a HEARTBEAT must come (the reader sends one
            a second; the host's dead time is 3 s). Longer only for a reader whose clock is
            not the host's to judge, such as an emulator on a shared, loaded machine.

    Returns:
        One :class:`Verdict` per check, in the order run.
    """
    async with RawHost(link, clock) as host:
        s = _Suite(host, prompter, antenna, wait, heartbeat_within)
        hs = "Link rules 1 (handshake)"
        rx = "Frame: receiver rules"
        rel = "Link rules 2 (reliability)"
        if not await s.check(hs, "HELLO is answered by 00 + HELLO_ACK echoing the nonce, "
                             "major 1, a boot id", s.handshake):
            return s.verdicts
        await s.check(hs, "a second HELLO keeps the boot id", s.same_boot)
        await s.check(rx, "corrupted chunks (CRC, COBS, version, overlong run) are dropped; "
                      "the next valid frame is delivered", s.corrupted_then_valid)
        await s.check("Messages", "SNAPSHOT_REQ gets ANTENNA_STATE per antenna, then "
                      "SNAPSHOT_DONE", s.long_payload)
        await s.check(rel, "a duplicate is re-acknowledged and not delivered again",
                      s.duplicate)
        await s.check(rel, "a gap is answered by NAK(expected)", s.gap)
        await s.check(rx, "an unknown reliable type is acknowledged and reported "
                      "(UNKNOWN_TYPE)", s.unknown_type)
        await s.check(rx, "a short payload is acknowledged and reported (BAD_PAYLOAD)",
                      s.short_payload)
        await s.check("Messages (SET_CONFIG)", "a value out of range is acknowledged and "
                      "reported (CONFIG_REJECTED), an unknown key as BAD_PAYLOAD; neither "
                      "changes the heartbeat", s.config_rejected)
        await s.check("Link rules 4 (liveness)", "the reader sends HEARTBEAT while up",
                      s.heartbeat)
        if prompter is not None and s.peer is not None \
                and Caps.PASSAGE_SENSOR in s.peer.caps:   # a reader without one: no check
            await s.check("Messages (MISREAD)", "a card the passage sensor saw and the radio "
                          "could not read is MISREAD NO_TAG", s.dead_tag)
        tag = "an unacknowledged TAG_SEEN is resent with RETX"
        after = "after HELLO, HELLO_ACK names the oldest unacked seq and resends it first"
        if prompter is None or s.peer is None or s.peer.antenna_count <= antenna:
            why = "no prompter" if prompter is None else f"no antenna {antenna}"
            s.skip(rel, tag, why)
            s.skip(hs, after, why)
        elif await s.check(rel, tag, s.resend):
            await s.check(hs, after, s.resend_after_hello)
        else:
            s.host.auto_ack = True
            await s.check(hs, "the link comes back after a HELLO", s.same_boot)
        await s.check("Messages (REBOOT)", "REBOOT brings the reader back with a new boot id",
                      s.reboot)
        if host.drops:
            s.verdicts.append(Verdict(rx, "every frame the reader sent decoded", False,
                                      f"{host.drops} chunks did not decode"))
        return s.verdicts


def summary(verdicts: Sequence[Verdict]) -> tuple[int, int, int]:
    """``(passed, failed, skipped)``."""
    return (sum(v.passed is True for v in verdicts), sum(v.passed is False for v in verdicts),
            sum(v.passed is None for v in verdicts))
