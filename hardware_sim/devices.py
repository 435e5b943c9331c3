"""Simulated card readers on the real wire protocol: SimShoe, SimTable, SimKeypad.

Each device is a model (what a real reader would detect) on top of firmware_bridge's
:class:`~firmware_bridge.session.Session` in the device role, so every byte
a device writes is produced by the production codec and every test exercises the production
bridge. Devices are sans-IO apart from an injected clock: feed them bytes with
:meth:`SimDevice.receive_data`, run their timers with :meth:`SimDevice.poll`, and take their
output with :meth:`SimDevice.data_to_send` (:mod:`hardware_sim.serve` does that over a pipe,
a pty or TCP). Everything random (boot ids, the shuffle) comes from one seeded generator:
the same seed and the same inputs give the same bytes on the wire.

Device faults on demand (the byte-level ones live in :mod:`hardware_sim.faults`):
:meth:`SimDevice.reboot` (new boot id; unacknowledged events lost as on a power cut),
:meth:`SimShoe.duplicate_read`, :meth:`SimShoe.foreign_tag`, :meth:`SimShoe.misread`,
:meth:`SimShoe.two_at_once`, :meth:`SimShoe.draw_face_up`; on the table
:meth:`SimTable.place` on any antenna (the wrong one included), several tags per antenna.
"""

from __future__ import annotations

import logging
import random
import secrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from firmware_bridge.clock import Clock
from firmware_bridge.errors import QueueOverflowError
from firmware_bridge.messages import (
    PROTO_MAJOR,
    REBOOT_MAGIC,
    AntennaState,
    Button,
    ButtonAction,
    Caps,
    DeviceKind,
    Indicate,
    Message,
    Misread,
    MisreadReason,
    Reboot,
    SetConfig,
    ShoeReset,
    SnapshotDone,
    SnapshotReq,
    TagGone,
    TagId,
    TagSeen,
    Tech,
)
from firmware_bridge.session import Session
from firmware_bridge.session_config import DeviceIdentity, LinkEnd, SessionConfig
from firmware_bridge.session_events import HostConnected, Received
from firmware_bridge.transitions import LinkState
from tablectl.domain.cards import Card
from tablectl.domain.deck import Deck

_LOGGER = logging.getLogger(__name__)

FW_VERSION = "hardware_sim-1"


