"""A TCP relay between a table broker's bridge and the floor broker, that a test can cut.

The bridge connects to the relay, the relay to the floor broker. By default bytes (TLS
included) pass through untouched. Given the test PKI (``pki``), the relay ends TLS on both
sides instead (the floor broker's own certificate towards the bridge, which checks it against
our CA as it would the floor broker's; our CA towards the floor broker), so it sees the MQTT
packets and counts the QoS 1 PUBLISHes going to the floor and the PUBACKs coming back
(:meth:`Relay.acknowledged`). :meth:`Relay.cut` closes every connection and refuses new
ones for a while: to the bridge it is exactly a network cut. The relay's port stays its own
while it refuses (a bound socket that does not listen, beside the listening one: both
``SO_REUSEPORT``): closed for good, another connection's ephemeral port could take it, and the
relay could not listen there again.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
from collections.abc import Callable
from pathlib import Path
from typing import Final

PUBLISH: Final = 3
PUBACK: Final = 4
ACK_DEADLINE: Final = 60.0
"""Seconds :meth:`Relay.acknowledged` waits: far beyond a loaded machine's (PUBACKs come back
in milliseconds), so reaching it is a finding, not a slow run."""


class MqttPackets:
    """The control packets of one direction of an MQTT byte stream, told by their fixed
    headers (MQTT 3.1.1 and 5.0 alike: a type and flags byte, then the remaining length in 1
    to 4 bytes of 7 bits, low first); sans-IO, bytes in, ``(type, flags)`` of each packet out.

    >>> packets = MqttPackets()
    >>> packets.feed(bytes([0x32, 3, 0, 1]))      # a QoS 1 PUBLISH, split across reads
    []
    >>> packets.feed(bytes([ord("t"), 0x40, 2, 0]))
    [(3, 2)]
    >>> packets.feed(bytes([1]))                  # the PUBACK that followed it
    [(4, 0)]
    """

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[tuple[int, int]]:
        """Take the next bytes; return the packets they complete, in order.

        Raises:
            ValueError: a remaining length longer than 4 bytes (not MQTT).
        """
        self._buffer += data
        done: list[tuple[int, int]] = []
        while len(self._buffer) >= 2:
            length, shift, used = 0, 0, 1
            while True:
                if used >= len(self._buffer):
                    return done                   # the length itself is not all here yet
                byte = self._buffer[used]
                length |= (byte & 0x7F) << shift
                used += 1
                if not byte & 0x80:
                    break
                shift += 7
                if used > 4:
                    raise ValueError(f"not MQTT: remaining length of more than 4 bytes "
                                     f"({bytes(self._buffer[:5]).hex()})")
            if len(self._buffer) < used + length:
                return done
            first = self._buffer[0]
            done.append((first >> 4, first & 0x0F))
            del self._buffer[:used + length]
        return done


def _contexts(pki: Path) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """(towards the bridge, towards the floor broker), from ``make_pki``'s files."""
    certs = pki / "certs"
    to_bridge = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    to_bridge.load_cert_chain(certs / "server.crt", certs / "server.key")
    to_floor = ssl.create_default_context(cafile=str(certs / "ca.crt"))
    return to_bridge, to_floor


