"""Frames of protocol v1: layout, CRC-32, COBS, and a sans-IO stream decoder that resyncs.

Frame before encoding (all integers little-endian)::

    offset  size  field
    0       1     vf: bits 7-4 frame format version (1); bit 0 ACK_REQ; bit 1 RETX; bits 3-2 zero
    1       1     type (see firmware_bridge.messages)
    2       2     seq u16: 1..65535 on reliable frames (wraps 65535 -> 1), 0 on unreliable ones
    4       n     payload, n <= 240
    4+n     4     CRC-32 (IEEE, as binascii.crc32) u32 over bytes 0 .. 3+n

On the wire: ``COBS(frame) 0x00``. A frame is 8..248 bytes, its wire form at most 250. The
receiver ignores empty frames (``00 00``), drops a run of more than :data:`MAX_WIRE` bytes
without a delimiter and resyncs at the next ``00``, and drops (and counts, per reason) frames
that fail COBS, are too short or too long, carry another format version or fail the CRC.

>>> wire = encode_frame(Frame(type=0x04, seq=0, payload=bytes([42, 0])))
>>> [type(x).__name__ for x in FrameDecoder().feed(b"boot log\\x00" + wire)]
['Dropped', 'Frame']
"""

from __future__ import annotations

import binascii
import logging
import struct
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntFlag, StrEnum
from types import MappingProxyType
from typing import Final

from firmware_bridge.errors import ChecksumError, FrameError, LengthError

_LOGGER = logging.getLogger(__name__)
TRACE: Final = 5
"""Log level of raw frames (below DEBUG)."""

VERSION: Final = 1
"""Frame format version carried in the high nibble of ``vf``."""
MAX_PAYLOAD: Final = 240
HEADER_SIZE: Final = 4
CRC_SIZE: Final = 4
MIN_FRAME: Final = HEADER_SIZE + CRC_SIZE
MAX_FRAME: Final = HEADER_SIZE + MAX_PAYLOAD + CRC_SIZE
MAX_WIRE: Final = 256
"""Longest run of bytes without a delimiter the decoder keeps; longer runs are dropped."""
DELIMITER: Final = b"\x00"

_HEADER: Final = struct.Struct("<BBH")


class FrameFlags(IntFlag):
    """Flag bits of ``vf`` (bits 0-1)."""

    ACK_REQ = 0x01
    """A reliable frame: sequenced and acknowledged."""
    RETX = 0x02
    """This is a retransmission."""


class DropReason(StrEnum):
    """Why the decoder dropped a chunk of the byte stream."""

    TOO_LONG = "too_long"
    """More than MAX_WIRE bytes without a delimiter."""
    COBS = "cobs"
    """Not valid COBS."""
    LENGTH = "length"
    """Decoded frame shorter than 8 or longer than 248 bytes."""
    VERSION = "version"
    """Another frame format version, or reserved flag bits set."""
    CRC = "crc"
    """CRC-32 mismatch."""


