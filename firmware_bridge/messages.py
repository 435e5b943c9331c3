"""Message catalogue of protocol v1: one frozen dataclass per frame type.

Payload fields are little-endian and listed in wire order (docs/protocol.md "Messages"; the
frame around them, with its CRC-32, is :mod:`firmware_bridge.frames`). UIDs travel MSB-first
as printed (ISO 15693: ``E0 04 ...``).

=====  =============  =====  ====  ==========================================================
type   name           dir    rel   payload
=====  =============  =====  ====  ==========================================================
0x01   HELLO          H->D   no    proto_major u8, proto_minor u8, host_nonce u32, host_flags u16
0x02   HELLO_ACK      D->H   no    proto_major u8, proto_minor u8, echo_nonce u32, boot_id u32,
                                   oldest_unacked_seq u16, uptime_ms u32, device_kind u8,
                                   antenna_count u8, caps u16, max_payload u8, hw_id_len u8,
                                   hw_id, fw_len u8, fw_version ASCII
0x03   HEARTBEAT      both   no    D->H: uptime_ms u32, status u16, tx_queue_len u8; H->D empty
0x04   ACK            both   no    ack_seq u16 (cumulative; 0 = none yet)
0x05   NAK            both   no    expected_seq u16
0x10   TAG_SEEN       D->H   yes   antenna u8, tech u8, t_ms u32, index u16, rssi u8,
                                   uid_len u8, uid
0x11   TAG_GONE       D->H   yes   antenna u8, tech u8, t_last_ms u32, dwell_ms u32,
                                   uid_len u8, uid
0x12   ANTENNA_STATE  D->H   yes   req_id u8, antenna u8, count u8, count x (tech u8,
                                   uid_len u8, uid)
0x13   SNAPSHOT_DONE  D->H   yes   req_id u8, antennas u8
0x14   MISREAD        D->H   yes   antenna u8, t_ms u32, reason u8
0x20   BUTTON         D->H   yes   keypad u8, key u8, action u8, t_ms u32
0x30   STATUS         D->H   yes   severity u8, code u16, antenna u8, t_ms u32, text_len u8, text
0x40   SET_CONFIG     H->D   yes   key u8, value u32
0x41   SNAPSHOT_REQ   H->D   yes   req_id u8
0x42   INDICATE       H->D   yes   target u8, pattern u8, duration_ms u16
0x43   SHOE_RESET     H->D   yes   (empty)
0x44   REBOOT         H->D   yes   magic u32 = 0x544F4F42
=====  =============  =====  ====  ==========================================================

A payload longer than its message needs is accepted (the tail is how a minor version adds
fields); a shorter one raises :class:`~firmware_bridge.errors.LengthError`.

>>> msg = TagSeen(antenna=3, tech=Tech.ISO15693, t_ms=123456, index=7, rssi=0,
...               uid=bytes.fromhex("E004010012345678"))
>>> decode_message(Frame(MessageType.TAG_SEEN, 42, msg.payload(), FrameFlags.ACK_REQ)) == msg
True
>>> msg.uid_hex
'E004010012345678'
"""

from __future__ import annotations

import struct
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from enum import IntEnum, IntFlag
from typing import ClassVar, Final, TypeAlias, TypeVar

from firmware_bridge.errors import LengthError, PayloadError
from firmware_bridge.frames import Frame, FrameFlags

PROTO_MAJOR: Final = 1
PROTO_MINOR: Final = 0
REBOOT_MAGIC: Final = 0x544F4F42
"""``"BOOT"`` as a little-endian u32."""


class MessageType(IntEnum):
    """Frame type byte."""

    HELLO = 0x01
    HELLO_ACK = 0x02
    HEARTBEAT = 0x03
    ACK = 0x04
    NAK = 0x05
    TAG_SEEN = 0x10
    TAG_GONE = 0x11
    ANTENNA_STATE = 0x12
    SNAPSHOT_DONE = 0x13
    MISREAD = 0x14
    BUTTON = 0x20
    STATUS = 0x30
    SET_CONFIG = 0x40
    SNAPSHOT_REQ = 0x41
    INDICATE = 0x42
    SHOE_RESET = 0x43
    REBOOT = 0x44