class Relay:
    """``127.0.0.1:port`` -> ``target``; start with ``async with``. With ``pki`` (a
    ``make_pki`` directory) it ends TLS on both sides and counts MQTT packets."""

    def __init__(self, target_host: str, target_port: int, *, pki: Path | None = None) -> None:
        self._tls = _contexts(pki) if pki is not None else None
        self._holder = socket.socket()
        self._holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        self._holder.bind(("127.0.0.1", 0))
        self.port: int = self._holder.getsockname()[1]
        self.target = (target_host, target_port)
        self.cuts = 0
        self.ended = 0
        """Relayed connections that ended (either side closed them)."""
        self.published = 0
        """QoS 1 PUBLISHes the bridge sent towards the floor broker (with ``pki`` only)."""
        self.acked = 0
        """PUBACKs from the floor broker handed on to the bridge (with ``pki`` only)."""
        self._counted = asyncio.Event()
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._bridge_side: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    async def __aenter__(self) -> Relay:
        try:
            await self.open()
        except BaseException:
            self._holder.close()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
        self._holder.close()

    async def open(self) -> None:
        """Accept connections (again)."""
        self._server = await asyncio.start_server(
            self._serve, "127.0.0.1", self.port, reuse_port=True,
            ssl=self._tls[0] if self._tls else None)

    async def close(self, *, handed_on: bool = False) -> None:
        """Refuse new connections and drop every open one.

        With ``handed_on``, the bridge's side ends behind what was handed on to it (TLS
        close_notify, then FIN), so the bridge reads all of it before it sees the end, by
        TCP's order alone; otherwise it is aborted (a reset: whether the bridge still reads
        what reached its socket first is then up to mosquitto). The floor broker's side is
        aborted either way.
        """
        if self._server is not None:
            self._server.close()
            self._server = None
        polite = self._bridge_side & self._writers if handed_on else set()
        for writer in self._writers - polite:
            writer.transport.abort()
        self._writers.clear()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for writer in polite:
            writer.close()
        for writer in polite:
            try:
                async with asyncio.timeout(10):
                    await writer.wait_closed()
            except (OSError, TimeoutError, ssl.SSLError):
                writer.transport.abort()

    async def cut(self, seconds: float) -> None:
        """A network cut of ``seconds``."""
        self.cuts += 1
        await self.close()
        await asyncio.sleep(seconds)
        await self.open()

    async def acknowledged(self, at_least: int) -> None:
        """Wait until every QoS 1 PUBLISH the bridge sent towards the floor broker, and
        ``at_least`` of them, has had its PUBACK handed on to the bridge (then a cut makes the
        bridge send none of them again: QoS 1 is at least once, and rightly resends what it
        saw no PUBACK for).

        Raises:
            AssertionError: not so after :data:`ACK_DEADLINE` (the counts say how far it got).
            RuntimeError: the relay does not see the packets (no ``pki``).
        """
        if self._tls is None:
            raise RuntimeError("the relay passes TLS through: give it pki= to see packets")
        try:
            async with asyncio.timeout(ACK_DEADLINE):
                while self.acked < max(self.published, at_least):
                    self._counted.clear()
                    await self._counted.wait()
        except TimeoutError:
            raise AssertionError(
                f"{self.acked} PUBACKs handed on to the bridge for {self.published} QoS 1 "
                f"PUBLISHes (at least {at_least} expected) after {ACK_DEADLINE} s") from None

    def _count_published(self, packet: tuple[int, int]) -> None:
        kind, flags = packet
        if kind == PUBLISH and (flags >> 1) & 3 == 1:
            self.published += 1
            self._counted.set()

    def _count_acked(self, packet: tuple[int, int]) -> None:
        if packet[0] == PUBACK:
            self.acked += 1
            self._counted.set()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(
                *self.target, ssl=self._tls[1] if self._tls else None)
        except OSError:
            writer.transport.abort()
            return
        self._writers |= {writer, up_writer}
        self._bridge_side.add(writer)
        counting = self._tls is not None
        pumps = [asyncio.create_task(self._pump(reader, up_writer,
                                                self._count_published if counting else None)),
                 asyncio.create_task(self._pump(up_reader, writer,
                                                self._count_acked if counting else None))]
        self._tasks.update(pumps)
        await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        for w in (writer, up_writer):
            if w in self._writers:            # else close() is ending it
                w.transport.abort()
                self._writers.discard(w)
        self._bridge_side.discard(writer)
        for task in pumps:
            task.cancel()
            self._tasks.discard(task)
        self.ended += 1

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                    count: Callable[[tuple[int, int]], None] | None) -> None:
        """Hand on what ``reader`` gives; ``count`` each packet once it is handed on."""
        packets = MqttPackets()
        with contextlib.suppress(OSError, asyncio.CancelledError, ssl.SSLError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
                if count is not None:
                    for packet in packets.feed(data):
                        count(packet)
