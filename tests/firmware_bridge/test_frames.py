"""Property tests of the frame codec: splits, garbage, corruption, bounds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.frames import (
    MAX_PAYLOAD,
    MAX_WIRE,
    Dropped,
    DropReason,
    Frame,
    FrameDecoder,
    FrameFlags,
    cobs_decode,
    cobs_encode,
    encode_frame,
)

frames_st = st.builds(
    lambda t, seq, payload, retx: Frame(t, seq, payload, FrameFlags.ACK_REQ
                                        | (FrameFlags.RETX if retx else FrameFlags(0))),
    st.integers(0, 255), st.integers(1, 0xFFFF), st.binary(max_size=MAX_PAYLOAD), st.booleans(),
) | st.builds(Frame, st.integers(0, 255), st.just(0), st.binary(max_size=MAX_PAYLOAD))


def _frames(items: list[Frame | Dropped]) -> list[Frame]:
    return [i for i in items if isinstance(i, Frame)]


@given(st.binary(max_size=1000))
def test_cobs_round_trip_and_no_zero(data: bytes) -> None:
    encoded = cobs_encode(data)
    assert 0 not in encoded
    assert cobs_decode(encoded) == data


@given(frames_st)
def test_frame_round_trip(frame: Frame) -> None:
    wire = encode_frame(frame)
    assert len(wire) <= 250
    assert FrameDecoder().feed(wire) == [frame]


@given(st.lists(frames_st, max_size=12), st.data())
def test_any_split_decodes_to_the_same_frames(frames: list[Frame], data: st.DataObject) -> None:
    stream = b"".join(encode_frame(f) for f in frames)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=30)))
    decoder = FrameDecoder()
    out: list[Frame | Dropped] = []
    for a, b in zip([0, *cuts], [*cuts, len(stream)], strict=True):
        out += decoder.feed(stream[a:b])
    assert out == frames
    assert decoder.buffered == 0


@given(st.lists(st.tuples(st.binary(max_size=600), frames_st), max_size=8),
       st.binary(max_size=300))
def test_garbage_between_frames_never_invents_a_frame(
        pairs: list[tuple[bytes, Frame]], tail: bytes) -> None:
    # each frame is preceded by the 00 a sender puts before a frame after other output
    stream = b"".join(g + b"\x00" + encode_frame(f) for g, f in pairs) + tail
    decoder = FrameDecoder()
    got = _frames(decoder.feed(stream))
    assert got == [f for _, f in pairs]
    assert decoder.buffered <= MAX_WIRE


@given(st.binary(max_size=3000), st.lists(st.integers(1, 64), max_size=50))
def test_feed_never_raises_and_stays_bounded(data: bytes, sizes: list[int]) -> None:
    decoder = FrameDecoder()
    i = 0
    for size in [*sizes, len(data)]:
        decoder.feed(data[i : i + size])
        i += size
        assert decoder.buffered <= MAX_WIRE


def _corrupt(wire: bytes, kind: str, pos: int, bit: int, byte: int) -> bytes:
    body = wire[:-1]
    i = pos % len(body)
    if kind == "flip":
        return body[:i] + bytes([body[i] ^ (1 << bit)]) + body[i + 1 :] + b"\x00"
    if kind == "drop":
        return body[:i] + body[i + 1 :] + b"\x00"
    if kind == "insert":
        return body[:i] + bytes([byte]) + body[i:] + b"\x00"
    return body[: max(0, i)] + b"\x00"  # truncate


@settings(max_examples=300)
@given(frames_st, st.sampled_from(["flip", "drop", "insert", "truncate"]), st.integers(0, 300),
       st.integers(0, 7), st.integers(1, 255), frames_st)
def test_every_corrupted_frame_is_dropped_and_counted(
        frame: Frame, kind: str, pos: int, bit: int, byte: int, after: Frame) -> None:
    wire = encode_frame(frame)
    bad = _corrupt(wire, kind, pos, bit, byte)
    decoder = FrameDecoder()
    out = decoder.feed(b"\x00" + bad + encode_frame(after))
    assert _frames(out) == [after]          # nothing invented, the next frame survives
    dropped = [i for i in out if isinstance(i, Dropped)]
    assert dropped or not bad.strip(b"\x00")  # a truncation to nothing is just a sync byte
    assert sum(decoder.drops.values()) == len(dropped)


def test_drop_reasons_are_told_apart() -> None:
    good = Frame(0x10, 5, b"abc", FrameFlags.ACK_REQ).to_bytes()
    bad_crc = good[:-1] + bytes([good[-1] ^ 1])
    v2 = bytes([0x21]) + good[1:-4]
    import binascii
    v2 += binascii.crc32(v2).to_bytes(4, "little")
    decoder = FrameDecoder()
    out = decoder.feed(
        b"\x05\x01\x00"                                   # COBS code past the end
        + cobs_encode(b"\x10\x04\x00") + b"\x00"          # 3 bytes: too short
        + cobs_encode(bad_crc) + b"\x00"
        + cobs_encode(v2) + b"\x00"
        + b"\x41" * (MAX_WIRE + 10) + b"\x00"
        + b"\x00\x00"                                     # empty frames are ignored
    )
    assert [d.reason for d in out if isinstance(d, Dropped)] == [
        DropReason.COBS, DropReason.LENGTH, DropReason.CRC, DropReason.VERSION,
        DropReason.TOO_LONG]
    assert dict(decoder.drops) == {r: 1 for r in DropReason}
    assert decoder.frames == 0
