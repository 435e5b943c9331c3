"""How the dealer's devices reach a host: in process (loopback) or served (pty, TCP).

* :class:`WireTap` — a :class:`~hardware_sim.faults.ByteFaults` that records every byte a
  device writes (before and after faults) and applies one-shot faults armed by the dealer to
  the next frame: ``garbage``, ``bitflip``, ``drop``, ``dup_frame``, ``delay``.
* :class:`LoopbackPorts` — each device talks to a host-role
  :class:`~firmware_bridge.session.Session` (the production codec and link rules) in the same
  thread, pumped synchronously after every dealer step on a
  :class:`~tablectl.clock.ManualClock`: timers (retransmission, heartbeats, handshake retries)
  fire by moving the clock to the next deadline, never by sleeping. What the host receives is
  appended to :attr:`LoopbackPorts.timeline` as the :mod:`firmware_bridge.client` events a
  daemon would get (Delivered, Connected, DeviceRebooted, Disconnected, Malformed), through
  the client's own :func:`~firmware_bridge.client.translate`. Fully
  deterministic: one seed, one byte stream.
* :class:`ServedPorts` — devices served over a pty with a stable symlink or over TCP
  (:mod:`hardware_sim.serve`) to a real daemon; ``step`` keeps the dealer's pace.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Final, TypeAlias

from firmware_bridge.client import (
    Connected,
    Delivered,
    DeviceRebooted,
    Disconnected,
    Incompatible,
    Malformed,
    translate,
)
from firmware_bridge.session import Session
from firmware_bridge.session_config import LinkEnd
from firmware_bridge.session_events import LinkDead, SessionEvent
from firmware_bridge.transitions import LinkState
from hardware_sim.console import ConsoleCommand
from hardware_sim.devices import SimDevice
from hardware_sim.errors import DealerError
from hardware_sim.faults import ByteFaults, FaultSpec
from hardware_sim.serve import PtyDevice, serve_tcp
from tablectl.clock import Clock, ManualClock

_LOGGER = logging.getLogger(__name__)

ARMABLE: Final = frozenset({"garbage", "bitflip", "drop", "dup_frame", "delay"})

TimelineItem: TypeAlias = (Delivered | Connected | DeviceRebooted | Disconnected | Malformed
                           | Incompatible | ConsoleCommand)
"""What a loopback host saw, interleaved with the console commands, in order."""


class WireTap(ByteFaults):
    """Records a device's output and applies armed one-shot faults (plus, optionally, the
    random faults of ``spec``).

    Attributes:
        written: every byte the device produced, before faults.
        wire: every byte that went on the wire, after faults.
        armed: faults waiting for the next frame.
    """

    def __init__(self, spec: FaultSpec | None = None, *, seed: int = 0) -> None:
        super().__init__(spec or FaultSpec(), seed=seed)
        self.written = bytearray()
        self.wire = bytearray()
        self.armed: list[str] = []
        self._delay = 0.0
        self._tap_rng = random.Random(seed ^ 0x5EED)

    def arm(self, kind: str, seconds: float = 0.0) -> None:
        """Fault the next frame (``delay``: the next write waits ``seconds``).

        Raises:
            ValueError: unknown kind.
        """
        if kind not in ARMABLE:
            raise ValueError(f"unknown byte fault {kind!r}; known: {', '.join(sorted(ARMABLE))}")
        if kind == "delay":
            self._delay += seconds
        else:
            self.armed.append(kind)

    def stall(self) -> float:
        """See :meth:`ByteFaults.stall`; an armed delay first."""
        if self._delay:
            delay, self._delay = self._delay, 0.0
            self.counts["delay"] += 1
            return delay
        return super().stall()

    def __call__(self, data: bytes) -> bytes:
        self.written += data
        out = super().__call__(data)
        while self.armed and out.strip(b"\x00"):
            out = self._apply(self.armed.pop(0), out)
        self.wire += out
        return out

    def _apply(self, kind: str, data: bytes) -> bytes:
        start = len(data) - len(data.lstrip(b"\x00"))
        end = data.find(b"\x00", start)
        end = len(data) if end < 0 else end + 1
        frame = data[start:end]
        rng = self._tap_rng
        self.counts[kind] += 1
        if kind == "garbage":
            junk = bytes(rng.randrange(1, 256) for _ in range(rng.randint(8, 40)))
            return data[:start] + junk + b"\x00" + frame + data[end:]
        if kind == "drop":
            return data[:start] + data[end:]
        if kind == "dup_frame":
            return data[:end] + frame + data[end:]
        body = bytearray(frame)           # bitflip: one bit of the frame's body
        i = rng.randrange(max(1, len(frame) - 1))
        body[i] ^= 1 << rng.randrange(8)
        return data[:start] + bytes(body) + data[end:]


class _Loop:
    """One device and its in-process host session."""

    def __init__(self, name: str, device: SimDevice, clock: ManualClock, seed: int) -> None:
        self.name = name
        self.device = device
        self.tap = WireTap(seed=seed)
        rng = random.Random(seed)
        self.host = Session(LinkEnd.HOST, now=clock.monotonic(),
                            nonce=lambda: rng.getrandbits(32) or 1)
        self.plugged = True
        self.host.connect(clock.monotonic())


class LoopbackPorts:
    """Devices connected to in-process host sessions (see the module docstring).

    Args:
        devices: name -> device, e.g. ``{"shoe": shoe}``.
        clock: the devices' manual clock; the pump moves it to the next timer when waiting.
        seed: seeds the hosts' HELLO nonces and the taps' fault bytes.
        max_rounds: pump iterations per step before giving up (a link that never settles).
    """

    def __init__(self, devices: dict[str, SimDevice], *, clock: ManualClock, seed: int = 0,
                 max_rounds: int = 10_000) -> None:
        self.clock = clock
        self.timeline: list[TimelineItem] = []
        self._loops = {id(d): _Loop(name, d, clock, seed + i)
                       for i, (name, d) in enumerate(devices.items())}
        self._max_rounds = max_rounds

    def tap(self, device: SimDevice) -> WireTap:
        """The wire tap of ``device``."""
        return self._loop(device).tap

    def host(self, device: SimDevice) -> Session:
        """The host session talking to ``device``."""
        return self._loop(device).host

    def _loop(self, device: SimDevice) -> _Loop:
        try:
            return self._loops[id(device)]
        except KeyError:
            raise ValueError("device is not connected to these ports") from None

    async def step(self) -> None:
        """Pump every device until its link is idle (everything sent was acknowledged)."""
        self.pump()

    def pump(self) -> None:
        """Synchronous :meth:`step`.

        Raises:
            DealerError: a link did not settle within ``max_rounds`` iterations.
        """
        for loop in self._loops.values():
            self._pump(loop)

    def _pump(self, loop: _Loop) -> None:
        device, host, clock = loop.device, loop.host, self.clock
        for _ in range(self._max_rounds):
            moved = False
            out = device.data_to_send()
            if out:
                moved = True
                if loop.plugged:
                    stall = loop.tap.stall()
                    if stall:
                        clock.advance(stall)
                    wire = loop.tap(out)
                    self._dispatch(loop, host.receive_data(wire, clock.monotonic()))
            if loop.plugged:
                back = host.data_to_send()
                if back:
                    moved = True
                    device.receive_data(back)
            if moved:
                continue
            if not loop.plugged:
                return
            if host.state is LinkState.UP and device.session.queued == 0 and host.queued == 0:
                return
            deadlines = [d for d in (device.next_deadline(), host.next_deadline())
                         if d is not None]
            if not deadlines:
                raise DealerError(f"{loop.name}: link idle in state {host.state} with "
                                  f"{device.session.queued} events queued")
            clock.advance(max(0.0, min(deadlines) - clock.monotonic()) + 1e-6)
            device.poll()
            self._dispatch(loop, host.poll(clock.monotonic()))
        raise DealerError(f"{loop.name}: the link did not settle")

    def _dispatch(self, loop: _Loop, events: Sequence[SessionEvent]) -> None:
        now = self.clock.monotonic()
        for event in events:
            step = translate(loop.name, event, now)
            self.timeline.extend(step.events)
            if isinstance(event, LinkDead) and step.down is not None:
                # no port to reopen in process: the host handshakes again at once
                self.timeline.append(Disconnected(loop.name, step.down))
                loop.host.connect(now)

    async def unplug(self, device: SimDevice) -> None:
        """The host's port goes away; bytes the device writes meanwhile are lost."""
        loop = self._loop(device)
        self._pump(loop)
        loop.plugged = False
        loop.host.link_lost(self.clock.monotonic())
        self.timeline.append(Disconnected(loop.name, "unplugged"))

    async def replug(self, device: SimDevice) -> None:
        """The port is back: the host handshakes again; the device resends what is unacked."""
        loop = self._loop(device)
        device.data_to_send()             # written into a dead port
        loop.plugged = True
        loop.host.connect(self.clock.monotonic())
        self._pump(loop)

    def arm(self, device: SimDevice, kind: str, seconds: float = 0.0) -> None:
        """See :class:`~hardware_sim.dealer.DevicePorts`."""
        self._loop(device).tap.arm(kind, seconds)