class SimDevice:
    """Base of the simulated devices: identity, boot, session, command handling.

    Args:
        kind: what HELLO_ACK says the device is.
        antenna_count: antennas (0 for a keypad).
        caps: capability bits.
        clock: injected time; uptime counts from construction.
        seed: seeds every random choice of this device (boot ids too, unless
            ``random_boot``).
        config: session timing (defaults as the real firmware).
        random_boot: draw each boot id from the OS's randomness, as firmware does from its
            hardware RNG. A device served to a real host must: the host tells a new boot
            from a reconnect by the boot id, so a second run of a seeded simulator would
            look like the first one reconnecting, and its reads would be dropped as
            repeats of the first run's.
    """

    proto_major: int = PROTO_MAJOR
    """The protocol version its HELLO_ACK says (a subclass models a reader of another)."""

    def __init__(self, kind: DeviceKind, antenna_count: int, caps: Caps, *, clock: Clock,
                 seed: int = 0, config: SessionConfig | None = None,
                 random_boot: bool = False) -> None:
        self.kind = kind
        self.antenna_count = antenna_count
        self.caps = caps
        self.clock = clock
        self.rng = random.Random(seed)
        self.hw_id = self.rng.getrandbits(64).to_bytes(8, "big")
        self._random_boot = random_boot
        self._config = config
        self.lost = 0
        """Events this device could not queue (its session reported the overflow)."""
        self.commands: list[Message] = []
        """Host commands received, in order (INDICATE, SET_CONFIG, ...)."""
        self.host_connections = 0
        self.on_output: Callable[[], None] | None = None
        """Called after the device produced output outside receive_data/poll (set by a
        server so it can flush)."""
        self.present: list[dict[bytes, tuple[Tech, float]]] = [{} for _ in range(antenna_count)]
        """Per antenna: UIDs on it, with tech and first-seen time."""
        self.session = self._new_session()
        self.session.connect(self.clock.monotonic())

    @property
    def boot_id(self) -> int:
        """This boot's random id."""
        return self.session.identity.boot_id if self.session.identity else 0

    def _new_session(self) -> Session:
        boot = secrets.randbits(32) if self._random_boot else self.rng.getrandbits(32)
        identity = DeviceIdentity(self.kind, self.antenna_count, self.caps, boot or 1,
                                  self.hw_id, FW_VERSION, self.proto_major)
        return Session(LinkEnd.DEVICE, now=self.clock.monotonic(), identity=identity,
                       config=self._config)

    # ---- the host side of the device ------------------------------------------------------

    def receive_data(self, data: bytes) -> None:
        """Bytes from the host."""
        for event in self.session.receive_data(data, self.clock.monotonic()):
            if isinstance(event, HostConnected):
                self.host_connections += 1
            elif isinstance(event, Received):
                self._command(event.message)

    def poll(self) -> None:
        """Run the session's timers."""
        self.session.poll(self.clock.monotonic())

    def next_deadline(self) -> float | None:
        """When :meth:`poll` next has work."""
        return self.session.next_deadline()

    def data_to_send(self) -> bytes:
        """Bytes for the host."""
        return self.session.data_to_send()

    @property
    def connected(self) -> bool:
        """True while the session with a host is up."""
        return self.session.state is LinkState.UP

    def _command(self, message: Message) -> None:
        self.commands.append(message)
        match message:
            case SnapshotReq(req_id=req_id):
                self.snapshot(req_id)
            case Reboot(magic=magic) if magic == REBOOT_MAGIC:
                self.reboot()
            case SetConfig() if not message.in_range:
                pass  # the session answered CONFIG_REJECTED; nothing changes
            case ShoeReset() | Indicate() | SetConfig():
                self._on_command(message)
            case _:
                pass

    def _on_command(self, message: Message) -> None:
        """Device-specific commands (SHOE_RESET...)."""

    # ---- output ------------------------------------------------------------------------------

    @property
    def uptime_ms(self) -> int:
        """Milliseconds since boot (u32)."""
        return self.session.uptime_ms(self.clock.monotonic())

    def emit(self, message: Message) -> bool:
        """Queue a reliable event; False (and counted in :attr:`lost`) if the queue is full,
        which the session reports to the host as a real device does."""
        try:
            self.session.send(message, self.clock.monotonic())
        except QueueOverflowError:
            self.lost += 1
            _LOGGER.warning("%s: queue full, event lost: %s", self.kind.name, message)
            return False
        finally:
            if self.on_output is not None:
                self.on_output()
        return True

    def snapshot(self, req_id: int) -> None:
        """Send every antenna's present-set, then SNAPSHOT_DONE (the reply to SNAPSHOT_REQ)."""
        for antenna, tags in enumerate(self.present):
            self.emit(AntennaState(req_id, antenna,
                                   tuple(TagId(tech, uid) for uid, (tech, _) in tags.items())))
        self.emit(SnapshotDone(req_id, self.antenna_count))

    def reboot(self) -> None:
        """Restart: a new boot id, a new session; unacknowledged events are lost (as on a
        power cut) and the device announces itself with an unsolicited HELLO_ACK."""
        self.session = self._new_session()
        self._on_reboot()
        self.session.connect(self.clock.monotonic())
        if self.on_output is not None:
            self.on_output()

    def _on_reboot(self) -> None:
        """Device-specific state lost on reboot."""


def deck_uids(deck: Deck) -> list[bytes]:
    """The deck's UIDs as bytes, in the deck's card order."""
    return [bytes.fromhex(uid) for uid in deck.uids_by_card.values()]


