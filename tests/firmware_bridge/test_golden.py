"""Golden vectors of docs/protocol.md, checked byte for byte.

Independence from the codec under test: the header and payload bytes of six vectors are those
an independent prototype codec produced (CRC-16 era; docs/protocol.md "Golden vectors"); the
CRC is recomputed here with a bitwise CRC-32 written from the polynomial, and COBS is undone
with a separate reference decoder.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from firmware_bridge.frames import Frame, FrameDecoder, encode_frame
from firmware_bridge.messages import decode_message, encode_message, message_from_json

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"

# header + payload of the research prototype's vectors (its CRC-16 dropped)
RESEARCH_BODIES = {
    "HELLO": "10 01 00 00 01 00 ee ff c0 00 00 00",
    "TAG_SEEN": "11 10 2a 00 03 02 40 e2 01 00 07 00 00 08 e0 04 01 00 12 34 56 78",
    "ACK": "10 04 00 00 2a 00",
    "TAG_GONE": "11 11 2b 00 03 02 48 e8 01 00 08 06 00 00 08 e0 04 01 00 12 34 56 78",
    "BUTTON": "11 20 2c 00 00 05 01 30 ec 01 00",
    "HEARTBEAT": "10 03 00 00 e8 03 00 00 00 00 00",
}


def _vectors() -> list[tuple[dict[str, object], bytes, bytes]]:
    text = DOC.read_text(encoding="utf-8")
    out = []
    for block in re.findall(r"```vector\n(.*?)```", text, flags=re.S):
        lines = dict(line.split(None, 1) for line in block.strip().splitlines())
        out.append((json.loads(lines["message"]), bytes.fromhex(lines["frame"]),
                    bytes.fromhex(lines["wire"])))
    return out


VECTORS = _vectors()
IDS = [str(v[0]["type"]) + ("-retx" if v[0].get("retx") else "") for v in VECTORS]


def crc32_bitwise(data: bytes) -> int:
    """CRC-32/IEEE from its definition: reflected poly 0xEDB88320, init and xorout 0xFFFFFFFF."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0xEDB88320 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def cobs_reference_decode(wire: bytes) -> bytes:
    """Straight from the COBS paper: code byte n = n-1 data bytes, then a zero unless n == 255."""
    assert wire[-1] == 0 and 0 not in wire[:-1]
    data, out, i = wire[:-1], bytearray(), 0
    while i < len(data):
        n = data[i]
        out += data[i + 1 : i + n]
        i += n
        if n < 0xFF and i < len(data):
            out.append(0)
    return bytes(out)


def test_the_document_has_a_vector_for_every_message_type() -> None:
    names = {str(v[0]["type"]) for v in VECTORS}
    assert names == {"HELLO", "HELLO_ACK", "HEARTBEAT", "ACK", "NAK", "TAG_SEEN", "TAG_GONE",
                     "ANTENNA_STATE", "SNAPSHOT_DONE", "MISREAD", "BUTTON", "STATUS",
                     "SET_CONFIG", "SNAPSHOT_REQ", "INDICATE", "SHOE_RESET", "REBOOT"}


def test_crc32_check_value() -> None:
    assert crc32_bitwise(b"123456789") == 0xCBF43926


@pytest.mark.parametrize(("obj", "frame", "wire"), VECTORS, ids=IDS)
def test_vector_is_consistent_by_independent_means(obj: dict[str, object], frame: bytes,
                                                   wire: bytes) -> None:
    assert cobs_reference_decode(wire) == frame
    assert int.from_bytes(frame[-4:], "little") == crc32_bitwise(frame[:-4])
    assert frame[0] >> 4 == 1


@pytest.mark.parametrize("name", sorted(RESEARCH_BODIES))
def test_research_vectors_keep_their_header_and_payload(name: str) -> None:
    frames = [f for o, f, _ in VECTORS if o["type"] == name and not o.get("retx")]
    assert bytes.fromhex(RESEARCH_BODIES[name]) in [f[:-4] for f in frames]


@pytest.mark.parametrize(("obj", "frame", "wire"), VECTORS, ids=IDS)
def test_codec_encodes_and_decodes_the_vector(obj: dict[str, object], frame: bytes,
                                              wire: bytes) -> None:
    message = message_from_json(obj)
    seq = obj.get("seq", 0)
    assert isinstance(seq, int)
    encoded = encode_message(message, seq, retx=bool(obj.get("retx")))
    assert encoded.to_bytes() == frame
    assert encode_frame(encoded) == wire
    (decoded,) = FrameDecoder().feed(wire)
    assert isinstance(decoded, Frame)
    assert decoded == encoded
    assert decode_message(decoded) == message
