"""Byte-level faults on a device's output: garbage, bit flips, dropped, duplicated and
delayed frames (STYLE shape 7; pass one as a pipe manipulator or to a server).

A spec string, as the CLI takes it: ``garbage=0.01,flip=0.001,drop=0.05,dup=0.01,delay=0.1``
(each a per-frame probability; ``delay_s=0.3`` sets how long a delayed write stalls). Faults
are drawn from a seeded generator, never phase-locked (research/serial.md §3.4 pitfall 7).

>>> faults = ByteFaults.parse("drop=1", seed=1)
>>> faults(bytes.fromhex("03 10 04 01 00 02 2a 00"))
b''
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, fields


@dataclass(frozen=True, slots=True)
class FaultSpec:
    """Per-frame fault probabilities (0..1) and the stall of a delayed write (seconds)."""

    garbage: float = 0.0
    flip: float = 0.0
    drop: float = 0.0
    dup: float = 0.0
    delay: float = 0.0
    delay_s: float = 0.3

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name != "delay_s" and not 0.0 <= value <= 1.0:
                raise ValueError(f"fault {f.name}={value}: a probability must be in 0..1")
        if self.delay_s < 0:
            raise ValueError("delay_s must not be negative")

    @classmethod
    def parse(cls, spec: str) -> FaultSpec:
        """Parse ``name=value,...``.

        Raises:
            ValueError: unknown name or bad number.
        """
        values: dict[str, float] = {}
        known = {f.name for f in fields(cls)}
        for item in filter(None, (p.strip() for p in spec.split(","))):
            name, sep, raw = item.partition("=")
            if not sep or name not in known:
                raise ValueError(f"bad fault {item!r}; known: {', '.join(sorted(known))}")
            try:
                values[name] = float(raw)
            except ValueError:
                raise ValueError(f"bad fault {item!r}: not a number") from None
        return cls(**values)


class ByteFaults:
    """A seeded manipulator: ``faults(data) -> data`` frame by frame; counts what it did.

    Attributes:
        counts: faults injected, by name.
    """

    def __init__(self, spec: FaultSpec, *, seed: int = 0) -> None:
        self.spec = spec
        self._rng = random.Random(seed)
        self.counts: Counter[str] = Counter()

    @classmethod
    def parse(cls, spec: str, *, seed: int = 0) -> ByteFaults:
        """From a spec string (see :class:`FaultSpec`)."""
        return cls(FaultSpec.parse(spec), seed=seed)

    def stall(self) -> float:
        """Seconds the next write should wait (0 unless a delay fault fires)."""
        if self.spec.delay and self._rng.random() < self.spec.delay:
            self.counts["delay"] += 1
            return self.spec.delay_s
        return 0.0

    def __call__(self, data: bytes) -> bytes:
        rng, spec = self._rng, self.spec
        out = bytearray()
        parts = data.split(b"\x00")
        for n, part in enumerate(parts):
            frame = part + (b"\x00" if n < len(parts) - 1 else b"")
            if not part:
                out += frame
                continue
            if spec.garbage and rng.random() < spec.garbage:
                self.counts["garbage"] += 1
                out += bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 40)))
            if spec.drop and rng.random() < spec.drop:
                self.counts["drop"] += 1
                continue
            if spec.flip and rng.random() < spec.flip:
                self.counts["flip"] += 1
                body = bytearray(frame)
                i = rng.randrange(len(part))
                body[i] ^= 1 << rng.randrange(8)
                frame = bytes(body)
            out += frame
            if spec.dup and rng.random() < spec.dup:
                self.counts["dup"] += 1
                out += frame
        return bytes(out)