class SimShoe(SimDevice):
    """An RFID card shoe holding a shuffled registered deck.

    Every card drawn passes the shoe's antenna (0) and produces TAG_SEEN with the draw index
    since the last SHOE_RESET (burns are draws like any other); the shoe reports edges only
    (a card leaving the shoe needs no TAG_GONE).

    Args:
        deck: the registered deck in the shoe.
        shuffle: shuffle the deck with the device's seed (else deck order).
    """

    def __init__(self, deck: Deck, *, clock: Clock, seed: int = 0,
                 config: SessionConfig | None = None, tech: Tech = Tech.ISO14443A,
                 shuffle: bool = True, random_boot: bool = False) -> None:
        self._sent: list[Message] = []
        super().__init__(DeviceKind.SHOE, 1, Caps.PASSAGE_SENSOR, clock=clock, seed=seed,
                         config=config, random_boot=random_boot)
        self.deck = deck
        self.tech = tech
        self._shuffle = shuffle
        self.index = 0
        self.order: list[Card] = []
        self.new_shoe()

    def new_shoe(self) -> None:
        """Load the whole deck again (shuffled) and restart the draw index."""
        self.order = list(self.deck.uids_by_card)
        if self._shuffle:
            self.rng.shuffle(self.order)
        self.index = 0

    @property
    def remaining(self) -> int:
        """Cards left in the shoe."""
        return len(self.order)

    def _take(self, card: Card | None) -> Card:
        if not self.order:
            raise IndexError("the shoe is empty")
        if card is None:
            return self.order.pop(0)
        self.order.remove(card)  # ValueError if it is not in the shoe
        return card

    def _read(self, uid: bytes) -> TagSeen:
        read = TagSeen(0, self.tech, self.uptime_ms, self.index & 0xFFFF, 0, uid)
        self.index += 1
        self.emit(read)
        return read

    def draw(self, card: Card | None = None) -> TagSeen:
        """Draw the next card (or a given one, for scenarios): the read a real shoe sends.

        Raises:
            IndexError: the shoe is empty. ValueError: ``card`` is not in the shoe.
        """
        taken = self._take(card)
        return self._read(bytes.fromhex(self.deck.uid_for(taken)))

    def draw_face_up(self, card: Card | None = None) -> TagSeen:
        """A card dealt face up by mistake: the shoe cannot tell; the read is a normal one."""
        return self.draw(card)

    def duplicate_read(self) -> TagSeen:
        """The last tag read again (a flaky antenna): a second TAG_SEEN, next index.

        Raises:
            LookupError: nothing was drawn yet.
        """
        last = next((m for m in reversed(self.session_sent) if isinstance(m, TagSeen)), None)
        if last is None:
            raise LookupError("no card drawn yet")
        return self._read(last.uid)

    def foreign_tag(self, uid: bytes) -> TagSeen:
        """A card of another deck passes the antenna (its UID is not in this deck)."""
        return self._read(uid)

    def misread(self, card: Card | None = None) -> Misread:
        """A card passes without its tag being read: the passage sensor reports MISREAD
        (reason NO_TAG); the draw index still counts the card."""
        self._take(card)
        miss = Misread(0, self.uptime_ms, MisreadReason.NO_TAG)
        self.index += 1
        self.emit(miss)
        return miss

    def two_at_once(self) -> list[TagSeen]:
        """Two cards slide out together: anti-collision reads both, same time, two indexes."""
        first, second = self._take(None), self._take(None)
        t = self.uptime_ms
        reads = []
        for card in (first, second):
            read = TagSeen(0, self.tech, t, self.index & 0xFFFF, 0,
                           bytes.fromhex(self.deck.uid_for(card)))
            self.index += 1
            self.emit(read)
            reads.append(read)
        return reads

    @property
    def session_sent(self) -> list[Message]:
        """Events this shoe produced since boot (newest last)."""
        return self._sent

    def emit(self, message: Message) -> bool:
        """See :meth:`SimDevice.emit`; also remembered for :meth:`duplicate_read`."""
        self._sent.append(message)
        return super().emit(message)

    def _on_command(self, message: Message) -> None:
        if isinstance(message, ShoeReset):
            self.index = 0

    def _on_reboot(self) -> None:
        self.index = 0
        self._sent.clear()