class ServedPorts:
    """Devices served to a real host over ptys (stable symlinks) or TCP.

    Use as ``async with ServedPorts(clock=SystemClock(), pace=0.3) as ports``; add devices
    with :meth:`add_pty` / :meth:`add_tcp` before dealing.

    Args:
        clock: the devices' clock (the system clock for a live daemon).
        pace: seconds the dealer waits after each device action (a human dealer's speed).
        seed: seeds the taps' fault bytes.
    """

    def __init__(self, *, clock: Clock, pace: float = 0.0, seed: int = 0) -> None:
        self.clock = clock
        self.pace = pace
        self._seed = seed
        self._taps: dict[int, WireTap] = {}
        self._ptys: dict[int, PtyDevice] = {}
        self._servers: list[asyncio.Server] = []
        self.addresses: dict[str, str] = {}
        """Device name -> the address a host opens (pty symlink or ``socket://``)."""

    async def __aenter__(self) -> ServedPorts:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def tap(self, device: SimDevice) -> WireTap:
        """The wire tap of ``device`` (created on first use)."""
        key = id(device)
        if key not in self._taps:
            self._taps[key] = WireTap(seed=self._seed + len(self._taps))
        return self._taps[key]

    def add_pty(self, name: str, device: SimDevice, path: Path) -> PtyDevice:
        """Serve ``device`` on a new pty behind the symlink ``path``."""
        pty = PtyDevice(device, path, clock=self.clock, faults=self.tap(device))
        pty.plug()
        self._ptys[id(device)] = pty
        self.addresses[name] = str(path)
        return pty

    async def add_tcp(self, name: str, device: SimDevice, host: str, port: int) -> None:
        """Serve ``device`` on ``host:port`` (``socket://host:port`` for the daemon)."""
        server = await serve_tcp(device, host, port, clock=self.clock, faults=self.tap(device))
        self._servers.append(server)
        bound = server.sockets[0].getsockname()[1] if server.sockets else port
        self.addresses[name] = f"socket://{host}:{bound}"

    async def step(self, *, settle: float = 5.0) -> None:
        """Wait the pace (the devices' servers flush meanwhile; a pace of 0 still yields to
        them once, which with a ManualClock needs the clock to move), then until the host has
        acknowledged what the plugged devices sent, for at most ``settle`` seconds.

        A person deals a card and only then names the action; without the wait a fast
        simulated dealer's console command could overtake the card read on its way to the
        daemon (MQTT and the serial line are two paths), which no real table does.
        """
        await self.clock.sleep(self.pace)
        waited = 0.0
        while waited < settle and any(
                pty.plugged and pty.device.session.queued for pty in self._ptys.values()):
            await self.clock.sleep(0.002)
            waited += 0.002

    async def unplug(self, device: SimDevice) -> None:
        """Pull a pty device's cable (TCP devices cannot be unplugged: DealerError)."""
        pty = self._ptys.get(id(device))
        if pty is None:
            raise DealerError("unplug needs a device served on a pty")
        await pty.unplug()

    async def replug(self, device: SimDevice) -> None:
        """Plug a pty device back (a new pty behind the same symlink)."""
        pty = self._ptys.get(id(device))
        if pty is None:
            raise DealerError("replug needs a device served on a pty")
        pty.plug()

    def arm(self, device: SimDevice, kind: str, seconds: float = 0.0) -> None:
        """See :class:`~hardware_sim.dealer.DevicePorts`."""
        self.tap(device).arm(kind, seconds)

    async def aclose(self) -> None:
        """Stop serving (unplug every pty, close every TCP server)."""
        for pty in self._ptys.values():
            await pty.unplug()
        self._ptys.clear()
        for server in self._servers:
            server.close()
            with contextlib.suppress(Exception):
                await server.wait_closed()
        self._servers.clear()
