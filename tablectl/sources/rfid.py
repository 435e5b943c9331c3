"""RFID card sources on firmware_bridge: the card shoe and the table antennas.

**Shoe** (:class:`RfidShoeSource`): every TAG_SEEN is a card leaving the shoe, in dealing
order; it becomes a :class:`CardRead` with no location (the controller assigns it to the next
expected target). The shoe's draw index must grow by one per read: a jump, a MISREAD, or a
reboot of the reader (a power cut loses the reads it had not yet delivered) becomes
:class:`ReadMissed`, so the dealer checks the deal instead of the next card silently landing on
the wrong seat. An unplug is not a loss: the session survives it and the device resends.

**Table** (:class:`RfidTableSource`): antennas have roles from the calibration map. The source
keeps the set of tags present on each antenna; a TAG_SEEN of a tag not already present becomes
a :class:`CardRead` at that antenna's location, a TAG_GONE a :class:`TagLeft`. After every new
boot the device sends a snapshot of every antenna, and the source reconciles it with what it
knew: tags that appeared while the link was down are reported once, tags that left are reported
gone, tags still present are not reported again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Mapping
from typing import Final, Self

from firmware_bridge.client import (
    Connected,
    Delivered,
    DeviceClient,
    DeviceRebooted,
    Disconnected,
    Incompatible,
    Malformed,
)
from firmware_bridge.link import LinkOpener, open_serial_link
from firmware_bridge.messages import (
    AntennaState,
    DeviceKind,
    Misread,
    SnapshotDone,
    TagGone,
    TagSeen,
)
from firmware_bridge.transitions import LinkState
from tablectl.clock import Clock
from tablectl.controller.inputs import CardRead, DeviceStatus, Location, ReadMissed, TagLeft
from tablectl.sources.base import SourceEvent

_LOGGER = logging.getLogger(__name__)

SHOE_KINDS: Final = frozenset({DeviceKind.SHOE, DeviceKind.COMBO})
"""The device kinds a shoe source takes (another on its port is refused)."""
TABLE_KINDS: Final = frozenset({DeviceKind.TABLE, DeviceKind.COMBO})
"""The device kinds a table-antenna source takes."""


class _RfidSource:
    """Shared plumbing: the device client, its lifecycle and device status events."""

    kind = "rfid"

    def __init__(self, name: str, address: str, *, clock: Clock,
                 opener: LinkOpener = open_serial_link,
                 kinds: frozenset[DeviceKind] | None = None) -> None:
        self.name = name
        self.address = address
        self._clock = clock
        # a read is ACKed to the reader only after the daemon journaled it: a crash in
        # between makes the reader resend it, never lose it
        # ``kinds``: another kind of device answering on this port (cables swapped, ports
        # numbered anew) is refused and none of its events taken: a table reader's tags
        # taken as a shoe's would be cards dealt in the wrong order
        self._client = DeviceClient(address, name=name, opener=opener, clock=clock,
                                    ack_when_consumed=True, kinds=kinds)
        self._boot: int | None = None
        self._incompatible = False

    async def __aenter__(self) -> Self:
        await self._client.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._client.aclose()

    @property
    def link_up(self) -> bool:
        """The reader's link is up (for the metrics)."""
        return self._client.state is LinkState.UP

    @property
    def incompatible(self) -> bool:
        """The reader answered with another protocol version (for the metrics)."""
        return self._incompatible

    def refuse(self) -> None:
        """The daemon could not journal the event it holds: it is not acknowledged and the
        reader keeps it (:meth:`~firmware_bridge.client.DeviceClient.refuse`); this source
        ends once asked for its next event."""
        self._client.refuse()

    @property
    def frames_dropped(self) -> Mapping[str, int]:
        """Frames the link threw away, by reason (for the metrics)."""
        return {str(reason): n for reason, n in self._client.stats.drops.items()}

    def _read_id(self, seq: int) -> str:
        return f"{self.name}:{self._boot or 0:08x}:{seq}"

    async def events(self) -> AsyncIterator[SourceEvent]:
        """Controller inputs from the device, once each, in the device's order."""
        async for event in self._client.events():
            for out in self._translate(event):
                yield out

    def _translate(self, event: object) -> list[SourceEvent]:
        now = self._clock.now()
        match event:
            case Connected(peer=peer, new_boot=new_boot):
                self._incompatible = False
                self._boot = peer.boot_id
                return [DeviceStatus(self.name, True, now, kind=self.kind),
                        *self._on_connected(new_boot)]
            case DeviceRebooted():
                return self._on_reboot()
            case Disconnected(reason=reason):
                _LOGGER.warning("%s: reader offline: %s", self.name, reason)
                return [DeviceStatus(self.name, False, now, kind=self.kind)]
            case Incompatible() as seen:
                self._incompatible = True
                _LOGGER.error("%s: %s (retrying every %.0f s)", self.name, seen.reason,
                              self._client.incompatible_retry)
                # a reader that spoke our version before restarted into another: what it
                # had not delivered is lost, as in any restart (the next one starts afresh)
                lost = self._on_reboot() if self._boot is not None else []
                self._boot = None
                return [DeviceStatus(self.name, False, now, kind=self.kind,
                                     problem=seen.reason), *lost]
            case Malformed(error=error):
                _LOGGER.error("%s: undecodable event from the reader: %s", self.name, error)
                return [ReadMissed(self.name, 0, f"undecodable reader event: {error}", now)]
            case Delivered(message=message, seq=seq):
                return self._on_message(message, seq)
        return []

    def _on_connected(self, new_boot: bool) -> list[SourceEvent]:
        return []

    def _on_reboot(self) -> list[SourceEvent]:
        return []

    def _on_message(self, message: object, seq: int) -> list[SourceEvent]:
        return []