@dataclass(frozen=True, slots=True)
class AntennaRole:
    """What one table antenna covers.

    Attributes:
        kind: ``seat``, ``board``, ``muck`` or ``burn``.
        number: seat number (1-based) or board position (1..5); 0 otherwise.
        slot: hole-card slot on a seat antenna (0 when one antenna covers the seat).
    """

    kind: str
    number: int = 0
    slot: int = 0

    def __post_init__(self) -> None:
        if self.kind not in {"seat", "board", "muck", "burn"}:
            raise ValueError(f"unknown antenna role {self.kind!r}")

    def __str__(self) -> str:
        if self.kind in {"muck", "burn"}:
            return self.kind
        return f"{self.kind}{self.number}" + (f".{self.slot}" if self.slot else "")


def standard_roles(seats: int, board: int = 5) -> list[AntennaRole]:
    """One antenna per seat, one per board position, then muck and burn."""
    return ([AntennaRole("seat", n) for n in range(1, seats + 1)]
            + [AntennaRole("board", n) for n in range(1, board + 1)]
            + [AntennaRole("muck"), AntennaRole("burn")])


class SimTable(SimDevice):
    """RFID table antennas with roles: TAG_SEEN when a tag lands, TAG_GONE when it leaves,
    the present-sets on SNAPSHOT_REQ; several tags may lie on one antenna.

    Args:
        roles: one :class:`AntennaRole` per antenna, antenna number = list index.
        deck: optional, for the card-level helpers.
    """

    def __init__(self, roles: Sequence[AntennaRole], *, clock: Clock, seed: int = 0,
                 deck: Deck | None = None, config: SessionConfig | None = None,
                 tech: Tech = Tech.ISO14443A, random_boot: bool = False) -> None:
        super().__init__(DeviceKind.TABLE, len(roles), Caps.TAG_GONE, clock=clock, seed=seed,
                         config=config, random_boot=random_boot)
        self.roles = list(roles)
        self.deck = deck
        self.tech = tech
        self.counters = [0] * len(self.roles)

    def antenna(self, role: str) -> int:
        """The antenna of a role written as ``seat3``, ``board1``, ``muck``, ``burn``.

        Raises:
            KeyError: no antenna has that role.
        """
        for i, r in enumerate(self.roles):
            if str(r) == role:
                return i
        raise KeyError(f"no antenna with role {role!r}")

    def _uid(self, card_or_uid: Card | bytes) -> bytes:
        if isinstance(card_or_uid, bytes):
            return card_or_uid
        if self.deck is None:
            raise ValueError("this table has no deck: pass UIDs")
        return bytes.fromhex(self.deck.uid_for(card_or_uid))

    def place(self, antenna: int | str, tag: Card | bytes) -> TagSeen | None:
        """A tag lands on an antenna (any antenna: a card on the wrong one is just a read
        there). None if it was already present (no edge, no event).

        Raises:
            KeyError / IndexError: no such antenna.
        """
        ant = self.antenna(antenna) if isinstance(antenna, str) else antenna
        uid = self._uid(tag)
        if uid in self.present[ant]:
            return None
        now = self.clock.monotonic()
        self.present[ant][uid] = (self.tech, now)
        read = TagSeen(ant, self.tech, self.uptime_ms, self.counters[ant] & 0xFFFF, 0, uid)
        self.counters[ant] += 1
        self.emit(read)
        return read

    def remove(self, antenna: int | str, tag: Card | bytes) -> TagGone | None:
        """A tag leaves an antenna: TAG_GONE with its dwell time; None if it was not there."""
        ant = self.antenna(antenna) if isinstance(antenna, str) else antenna
        uid = self._uid(tag)
        if uid not in self.present[ant]:
            return None
        tech, since = self.present[ant].pop(uid)
        now_ms = self.uptime_ms
        dwell = int((self.clock.monotonic() - since) * 1000)
        gone = TagGone(ant, tech, now_ms, dwell, uid)
        self.emit(gone)
        return gone

    def place_many(self, antenna: int | str, tags: Iterable[Card | bytes]) -> list[TagSeen]:
        """Several tags land together (two cards at once, a stack)."""
        return [r for t in tags if (r := self.place(antenna, t)) is not None]

    def clear(self) -> list[TagGone]:
        """Every tag leaves the table (end of hand)."""
        gone = []
        for ant, tags in enumerate(self.present):
            for uid in list(tags):
                g = self.remove(ant, uid)
                if g is not None:
                    gone.append(g)
        return gone

    def _on_reboot(self) -> None:
        # the cards still lie there: a rebooted reader finds them again on its first poll,
        # but reports them only through a snapshot (it has no memory of edges)
        self.counters = [0] * len(self.roles)