class DeviceKind(IntEnum):
    """``device_kind`` in HELLO_ACK."""

    SHOE = 1
    TABLE = 2
    KEYPAD = 3
    COMBO = 4


class Caps(IntFlag):
    """``caps`` bits in HELLO_ACK."""

    TAG_GONE = 0x01
    RSSI = 0x02
    KEYPAD = 0x04
    PASSAGE_SENSOR = 0x08
    POLLED = 0x10


class Tech(IntEnum):
    """Tag technology of a read."""

    UNKNOWN = 0
    ISO14443A = 1
    ISO15693 = 2
    ISO14443B = 3
    FELICA = 4
    EM4100 = 5


class HeartbeatStatus(IntFlag):
    """``status`` bits of a device heartbeat."""

    READER_FAULT = 0x01
    TX_QUEUE_OVERFLOW = 0x02
    """The device's send queue overflowed since the last HELLO (events were lost)."""
    ANTENNA_FAULT = 0x04


class MisreadReason(IntEnum):
    """Why a MISREAD was reported."""

    NO_TAG = 1
    """The passage sensor saw a card but no tag was read."""
    COLLISION = 2
    """Collision or too many tags."""
    RF_ERRORS = 3
    """Repeated RF CRC errors."""


class ButtonAction(IntEnum):
    """What happened to a keypad key."""

    PRESS = 1
    RELEASE = 2
    LONG = 3
    REPEAT = 4


class Severity(IntEnum):
    """STATUS severity."""

    INFO = 0
    WARN = 1
    ERROR = 2
    FATAL = 3


class StatusCode(IntEnum):
    """STATUS codes."""

    READER_INIT_FAILED = 1
    ANTENNA_FAULT = 2
    LINK_CRC_ERRORS = 3
    TX_QUEUE_OVERFLOW = 4
    """Events were lost: the host must request a snapshot; a shoe's hand is invalid."""
    UNKNOWN_TYPE = 5
    BAD_PAYLOAD = 6
    WATCHDOG_RESET = 7
    BROWNOUT_RESET = 8
    CONFIG_REJECTED = 9


class ConfigKey(IntEnum):
    """SET_CONFIG keys."""

    POLL_INTERVAL_MS = 1
    GONE_DEBOUNCE_MS = 2
    HEARTBEAT_MS = 3
    RETRANSMIT_MS = 4
    RSSI_MIN = 5


CONFIG_RANGES: Final[dict[ConfigKey, tuple[int, int]]] = {
    ConfigKey.POLL_INTERVAL_MS: (1, 10_000),
    ConfigKey.GONE_DEBOUNCE_MS: (0, 60_000),
    ConfigKey.HEARTBEAT_MS: (100, 2_999),   # below the 3 s after which the link is dead
    ConfigKey.RETRANSMIT_MS: (20, 5_000),
    ConfigKey.RSSI_MIN: (0, 255),
}
"""The values a device takes for each SET_CONFIG key, inclusive (docs/protocol.md, Messages);
any other value is answered STATUS CONFIG_REJECTED and changes nothing."""


_NO_ANTENNA: Final = 0xFF


def _need(payload: bytes, size: int, name: str) -> None:
    if len(payload) < size:
        raise LengthError(f"{name} payload of {len(payload)} bytes, needs at least {size}")


_E = TypeVar("_E", bound=IntEnum)


def _enum(cls: type[_E], value: int) -> _E:
    try:
        return cls(value)
    except ValueError:
        raise PayloadError(f"{cls.__name__}: unknown value {value}") from None


def _check_u(value: int, bits: int, name: str) -> None:
    if not 0 <= value < (1 << bits):
        raise ValueError(f"{name} must fit in u{bits}: {value}")


def _check_uid(uid: bytes) -> None:
    if not 1 <= len(uid) <= 16:
        raise ValueError(f"UID of {len(uid)} bytes, expected 1..16")


