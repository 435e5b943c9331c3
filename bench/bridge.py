"""Benchmark of firmware_bridge: decode throughput, pty latency, corruption resistance.

Run: ``.venv/bin/python bench/bridge.py [--frames N] [--samples N] [--corrupt N]``.

(a) decode throughput of ``FrameDecoder`` (frames/s, 4 KiB reads), beside a baseline in the
    same run: the irreducible work of splitting at ``00`` and CRC-32 of every chunk.
(b) latency from a frame written on the device side of a pty (the simulator's write) to the
    message delivered by ``DeviceClient`` on the host (pyserial, same event loop), beside the
    raw pty measured in the same run: one way (master write -> slave readable and read) and
    the round trip (master -> slave -> echoed back -> master).
(c) corruption: N corrupted frames (1-3 bit flips, byte drops, byte insertions,
    truncations), each between delimiters; every frame the decoder yields is an invented one.
(d) through the reference reader firmware (firmware_bridge/reference): its host build
    (gcc -O2, no sanitizers, a pty) and, when gcc-arm-none-eabi and qemu-system-arm are
    there, the Cortex-M3 build in QEMU: read-to-event latency (a card enters the antenna's
    field -> its TAG_SEEN delivered by ``DeviceClient``; it includes the wait for the next
    scan, 5 ms apart) and reads per second (a burst of cards passing the antenna one after
    the other, each in the field for two scans). ``--reference 0`` skips it.

The last line is one JSON object with the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import binascii
import contextlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tty
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from firmware_bridge.client import Delivered, DeviceClient  # noqa: E402
from firmware_bridge.clock import SystemClock  # noqa: E402
from firmware_bridge.frames import Frame, FrameDecoder, cobs_decode, encode_frame  # noqa: E402
from firmware_bridge.messages import Button, ButtonAction, TagSeen, Tech, encode_message  # noqa: E402
from hardware_sim.devices import SimShoe  # noqa: E402
from hardware_sim.serve import PtyDevice  # noqa: E402
from tablectl.domain.deck import Deck  # noqa: E402


def sample_frames(n: int, rng: random.Random) -> list[bytes]:
    out = []
    for i in range(n):
        seq = i % 65535 + 1
        if i % 4 == 3:
            msg: TagSeen | Button = Button(0, rng.randrange(12), ButtonAction.PRESS,
                                           rng.getrandbits(32))
        else:
            msg = TagSeen(rng.randrange(16), Tech.ISO14443A, rng.getrandbits(32),
                          rng.getrandbits(16), 0, rng.getrandbits(56).to_bytes(7, "big"))
        out.append(encode_frame(encode_message(msg, seq)))
    return out


def bench_decode(n: int) -> dict[str, float]:
    rng = random.Random(1)
    pool = sample_frames(5000, rng)
    stream = b"".join(pool[i % len(pool)] for i in range(n))
    chunks = [stream[i : i + 4096] for i in range(0, len(stream), 4096)]

    t0 = time.perf_counter()
    decoder = FrameDecoder()
    count = 0
    for chunk in chunks:
        count += len(decoder.feed(chunk))
    t_dec = time.perf_counter() - t0
    assert count == n and decoder.frames == n

    t0 = time.perf_counter()
    base = 0
    for part in stream.split(b"\x00"):
        if part:
            binascii.crc32(part)
            base += 1
    t_base = time.perf_counter() - t0
    return {"decode_frames_per_s": n / t_dec, "baseline_split_crc_frames_per_s": base / t_base,
            "decode_mb_per_s": len(stream) / t_dec / 1e6}


async def raw_pty(samples: int, size: int) -> tuple[list[float], list[float]]:
    """One-way and round-trip times of ``size``-byte writes through a raw pty (seconds)."""
    loop = asyncio.get_running_loop()
    master, slave = os.openpty()
    tty.setraw(slave)
    os.set_blocking(master, False)
    os.set_blocking(slave, False)
    payload = b"\x55" * (size - 1) + b"\x00"

    def _wake(fut: asyncio.Future[None]) -> None:
        if not fut.done():
            fut.set_result(None)

    async def read_exactly(fd: int, n: int) -> None:
        got = 0
        while got < n:
            fut: asyncio.Future[None] = loop.create_future()
            loop.add_reader(fd, _wake, fut)
            try:
                await fut
            finally:
                loop.remove_reader(fd)
            with contextlib.suppress(BlockingIOError):
                got += len(os.read(fd, 4096))

    one_way, round_trip = [], []
    try:
        for _ in range(samples):
            t0 = time.perf_counter()
            os.write(master, payload)
            await read_exactly(slave, size)
            t1 = time.perf_counter()
            os.write(slave, payload)
            await read_exactly(master, size)
            t2 = time.perf_counter()
            one_way.append(t1 - t0)
            round_trip.append(t2 - t0)
    finally:
        os.close(master)
        os.close(slave)
    return one_way, round_trip


async def bridge_latency(samples: int) -> list[float]:
    """Device-side pty write of a TAG_SEEN -> Delivered on the host (seconds)."""
    clock = SystemClock()
    deck = Deck.load(ROOT / "config/decks/demo-red.csv")
    shoe = SimShoe(deck, clock=clock, seed=1)
    out: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "usb-Sim_Shoe-if00"
        async with PtyDevice(shoe, path, clock=clock) as port:
            writes: list[float] = []
            link = port._link  # bench only: timestamp the device's own write
            assert link is not None
            real_write = link.write

            async def timed_write(data: bytes) -> None:
                if b"\x00" in data:
                    writes.append(time.perf_counter())
                await real_write(data)

            link.write = timed_write  # type: ignore[method-assign]
            async with DeviceClient(str(path), clock=clock) as client:
                events = client.events()
                while client.peer is None or client.stats.delivered < 2:  # snapshot first
                    await asyncio.wait_for(anext(events), 10)
                for _ in range(samples):
                    if not shoe.remaining:
                        shoe.new_shoe()
                    writes.clear()
                    shoe.draw()
                    while True:
                        ev = await asyncio.wait_for(anext(events), 10)
                        if isinstance(ev, Delivered) and isinstance(ev.message, TagSeen):
                            out.append(time.perf_counter() - writes[0])
                            break
    return out


def bench_corruption(n: int) -> dict[str, int]:
    rng = random.Random(7)
    pool = [f[:-1] for f in sample_frames(2000, rng)]  # without the delimiter
    plain = [cobs_decode(f) for f in pool]
    decoder = FrameDecoder()
    invented = intact = 0
    kinds = {"flip": 0, "drop": 0, "insert": 0, "truncate": 0}
    batch: list[bytes] = []
    sent: set[bytes] = set()  # the frames (before COBS) corrupted in this batch

    def feed() -> None:
        nonlocal invented, intact
        for item in decoder.feed(b"\x00" + b"\x00".join(batch) + b"\x00"):
            if isinstance(item, Frame):
                # a corrupted frame decoding to its original would be a corruption we failed
                # to make (counted apart, expected 0); anything else decoded was never sent
                if item.to_bytes() in sent:
                    intact += 1
                else:
                    invented += 1
        batch.clear()
        sent.clear()

    randrange, getrandbits = rng.randrange, rng.getrandbits
    for i in range(n):
        body = bytearray(pool[i % len(pool)])
        k = i & 3
        if k == 0:
            for bit in rng.sample(range(len(body) * 8), 1 + randrange(3)):  # distinct bits
                body[bit >> 3] ^= 1 << (bit & 7)
            kinds["flip"] += 1
        elif k == 1:
            del body[randrange(len(body))]
            kinds["drop"] += 1
        elif k == 2:
            at = randrange(len(body) + 1)
            # a 00 at either edge would only add a delimiter, not corrupt the frame
            value = getrandbits(8) if 0 < at < len(body) else 1 + randrange(255)
            body.insert(at, value)
            kinds["insert"] += 1
        else:
            del body[randrange(1, len(body)) :]
            kinds["truncate"] += 1
        batch.append(bytes(body))
        sent.add(plain[i % len(pool)])
        if len(batch) == 2000:
            feed()
    if batch:
        feed()
    dropped = sum(decoder.drops.values())
    return {"corrupted_frames": n, "invented_messages": invented,
            "intact": intact, "dropped_chunks": dropped,
            **{f"corrupt_{k}": v for k, v in kinds.items()},
            **{f"dropped_{r}": c for r, c in decoder.drops.items()}}


def _make(target: str, build: Path, *extra: str) -> bool:
    reference = ROOT / "firmware_bridge" / "reference"
    done = subprocess.run(["make", "-s", "-j2", "-C", str(reference), target, f"BUILD={build}",
                           *extra], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        print(f"(d) make {target} failed: {done.stderr.strip()[-500:]}", file=sys.stderr)
    return done.returncode == 0


async def through_reference(kind: str, samples: int, workdir: Path) -> dict[str, float]:
    """Latency and reads/s through the reference firmware of ``kind`` (host, emulated)."""
    from tests.firmware_reference.emulator import EmulatedReader
    from tests.firmware_reference.harness import ReferenceReader

    link = workdir / f"usb-Ref_{kind}-if00"
    firmware: ReferenceReader | EmulatedReader
    if kind == "host":
        firmware = ReferenceReader(workdir / "build", link)
    else:
        firmware = EmulatedReader(workdir / "build" / "reader-lm3s6965.elf", link)
    arrived: dict[bytes, float] = {}
    news = asyncio.Event()
    async with firmware:
        client = DeviceClient(str(link), name="ref", clock=SystemClock(), backoff=(0.05, 0.1))
        async with client:
            async def watch() -> None:
                async for event in client.events():
                    if isinstance(event, Delivered) and isinstance(event.message, TagSeen):
                        arrived[event.message.uid] = time.perf_counter()
                    news.set()

            task = asyncio.create_task(watch())

            async def until(done: Callable[[], bool]) -> None:
                async with asyncio.timeout(30):
                    while not done():
                        news.clear()
                        await news.wait()

            await until(lambda: client.peer is not None)
            lat = []
            for i in range(samples):
                uid = (0xE004010000000000 + i).to_bytes(8, "big")
                t0 = time.perf_counter()
                firmware.send_nowait(f"pass 0 {uid.hex()}")
                await until(lambda uid=uid: uid in arrived)
                lat.append(arrived[uid] - t0)
                await firmware.settle()
            burst = [(0xE004020000000000 + i).to_bytes(8, "big") for i in range(samples)]
            t0 = time.perf_counter()
            for uid in burst:
                firmware.send_nowait(f"pass 0 {uid.hex()}")
            await until(lambda: all(u in arrived for u in burst))
            elapsed = time.perf_counter() - t0
            await firmware.settle()
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
    ms = 1e3
    return {f"ref_{kind}_read_to_event_p50_ms": pct(lat, 50) * ms,
            f"ref_{kind}_read_to_event_p99_ms": pct(lat, 99) * ms,
            f"ref_{kind}_reads_per_s": samples / elapsed}


def bench_reference(samples: int) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    if samples <= 0 or shutil.which("make") is None or shutil.which("gcc") is None:
        return out
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        kinds = []
        if _make("host", work / "build", "SAN=", "HOST_OPT=-O2"):
            kinds.append("host")
        if shutil.which("arm-none-eabi-gcc") and shutil.which("qemu-system-arm") and \
                _make("arm", work / "build"):
            kinds.append("emulated")
        for kind in ("host", "emulated"):
            if kind not in kinds:
                out.update({f"ref_{kind}_read_to_event_p50_ms": None,
                            f"ref_{kind}_read_to_event_p99_ms": None,
                            f"ref_{kind}_reads_per_s": None})
                continue
            figures = asyncio.run(through_reference(kind, samples, work))
            print(f"(d) reference reader, {kind}: read -> event p50 "
                  f"{figures[f'ref_{kind}_read_to_event_p50_ms']:.1f} ms, p99 "
                  f"{figures[f'ref_{kind}_read_to_event_p99_ms']:.1f} ms; "
                  f"{figures[f'ref_{kind}_reads_per_s']:.0f} reads/s ({samples} cards)")
            out.update(figures)
    return out


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] if len(values) > 1 else values[0]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=200_000)
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--corrupt", type=int, default=1_000_000)
    parser.add_argument("--reference", type=int, default=200,
                        help="cards through the reference firmware (0: skip)")
    args = parser.parse_args()

    dec = bench_decode(args.frames)
    print(f"(a) decode: {dec['decode_frames_per_s']:,.0f} frames/s "
          f"({dec['decode_mb_per_s']:.2f} MB/s); baseline split+crc32: "
          f"{dec['baseline_split_crc_frames_per_s']:,.0f} frames/s")

    async def latencies() -> tuple[list[float], list[float], list[float]]:
        bridge = await bridge_latency(args.samples)
        one_way, rtt = await raw_pty(args.samples, 26)
        return bridge, one_way, rtt

    bridge, one_way, rtt = asyncio.run(latencies())
    us = 1e6
    lat = {"bridge_p50_us": pct(bridge, 50) * us, "bridge_p99_us": pct(bridge, 99) * us,
           "pty_one_way_p50_us": pct(one_way, 50) * us, "pty_one_way_p99_us": pct(one_way, 99) * us,
           "pty_round_trip_p50_us": pct(rtt, 50) * us, "pty_round_trip_p99_us": pct(rtt, 99) * us}
    print(f"(b) device write -> host delivery over a pty: p50 {lat['bridge_p50_us']:.0f} us, "
          f"p99 {lat['bridge_p99_us']:.0f} us ({len(bridge)} samples); raw pty one way p50 "
          f"{lat['pty_one_way_p50_us']:.0f} us p99 {lat['pty_one_way_p99_us']:.0f} us; round trip "
          f"p50 {lat['pty_round_trip_p50_us']:.0f} us p99 {lat['pty_round_trip_p99_us']:.0f} us")

    t0 = time.perf_counter()
    cor = bench_corruption(args.corrupt)
    print(f"(c) {cor['corrupted_frames']:,} corrupted frames in {time.perf_counter() - t0:.1f} s: "
          f"{cor['invented_messages']} invented messages, "
          f"{cor['intact']} intact, "
          f"{cor['dropped_chunks']:,} chunks "
          f"dropped (" + ", ".join(f"{k[8:]} {v:,}" for k, v in cor.items()
                                   if k.startswith("dropped_") and k != "dropped_chunks") + ")")
    ref = bench_reference(args.reference)
    print(json.dumps({**{k: round(v, 1) for k, v in dec.items()},
                      **{k: round(v, 1) for k, v in lat.items()}, "latency_samples": len(bridge),
                      **cor, **{k: None if v is None else round(v, 2) for k, v in ref.items()}}))
    return 0 if cor["invented_messages"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