class SimKeypad(SimDevice):
    """The dealer's keypad: BUTTON events for press, release, long press.

    Args:
        keys: number of keys; keypad number 0.
        long_after: seconds a key is held before LONG is reported.
    """

    def __init__(self, *, clock: Clock, seed: int = 0, keys: int = 12,
                 config: SessionConfig | None = None, long_after: float = 0.8) -> None:
        super().__init__(DeviceKind.KEYPAD, 0, Caps.KEYPAD, clock=clock, seed=seed,
                         config=config)
        self.keys = keys
        self.long_after = long_after
        self._down: dict[int, float] = {}
        self._long_sent: set[int] = set()

    def _check(self, key: int) -> None:
        if not 0 <= key < self.keys:
            raise ValueError(f"no key {key} (keys 0..{self.keys - 1})")

    def press(self, key: int) -> Button:
        """A key goes down.

        Raises:
            ValueError: no such key, or it is already down.
        """
        self._check(key)
        if key in self._down:
            raise ValueError(f"key {key} is already down")
        self._down[key] = self.clock.monotonic()
        return self._button(key, ButtonAction.PRESS)

    def release(self, key: int) -> Button:
        """A key comes up; a LONG is reported first if it was held ``long_after`` seconds and
        :meth:`poll` has not reported it yet."""
        self._check(key)
        since = self._down.pop(key, None)
        if since is None:
            raise ValueError(f"key {key} is not down")
        if key not in self._long_sent and self.clock.monotonic() - since >= self.long_after:
            self._button(key, ButtonAction.LONG)
        self._long_sent.discard(key)
        return self._button(key, ButtonAction.RELEASE)

    def long_press(self, key: int) -> list[Button]:
        """Press, hold, release in one go (the clock does not move): PRESS, LONG, RELEASE."""
        out = [self.press(key), self._button(key, ButtonAction.LONG)]
        self._long_sent.add(key)
        out.append(self.release(key))
        return out

    def poll(self) -> None:
        """Timers, and LONG for keys held ``long_after`` seconds."""
        now = self.clock.monotonic()
        for key, since in list(self._down.items()):
            if key not in self._long_sent and now - since >= self.long_after:
                self._long_sent.add(key)
                self._button(key, ButtonAction.LONG)
        super().poll()

    def next_deadline(self) -> float | None:
        """Including the next LONG due."""
        times = [since + self.long_after for key, since in self._down.items()
                 if key not in self._long_sent]
        base = super().next_deadline()
        if base is not None:
            times.append(base)
        return min(times) if times else None

    def _button(self, key: int, action: ButtonAction) -> Button:
        button = Button(0, key, action, self.uptime_ms)
        self.emit(button)
        return button

    def _on_reboot(self) -> None:
        self._down.clear()
        self._long_sent.clear()