@dataclass(frozen=True, slots=True)
class Hello:
    """HELLO (host -> device): opens a session; the device answers HELLO_ACK."""

    TYPE: ClassVar[MessageType] = MessageType.HELLO
    host_nonce: int
    proto_major: int = PROTO_MAJOR
    proto_minor: int = PROTO_MINOR
    host_flags: int = 0

    def __post_init__(self) -> None:
        _check_u(self.host_nonce, 32, "host_nonce")

    def payload(self) -> bytes:
        """Encoded payload."""
        return struct.pack("<BBIH", self.proto_major, self.proto_minor, self.host_nonce,
                           self.host_flags)

    @classmethod
    def from_payload(cls, p: bytes) -> Hello:
        """Decode; LengthError if short."""
        _need(p, 8, "HELLO")
        major, minor, nonce, flags = struct.unpack_from("<BBIH", p)
        return cls(host_nonce=nonce, proto_major=major, proto_minor=minor, host_flags=flags)


@dataclass(frozen=True, slots=True)
class HelloAck:
    """HELLO_ACK (device -> host): who the device is and where its sequence stands.

    Attributes:
        echo_nonce: the HELLO's nonce, 0 when sent unsolicited at boot.
        boot_id: random per boot; a new one means the device restarted.
        oldest_unacked_seq: the seq the host must expect next.
        hw_id: MCU unique id (≤16 bytes). fw_version: ASCII, ≤32 characters.
    """

    TYPE: ClassVar[MessageType] = MessageType.HELLO_ACK
    echo_nonce: int
    boot_id: int
    oldest_unacked_seq: int
    uptime_ms: int
    device_kind: DeviceKind
    antenna_count: int
    caps: Caps
    hw_id: bytes
    fw_version: str
    max_payload: int = 240
    proto_major: int = PROTO_MAJOR
    proto_minor: int = PROTO_MINOR

    def __post_init__(self) -> None:
        _check_u(self.echo_nonce, 32, "echo_nonce")
        _check_u(self.boot_id, 32, "boot_id")
        _check_u(self.oldest_unacked_seq, 16, "oldest_unacked_seq")
        _check_u(self.uptime_ms, 32, "uptime_ms")
        if len(self.hw_id) > 16:
            raise ValueError("hw_id longer than 16 bytes")
        if len(self.fw_version) > 32 or not self.fw_version.isascii():
            raise ValueError("fw_version must be ASCII, at most 32 characters")

    def payload(self) -> bytes:
        """Encoded payload."""
        fw = self.fw_version.encode("ascii")
        return (struct.pack("<BBIIHIBBHB", self.proto_major, self.proto_minor, self.echo_nonce,
                            self.boot_id, self.oldest_unacked_seq, self.uptime_ms,
                            self.device_kind, self.antenna_count, self.caps, self.max_payload)
                + bytes([len(self.hw_id)]) + self.hw_id + bytes([len(fw)]) + fw)

    @classmethod
    def from_payload(cls, p: bytes) -> HelloAck:
        """Decode; LengthError if short, PayloadError on a bad field."""
        head = struct.Struct("<BBIIHIBBHB")
        _need(p, head.size + 1, "HELLO_ACK")
        (major, minor, nonce, boot, oldest, uptime, kind, ants, caps,
         max_payload) = head.unpack_from(p)
        i = head.size
        hw_len = p[i]
        _need(p, i + 1 + hw_len + 1, "HELLO_ACK")
        hw_id = p[i + 1 : i + 1 + hw_len]
        i += 1 + hw_len
        fw_len = p[i]
        _need(p, i + 1 + fw_len, "HELLO_ACK")
        fw_raw = p[i + 1 : i + 1 + fw_len]
        if len(hw_id) > 16 or fw_len > 32 or not fw_raw.isascii():
            raise PayloadError("HELLO_ACK: bad hw_id or fw_version")
        return cls(echo_nonce=nonce, boot_id=boot, oldest_unacked_seq=oldest, uptime_ms=uptime,
                   device_kind=_enum(DeviceKind, kind), antenna_count=ants, caps=Caps(caps),
                   hw_id=hw_id, fw_version=fw_raw.decode("ascii"), max_payload=max_payload,
                   proto_major=major, proto_minor=minor)


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """HEARTBEAT: empty from the host; uptime, status and queue length from a device."""

    TYPE: ClassVar[MessageType] = MessageType.HEARTBEAT
    uptime_ms: int | None = None
    status: HeartbeatStatus = HeartbeatStatus(0)  # noqa: RUF009 (an immutable int flag)
    tx_queue_len: int = 0

    def payload(self) -> bytes:
        """Encoded payload (empty when ``uptime_ms`` is None)."""
        if self.uptime_ms is None:
            return b""
        return struct.pack("<IHB", self.uptime_ms, self.status, min(self.tx_queue_len, 255))

    @classmethod
    def from_payload(cls, p: bytes) -> Heartbeat:
        """Decode (an empty payload is the host's form)."""
        if not p:
            return cls()
        _need(p, 7, "HEARTBEAT")
        uptime, status, qlen = struct.unpack_from("<IHB", p)
        return cls(uptime, HeartbeatStatus(status), qlen)


