"""The firmware's frame decoder fuzzed against firmware_bridge's (the host's): random and
mutated byte streams go through ``fuzz-frames`` under ASan/UBSan; it must never crash, and
must accept exactly the frames the host's decoder accepts and drop the rest for the same
reason. A whole reader (session and commands) is fed the same streams and must survive."""

from __future__ import annotations

import subprocess
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_bridge.frames import (
    Dropped,
    Frame,
    FrameDecoder,
    FrameFlags,
    cobs_encode,
    crc32,
    encode_frame,
)
from firmware_bridge.messages import Hello, SetConfig, SnapshotReq, encode_message
from firmware_bridge.seq import seq_before, seq_next, seq_prev

from .harness import sanitizer_report

VALID = [
    encode_frame(encode_message(Hello(0xC0FFEE))),
    encode_frame(Frame(0x41, 1, b"\x09", FrameFlags.ACK_REQ)),
    encode_frame(encode_message(SnapshotReq(3), 2)),
    encode_frame(encode_message(SetConfig(2, 300), 3)),   # type: ignore[arg-type]
    encode_frame(Frame(0x99, 4, bytes(range(1, 200)), FrameFlags.ACK_REQ)),
    encode_frame(Frame(0x04, 0, b"\x01\x00")),
]


@st.composite
def chunks(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from(["valid", "mutated", "random", "long", "payload"]))
    if kind == "valid":
        return draw(st.sampled_from(VALID))
    if kind == "mutated":
        wire = bytearray(draw(st.sampled_from(VALID)))
        for _ in range(draw(st.integers(1, 4))):
            i = draw(st.integers(0, len(wire) - 1))
            wire[i] = draw(st.integers(0, 255))
        if draw(st.booleans()):
            del wire[draw(st.integers(0, len(wire) - 1))]
        return bytes(wire)
    if kind == "random":
        return draw(st.binary(min_size=1, max_size=80))
    if kind == "long":
        return bytes([draw(st.integers(1, 255))]) * draw(st.integers(240, 600)) + b"\x00"
    flags = FrameFlags(draw(st.integers(0, 3)))
    seq = draw(st.integers(0 if not flags & FrameFlags.ACK_REQ else 1, 0xFFFF))
    return encode_frame(Frame(draw(st.integers(0, 255)), seq,
                              draw(st.binary(max_size=240)), flags))


def expected_lines(stream: bytes) -> list[str]:
    decoder = FrameDecoder()
    lines = []
    for item in decoder.feed(stream):
        if isinstance(item, Dropped):
            lines.append(f"drop {item.reason}")
        else:
            lines.append(f"frame {item.type} {item.seq} {int(item.flags)} {item.payload.hex()}")
    lines.append(f"end {decoder.buffered}")
    return lines


def run(build: Path, stream: bytes, *args: str) -> list[str]:
    done = subprocess.run([str(build / "fuzz-frames"), *args], input=stream,
                          capture_output=True, timeout=30, check=False)
    report = sanitizer_report(done.stderr.decode(errors="replace"))
    assert report is None, report
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    return done.stdout.decode().splitlines()


def test_the_golden_vectors_and_each_drop_reason(reference_build: Path) -> None:
    bad_crc = bytearray(VALID[0])
    bad_crc[-2] ^= 0x01
    body = bytes([0x1C, 0x04, 0, 0, 1, 0])           # reserved bits 3-2 set, CRC right
    reserved = cobs_encode(body + crc32(body).to_bytes(4, "little")) + b"\x00"
    stream = (VALID[1] + bytes(bad_crc) + b"\x05\x01\x02\x00" + b"\x02\x05\x00"
              + b"\x01" * 300 + b"\x00" + b"\xff\x00" + reserved + VALID[0])
    lines = run(reference_build, stream)
    assert lines == expected_lines(stream)
    assert [ln.split()[1] for ln in lines if ln.startswith("drop")] == [
        "crc", "cobs", "length", "too_long", "cobs", "version"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(parts=st.lists(chunks(), min_size=1, max_size=30))
def test_fuzzed_streams_decode_as_the_host_decodes_them(reference_build: Path,
                                                        parts: list[bytes]) -> None:
    stream = b"".join(parts)
    assert run(reference_build, stream) == expected_lines(stream)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(parts=st.lists(chunks(), min_size=1, max_size=40))
def test_a_whole_reader_survives_fuzzed_input(reference_build: Path, parts: list[bytes]) -> None:
    stream = encode_frame(encode_message(Hello(7))) + b"".join(parts)
    last = run(reference_build, stream, "--reader")[-1].split()
    assert last[0] == "end" and last[1] in {"up", "dead", "failed", "idle"}


EDGES = [0, 1, 2, 3, 32766, 32767, 32768, 32769, 65533, 65534, 65535]


@settings(max_examples=10, deadline=None)
@given(pairs=st.lists(st.tuples(st.sampled_from(EDGES) | st.integers(0, 0xFFFF),
                                st.sampled_from(EDGES) | st.integers(0, 0xFFFF)),
                      min_size=1, max_size=200))
def test_sequence_arithmetic_is_the_hosts(reference_build: Path,
                                          pairs: list[tuple[int, int]]) -> None:
    pairs = [(a, b) for a in EDGES for b in EDGES] + pairs
    done = subprocess.run([str(reference_build / "fuzz-frames"), "--seq"],
                          input="".join(f"{a} {b}\n" for a, b in pairs).encode(),
                          capture_output=True, timeout=30, check=True)
    got = done.stdout.decode().splitlines()
    assert got == [f"{seq_next(a)} {seq_prev(a)} {int(seq_before(a, b))}"
                   for a, b in pairs]