class RfidShoeSource(_RfidSource):
    """An RFID card shoe: reads in dealing order (see the module docstring)."""

    kind = "rfid-shoe"

    def __init__(self, name: str, address: str, *, clock: Clock,
                 opener: LinkOpener = open_serial_link) -> None:
        super().__init__(name, address, clock=clock, opener=opener,
                         kinds=SHOE_KINDS)
        self._last_index: int | None = None
        self._seen_boot = False

    def _on_reboot(self) -> list[SourceEvent]:
        self._last_index = None
        return [ReadMissed(self.name, 0, "the shoe's reader restarted: reads it had not "
                           "delivered are lost; check the cards dealt", self._clock.now())]

    def _on_message(self, message: object, seq: int) -> list[SourceEvent]:
        now = self._clock.now()
        match message:
            case TagSeen() as read:
                out: list[SourceEvent] = []
                if (self._last_index is not None and read.index > self._last_index + 1):
                    missing = read.index - self._last_index - 1
                    out.append(ReadMissed(self.name, read.antenna,
                                          f"{missing} draw(s) without a read before draw "
                                          f"{read.index}", now))
                self._last_index = read.index
                out.append(CardRead(source=self.name, uid=read.uid_hex, antenna=read.antenna,
                                    read_id=self._read_id(seq), at=now))
                return out
            case Misread(antenna=antenna, reason=reason):
                if self._last_index is not None:
                    self._last_index += 1
                why = reason.name.lower()
                return [ReadMissed(self.name, antenna, f"the shoe missed a card ({why})", now)]
        return []

    def new_shoe(self) -> None:
        """The dealer loaded a new shoe: the draw index starts again."""
        self._last_index = None


class RfidTableSource(_RfidSource):
    """RFID antennas under the felt, each with a role (see the module docstring)."""

    kind = "rfid-table"

    def __init__(self, name: str, address: str, *, roles: Mapping[int, Location],
                 clock: Clock, opener: LinkOpener = open_serial_link) -> None:
        super().__init__(name, address, clock=clock, opener=opener,
                         kinds=TABLE_KINDS)
        self._roles = dict(roles)
        self._present: dict[int, set[str]] = {}
        self._snapshot: dict[int, set[str]] | None = None

    def _on_connected(self, new_boot: bool) -> list[SourceEvent]:
        if new_boot:
            self._snapshot = {}
        return []

    def _read(self, antenna: int, uid: str, seq: int) -> CardRead:
        return CardRead(source=self.name, uid=uid, antenna=antenna,
                        read_id=self._read_id(seq), at=self._clock.now(),
                        location=self._roles.get(antenna))

    def _gone(self, antenna: int, uid: str) -> TagLeft:
        return TagLeft(source=self.name, uid=uid, antenna=antenna, at=self._clock.now(),
                       location=self._roles.get(antenna))

    def _on_message(self, message: object, seq: int) -> list[SourceEvent]:
        match message:
            case TagSeen(antenna=antenna) as read:
                present = self._present.setdefault(antenna, set())
                if read.uid_hex in present:
                    return []                     # still there: the antenna saw it again
                present.add(read.uid_hex)
                if antenna not in self._roles:
                    _LOGGER.warning("%s: tag on antenna %d, which has no role in the map",
                                    self.name, antenna)
                return [self._read(antenna, read.uid_hex, seq)]
            case TagGone(antenna=antenna) as gone:
                present = self._present.setdefault(antenna, set())
                if gone.uid_hex not in present:
                    return []
                present.discard(gone.uid_hex)
                return [self._gone(antenna, gone.uid_hex)]
            case AntennaState(antenna=antenna, tags=tags):
                if self._snapshot is not None:
                    self._snapshot[antenna] = {t.uid.hex().upper() for t in tags}
                return []
            case SnapshotDone():
                return self._reconcile(seq)
        return []

    def _reconcile(self, seq: int) -> list[SourceEvent]:
        snap, self._snapshot = self._snapshot, None
        if snap is None:
            return []
        out: list[SourceEvent] = []
        for antenna in sorted(set(snap) | set(self._present)):
            now_there = snap.get(antenna, set())
            before = self._present.get(antenna, set())
            out += [self._gone(antenna, uid) for uid in sorted(before - now_there)]
            out += [self._read(antenna, uid, seq) for uid in sorted(now_there - before)]
            self._present[antenna] = set(now_there)
        return out


async def merge_sources(*sources: AsyncIterator[SourceEvent]) -> AsyncIterator[SourceEvent]:
    """Interleave several sources' events in arrival order (each source's own order kept)."""
    queue: asyncio.Queue[SourceEvent | None] = asyncio.Queue()

    async def pump(it: AsyncIterator[SourceEvent]) -> None:
        try:
            async for ev in it:
                await queue.put(ev)
        finally:
            await queue.put(None)

    tasks = [asyncio.create_task(pump(s)) for s in sources]
    live = len(tasks)
    try:
        while live:
            item = await queue.get()
            if item is None:
                live -= 1
                continue
            yield item
    finally:
        for t in tasks:
            t.cancel()
        for t in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await t