@dataclass(frozen=True, slots=True)
class Ack:
    """ACK: the highest seq received in order (cumulative)."""

    TYPE: ClassVar[MessageType] = MessageType.ACK
    ack_seq: int

    def payload(self) -> bytes:
        """Encoded payload."""
        return struct.pack("<H", self.ack_seq)

    @classmethod
    def from_payload(cls, p: bytes) -> Ack:
        """Decode."""
        _need(p, 2, "ACK")
        return cls(struct.unpack_from("<H", p)[0])


@dataclass(frozen=True, slots=True)
class Nak:
    """NAK: the receiver saw a gap; resend from ``expected_seq`` (go-back-N)."""

    TYPE: ClassVar[MessageType] = MessageType.NAK
    expected_seq: int

    def payload(self) -> bytes:
        """Encoded payload."""
        return struct.pack("<H", self.expected_seq)

    @classmethod
    def from_payload(cls, p: bytes) -> Nak:
        """Decode."""
        _need(p, 2, "NAK")
        return cls(struct.unpack_from("<H", p)[0])


@dataclass(frozen=True, slots=True)
class TagSeen:
    """TAG_SEEN: a tag appeared on an antenna (shoe: a card was drawn).

    Attributes:
        t_ms: device uptime at first detection, ms (u32, wraps).
        index: per-antenna event counter; on a shoe the draw index since SHOE_RESET.
        rssi: 0 when not available.
    """

    TYPE: ClassVar[MessageType] = MessageType.TAG_SEEN
    antenna: int
    tech: Tech
    t_ms: int
    index: int
    rssi: int
    uid: bytes

    def __post_init__(self) -> None:
        _check_uid(self.uid)
        _check_u(self.t_ms, 32, "t_ms")
        _check_u(self.index, 16, "index")

    @property
    def uid_hex(self) -> str:
        """The UID as upper-case hex, as deck files write it."""
        return self.uid.hex().upper()

    def payload(self) -> bytes:
        """Encoded payload."""
        return struct.pack("<BBIHBB", self.antenna, self.tech, self.t_ms, self.index, self.rssi,
                           len(self.uid)) + self.uid

    @classmethod
    def from_payload(cls, p: bytes) -> TagSeen:
        """Decode."""
        _need(p, 10, "TAG_SEEN")
        antenna, tech, t_ms, index, rssi, uid_len = struct.unpack_from("<BBIHBB", p)
        _need(p, 10 + uid_len, "TAG_SEEN")
        uid = p[10 : 10 + uid_len]
        if not 1 <= uid_len <= 16:
            raise PayloadError(f"TAG_SEEN: UID of {uid_len} bytes")
        return cls(antenna, _enum(Tech, tech), t_ms, index, rssi, uid)