def crc32(data: bytes) -> int:
    """CRC-32/IEEE of ``data`` (``binascii.crc32``; check value 0xCBF43926).

    >>> hex(crc32(b"123456789"))
    '0xcbf43926'
    """
    return binascii.crc32(data)


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: the result holds no zero byte.

    >>> cobs_encode(b"\\x11\\x00\\x22").hex(" ")
    '02 11 02 22'
    """
    out = bytearray()
    for run in data.split(b"\x00"):
        block = run
        while len(block) >= 254:
            out.append(0xFF)
            out += block[:254]
            block = block[254:]
        out.append(len(block) + 1)
        out += block
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """Invert :func:`cobs_encode`; accepts both forms of a trailing 254-byte run.

    Raises:
        FrameError: ``data`` is not valid COBS (a zero byte, or a code past the end).
    """
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        end = i + code
        if code == 0 or end > n:
            raise FrameError("bad COBS")
        block = data[i + 1 : end]
        if 0 in block:
            raise FrameError("bad COBS: zero byte")
        out += block
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


@dataclass(frozen=True, slots=True)
class Frame:
    """One decoded frame.

    Attributes:
        type: message type byte (see firmware_bridge.messages).
        seq: 1..65535 on reliable frames, 0 otherwise.
        payload: up to 240 bytes.
        flags: ACK_REQ and RETX bits.
    """

    type: int
    seq: int
    payload: bytes
    flags: FrameFlags = FrameFlags(0)  # noqa: RUF009 (an immutable int flag)

    def __post_init__(self) -> None:
        if not 0 <= self.type <= 0xFF:
            raise ValueError(f"frame type out of range: {self.type}")
        if not 0 <= self.seq <= 0xFFFF:
            raise ValueError(f"seq out of range: {self.seq}")
        if len(self.payload) > MAX_PAYLOAD:
            raise LengthError(f"payload of {len(self.payload)} bytes, at most {MAX_PAYLOAD}")
        if self.flags & FrameFlags.ACK_REQ and self.seq == 0:
            raise ValueError("a reliable frame needs seq 1..65535")

    @property
    def reliable(self) -> bool:
        """True when the frame asks for an acknowledgement."""
        return bool(self.flags & FrameFlags.ACK_REQ)

    def to_bytes(self) -> bytes:
        """The frame before COBS: header, payload, CRC-32 LE."""
        body = _HEADER.pack((VERSION << 4) | int(self.flags), self.type, self.seq) + self.payload
        return body + crc32(body).to_bytes(CRC_SIZE, "little")

    @classmethod
    def from_bytes(cls, body: bytes) -> Frame:
        """Parse a frame after COBS decoding.

        Raises:
            LengthError: shorter than 8 or longer than 248 bytes.
            FrameError: another format version or reserved bits set.
            ChecksumError: the CRC does not match.
        """
        if not MIN_FRAME <= len(body) <= MAX_FRAME:
            raise LengthError(f"frame of {len(body)} bytes, expected {MIN_FRAME}..{MAX_FRAME}")
        if int.from_bytes(body[-CRC_SIZE:], "little") != crc32(body[:-CRC_SIZE]):
            raise ChecksumError("CRC-32 mismatch")
        vf, ftype, seq = _HEADER.unpack_from(body)
        if vf >> 4 != VERSION or vf & 0x0C:
            raise FrameError(f"frame version byte {vf:#04x}, expected version {VERSION}")
        flags = FrameFlags(vf & 0x03)
        if flags & FrameFlags.ACK_REQ and seq == 0:
            raise FrameError("reliable frame with seq 0")
        return cls(ftype, seq, body[HEADER_SIZE:-CRC_SIZE], flags)


def encode_frame(frame: Frame) -> bytes:
    """The wire form of ``frame``: ``COBS(frame) 00``."""
    return cobs_encode(frame.to_bytes()) + DELIMITER


@dataclass(frozen=True, slots=True)
class Dropped:
    """A chunk of the byte stream the decoder threw away.

    Attributes:
        reason: why.
        raw: the chunk as received (COBS-encoded, without its delimiter; at most MAX_WIRE
            bytes are kept of an overlong run).
    """

    reason: DropReason
    raw: bytes


class FrameDecoder:
    """Sans-IO stream decoder: bytes in, frames (and drops) out.

    Feed it any split of the byte stream; it never raises, keeps at most :data:`MAX_WIRE`
    bytes, and yields a frame only when a whole delimited chunk decodes and passes the CRC.
    Each drop is counted in :attr:`drops` by reason.
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self._skipping = False
        self._drops: Counter[DropReason] = Counter()
        self.frames = 0
        """Frames decoded so far."""

    @property
    def drops(self) -> Mapping[DropReason, int]:
        """Chunks dropped so far, by reason (read-only view)."""
        return MappingProxyType(self._drops)

    @property
    def buffered(self) -> int:
        """Bytes held while waiting for a delimiter."""
        return len(self._buf)

    def feed(self, data: bytes) -> list[Frame | Dropped]:
        """Take the next bytes of the stream; return what they completed, in stream order."""
        out: list[Frame | Dropped] = []
        parts = data.split(DELIMITER)
        last = len(parts) - 1
        for n, part in enumerate(parts):
            if not self._skipping:
                self._buf += part
                if len(self._buf) > MAX_WIRE:
                    out.append(self._drop(DropReason.TOO_LONG, bytes(self._buf[:MAX_WIRE])))
                    self._buf.clear()
                    self._skipping = True
            if n == last:
                break
            if self._skipping:
                self._skipping = False
                continue
            if self._buf:
                raw = bytes(self._buf)
                self._buf.clear()
                out.append(self._decode(raw))
        return out

    def _decode(self, raw: bytes) -> Frame | Dropped:
        try:
            body = cobs_decode(raw)
        except FrameError:
            return self._drop(DropReason.COBS, raw)
        try:
            frame = Frame.from_bytes(body)
        except LengthError:
            return self._drop(DropReason.LENGTH, raw)
        except ChecksumError:
            return self._drop(DropReason.CRC, raw)
        except FrameError:
            return self._drop(DropReason.VERSION, raw)
        self.frames += 1
        if _LOGGER.isEnabledFor(TRACE):
            _LOGGER.log(TRACE, "rx frame %s", raw.hex(" "))
        return frame

    def _drop(self, reason: DropReason, raw: bytes) -> Dropped:
        self._drops[reason] += 1
        _LOGGER.log(TRACE, "dropped %s chunk %s", reason, raw.hex(" "))
        return Dropped(reason, raw)