@dataclass(frozen=True, slots=True)
class TagGone:
    """TAG_GONE: a tag left an antenna (after the device's debounce).

    Attributes:
        t_last_ms: device uptime of the last successful read.
        dwell_ms: how long the tag was present.
    """

    TYPE: ClassVar[MessageType] = MessageType.TAG_GONE
    antenna: int
    tech: Tech
    t_last_ms: int
    dwell_ms: int
    uid: bytes

    def __post_init__(self) -> None:
        _check_uid(self.uid)
        _check_u(self.t_last_ms, 32, "t_last_ms")
        _check_u(self.dwell_ms, 32, "dwell_ms")

    @property
    def uid_hex(self) -> str:
        """The UID as upper-case hex."""
        return self.uid.hex().upper()

    def payload(self) -> bytes:
        """Encoded payload."""
        return struct.pack("<BBIIB", self.antenna, self.tech, self.t_last_ms, self.dwell_ms,
                           len(self.uid)) + self.uid

    @classmethod
    def from_payload(cls, p: bytes) -> TagGone:
        """Decode."""
        _need(p, 11, "TAG_GONE")
        antenna, tech, t_last, dwell, uid_len = struct.unpack_from("<BBIIB", p)
        _need(p, 11 + uid_len, "TAG_GONE")
        if not 1 <= uid_len <= 16:
            raise PayloadError(f"TAG_GONE: UID of {uid_len} bytes")
        return cls(antenna, _enum(Tech, tech), t_last, dwell, p[11 : 11 + uid_len])


@dataclass(frozen=True, slots=True)
class TagId:
    """One tag in an ANTENNA_STATE present-set."""

    tech: Tech
    uid: bytes

    def __post_init__(self) -> None:
        _check_uid(self.uid)

    @property
    def uid_hex(self) -> str:
        """The UID as upper-case hex."""
        return self.uid.hex().upper()


@dataclass(frozen=True, slots=True)
class AntennaState:
    """ANTENNA_STATE: the full present-set of one antenna, in reply to SNAPSHOT_REQ."""

    TYPE: ClassVar[MessageType] = MessageType.ANTENNA_STATE
    req_id: int
    antenna: int
    tags: tuple[TagId, ...] = ()

    def payload(self) -> bytes:
        """Encoded payload."""
        out = bytearray((self.req_id, self.antenna, len(self.tags)))
        for tag in self.tags:
            out += bytes((tag.tech, len(tag.uid))) + tag.uid
        if len(out) > 240:
            raise LengthError(f"ANTENNA_STATE of {len(out)} bytes does not fit in a frame")
        return bytes(out)

    @classmethod
    def from_payload(cls, p: bytes) -> AntennaState:
        """Decode."""
        _need(p, 3, "ANTENNA_STATE")
        req_id, antenna, count = p[0], p[1], p[2]
        i = 3
        tags = []
        for _ in range(count):
            _need(p, i + 2, "ANTENNA_STATE")
            tech, uid_len = p[i], p[i + 1]
            _need(p, i + 2 + uid_len, "ANTENNA_STATE")
            if not 1 <= uid_len <= 16:
                raise PayloadError(f"ANTENNA_STATE: UID of {uid_len} bytes")
            tags.append(TagId(_enum(Tech, tech), p[i + 2 : i + 2 + uid_len]))
            i += 2 + uid_len
        return cls(req_id, antenna, tuple(tags))


@dataclass(frozen=True, slots=True)
class SnapshotDone:
    """SNAPSHOT_DONE: every ANTENNA_STATE of request ``req_id`` has been sent."""

    TYPE: ClassVar[MessageType] = MessageType.SNAPSHOT_DONE
    req_id: int
    antennas: int

    def payload(self) -> bytes:
        """Encoded payload."""
        return bytes((self.req_id, self.antennas))

    @classmethod
    def from_payload(cls, p: bytes) -> SnapshotDone:
        """Decode."""
        _need(p, 2, "SNAPSHOT_DONE")
        return cls(p[0], p[1])


@dataclass(frozen=True, slots=True)
class Misread:
    """MISREAD: the device knows it missed a read (e.g. a card passed without a tag read)."""

    TYPE: ClassVar[MessageType] = MessageType.MISREAD
    antenna: int
    t_ms: int
    reason: MisreadReason

    def payload(self) -> bytes:
        """Encoded payload."""
        return struct.pack("<BIB", self.antenna, self.t_ms, self.reason)

    @classmethod
    def from_payload(cls, p: bytes) -> Misread:
        """Decode."""
        _need(p, 6, "MISREAD")
        antenna, t_ms, reason = struct.unpack_from("<BIB", p)
        return cls(antenna, t_ms, _enum(MisreadReason, reason))


@dataclass(frozen=True, slots=True)
class Button:
    """BUTTON: a keypad key was pressed, released, held (long) or auto-repeated."""

    TYPE: ClassVar[MessageType] = MessageType.BUTTON
    keypad: int
    key: int
    action: ButtonAction
    t_ms: int

    def payload(self) -> bytes:
        """Encoded payload."""
        return struct.pack("<BBBI", self.keypad, self.key, self.action, self.t_ms)

    @classmethod
    def from_payload(cls, p: bytes) -> Button:
        """Decode."""
        _need(p, 7, "BUTTON")
        keypad, key, action, t_ms = struct.unpack_from("<BBBI", p)
        return cls(keypad, key, _enum(ButtonAction, action), t_ms)


@dataclass(frozen=True, slots=True)
class Status:
    """STATUS: a device condition (``antenna`` 0xFF when not about one antenna).

    ``code`` is an int so that codes newer than this catalogue still arrive; compare it with
    :class:`StatusCode`.
    """

    TYPE: ClassVar[MessageType] = MessageType.STATUS
    severity: Severity
    code: int
    t_ms: int
    antenna: int = _NO_ANTENNA
    text: str = ""

    def __post_init__(self) -> None:
        if self.code in StatusCode._value2member_map_:
            object.__setattr__(self, "code", StatusCode(self.code))
        if len(self.text) > 64 or not self.text.isascii():
            raise ValueError("STATUS text must be ASCII, at most 64 characters")

    def payload(self) -> bytes:
        """Encoded payload."""
        text = self.text.encode("ascii")
        return struct.pack("<BHBIB", self.severity, self.code, self.antenna, self.t_ms,
                           len(text)) + text

    @classmethod
    def from_payload(cls, p: bytes) -> Status:
        """Decode."""
        _need(p, 9, "STATUS")
        severity, code, antenna, t_ms, text_len = struct.unpack_from("<BHBIB", p)
        _need(p, 9 + text_len, "STATUS")
        raw = p[9 : 9 + text_len]
        if text_len > 64 or not raw.isascii():
            raise PayloadError("STATUS: bad text")
        return cls(_enum(Severity, severity), code, t_ms, antenna, raw.decode("ascii"))


@dataclass(frozen=True, slots=True)
class SetConfig:
    """SET_CONFIG (host -> device)."""

    TYPE: ClassVar[MessageType] = MessageType.SET_CONFIG
    key: ConfigKey
    value: int

    def payload(self) -> bytes:
        """Encoded payload."""
        return struct.pack("<BI", self.key, self.value)

    @property
    def in_range(self) -> bool:
        """True when a device takes this value for this key (:data:`CONFIG_RANGES`)."""
        low, high = CONFIG_RANGES[self.key]
        return low <= self.value <= high

    @classmethod
    def from_payload(cls, p: bytes) -> SetConfig:
        """Decode."""
        _need(p, 5, "SET_CONFIG")
        key, value = struct.unpack_from("<BI", p)
        return cls(_enum(ConfigKey, key), value)


@dataclass(frozen=True, slots=True)
class SnapshotReq:
    """SNAPSHOT_REQ (host -> device): send every antenna's present-set."""

    TYPE: ClassVar[MessageType] = MessageType.SNAPSHOT_REQ
    req_id: int

    def payload(self) -> bytes:
        """Encoded payload."""
        return bytes((self.req_id,))

    @classmethod
    def from_payload(cls, p: bytes) -> SnapshotReq:
        """Decode."""
        _need(p, 1, "SNAPSHOT_REQ")
        return cls(p[0])


@dataclass(frozen=True, slots=True)
class Indicate:
    """INDICATE (host -> device): blink an LED or sound a buzzer."""

    TYPE: ClassVar[MessageType] = MessageType.INDICATE
    target: int
    pattern: int
    duration_ms: int

    def payload(self) -> bytes:
        """Encoded payload."""
        return struct.pack("<BBH", self.target, self.pattern, self.duration_ms)

    @classmethod
    def from_payload(cls, p: bytes) -> Indicate:
        """Decode."""
        _need(p, 4, "INDICATE")
        return cls(*struct.unpack_from("<BBH", p))


@dataclass(frozen=True, slots=True)
class ShoeReset:
    """SHOE_RESET (host -> device): a new shoe; draw indexes restart at 0."""

    TYPE: ClassVar[MessageType] = MessageType.SHOE_RESET

    def payload(self) -> bytes:
        """Encoded payload (empty)."""
        return b""

    @classmethod
    def from_payload(cls, p: bytes) -> ShoeReset:
        """Decode."""
        return cls()


@dataclass(frozen=True, slots=True)
class Reboot:
    """REBOOT (host -> device): restart the device (``magic`` guards against noise)."""

    TYPE: ClassVar[MessageType] = MessageType.REBOOT
    magic: int = REBOOT_MAGIC

    def payload(self) -> bytes:
        """Encoded payload."""
        return struct.pack("<I", self.magic)

    @classmethod
    def from_payload(cls, p: bytes) -> Reboot:
        """Decode."""
        _need(p, 4, "REBOOT")
        return cls(struct.unpack_from("<I", p)[0])


@dataclass(frozen=True, slots=True)
class UnknownMessage:
    """A frame whose type this catalogue does not know (reliable ones are still ACKed)."""

    type: int
    payload_bytes: bytes = field(default=b"")

    def payload(self) -> bytes:
        """The raw payload."""
        return self.payload_bytes


Message: TypeAlias = (
    Hello | HelloAck | Heartbeat | Ack | Nak | TagSeen | TagGone | AntennaState | SnapshotDone
    | Misread | Button | Status | SetConfig | SnapshotReq | Indicate | ShoeReset | Reboot
    | UnknownMessage
)
"""Every message of protocol v1, plus :class:`UnknownMessage`."""

KnownMessage: TypeAlias = (
    Hello | HelloAck | Heartbeat | Ack | Nak | TagSeen | TagGone | AntennaState | SnapshotDone
    | Misread | Button | Status | SetConfig | SnapshotReq | Indicate | ShoeReset | Reboot
)

MESSAGE_CLASSES: Final[Mapping[MessageType, type[KnownMessage]]] = {
    cls.TYPE: cls for cls in typing.get_args(KnownMessage)
}
_DECODERS: Final[Mapping[int, Callable[[bytes], KnownMessage]]] = {
    int(t): cls.from_payload for t, cls in MESSAGE_CLASSES.items()
}

RELIABLE_TYPES: Final = frozenset({
    MessageType.TAG_SEEN, MessageType.TAG_GONE, MessageType.ANTENNA_STATE,
    MessageType.SNAPSHOT_DONE, MessageType.MISREAD, MessageType.BUTTON, MessageType.STATUS,
    MessageType.SET_CONFIG, MessageType.SNAPSHOT_REQ, MessageType.INDICATE,
    MessageType.SHOE_RESET, MessageType.REBOOT,
})
"""Types that travel in reliable (sequenced, acknowledged) frames."""


def message_type(message: Message) -> int:
    """The type byte of ``message``."""
    if isinstance(message, UnknownMessage):
        return message.type
    return int(message.TYPE)


def is_reliable(message: Message) -> bool:
    """True for types that travel in sequenced, acknowledged frames."""
    return message_type(message) in RELIABLE_TYPES


def encode_message(message: Message, seq: int = 0, *, retx: bool = False) -> Frame:
    """The frame carrying ``message``; reliable types need ``seq`` 1..65535.

    Raises:
        ValueError: seq missing on a reliable message, or given on an unreliable one.
        LengthError: the payload does not fit in a frame.
    """
    reliable = is_reliable(message)
    if reliable and not 1 <= seq <= 0xFFFF:
        raise ValueError(f"{type(message).__name__} is reliable: seq must be 1..65535")
    if not reliable and seq:
        raise ValueError(f"{type(message).__name__} is not reliable: seq must be 0")
    flags = FrameFlags(0)
    if reliable:
        flags |= FrameFlags.ACK_REQ
    if retx:
        flags |= FrameFlags.RETX
    return Frame(message_type(message), seq, message.payload(), flags)


def decode_message(frame: Frame) -> Message:
    """The message a frame carries (an :class:`UnknownMessage` for unknown types).

    Raises:
        LengthError: payload shorter than the message needs.
        PayloadError: a field outside its range.
    """
    decoder = _DECODERS.get(frame.type)
    if decoder is None:
        return UnknownMessage(frame.type, frame.payload)
    return decoder(frame.payload)


def message_to_json(message: Message) -> dict[str, object]:
    """A JSON-ready dict: ``{"type": NAME, field: value, ...}``; bytes as upper-case hex,
    enums by name, flags as int.

    >>> message_to_json(Ack(7))
    {'type': 'ACK', 'ack_seq': 7}
    """
    if isinstance(message, UnknownMessage):
        return {"type": message.type, "payload": message.payload_bytes.hex().upper()}
    out: dict[str, object] = {"type": message.TYPE.name}
    for f in fields(message):
        out[f.name] = _to_json(getattr(message, f.name))
    return out


def _to_json(value: object) -> object:
    if isinstance(value, IntFlag):
        return int(value)
    if isinstance(value, IntEnum):
        return value.name
    if isinstance(value, bytes):
        return value.hex().upper()
    if isinstance(value, tuple):
        return [{"tech": t.tech.name, "uid": t.uid_hex} for t in value if isinstance(t, TagId)]
    return value


def message_from_json(obj: Mapping[str, object]) -> Message:
    """Inverse of :func:`message_to_json`; missing fields take their defaults.

    Raises:
        ValueError: unknown type, missing or unknown field, or a value of the wrong kind.
    """
    type_name = obj.get("type")
    if isinstance(type_name, int):
        if type_name in _DECODERS:
            type_name = MessageType(type_name).name
        else:
            raw = obj.get("payload", "")
            if not isinstance(raw, str):
                raise ValueError("payload: expected a hex string")
            return UnknownMessage(type_name, bytes.fromhex(raw))
    if not isinstance(type_name, str) or type_name.upper() not in MessageType.__members__:
        raise ValueError(f"unknown message type: {type_name!r}")
    cls = MESSAGE_CLASSES[MessageType[type_name.upper()]]
    hints = typing.get_type_hints(cls)
    names = {f.name for f in fields(cls)}
    extra = set(obj) - names - {"type", "seq", "retx"}
    if extra:
        raise ValueError(f"{type_name}: unknown field(s) {sorted(extra)}")
    kwargs = {name: _from_json(hints[name], obj[name], name) for name in names if name in obj}
    try:
        return cls(**kwargs)  # type: ignore[arg-type]
    except TypeError as exc:
        raise ValueError(f"{type_name}: {exc}") from None


def _from_json(hint: object, value: object, name: str) -> object:
    if hint is bytes:
        if not isinstance(value, str):
            raise ValueError(f"{name}: expected a hex string")
        return bytes.fromhex(value)
    if isinstance(hint, type) and issubclass(hint, IntFlag):
        if not isinstance(value, int):
            raise ValueError(f"{name}: expected an integer")
        return hint(value)
    if isinstance(hint, type) and issubclass(hint, IntEnum):
        if isinstance(value, str) and value.upper() in hint.__members__:
            return hint[value.upper()]
        if isinstance(value, int) and not isinstance(value, bool):
            return hint(value)
        raise ValueError(f"{name}: expected one of {list(hint.__members__)}")
    if hint is str:
        if not isinstance(value, str):
            raise ValueError(f"{name}: expected a string")
        return value
    if typing.get_origin(hint) is tuple:
        if not isinstance(value, list):
            raise ValueError(f"{name}: expected a list of tags")
        return tuple(TagId(_from_json(Tech, t["tech"], "tech"),  # type: ignore[arg-type]
                           _from_json(bytes, t["uid"], "uid"))  # type: ignore[arg-type]
                     for t in value)
    if name == "code" and isinstance(value, str) and value.upper() in StatusCode.__members__:
        return StatusCode[value.upper()]
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise ValueError(f"{name}: expected an integer")
