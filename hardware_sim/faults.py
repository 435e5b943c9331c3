"""The faults the simulator causes.

The dealer's catalogue, which :class:`~hardware_sim.dealer.SimDealer` causes:
:class:`FaultKind` (byte faults, unplug, reboot, duplicate read, foreign tag, misread, wrong
antenna, two cards at once, a card face up), planned as a :class:`FaultPlan` at a given card
of a given hand and recorded as a :class:`FaultRecord` when it fires; :data:`CLEARS` names
the read errors the daemon may raise for one.

Byte-level faults on a device's output: garbage, bit flips, dropped, duplicated and
delayed frames (pass one as a pipe manipulator or to a server).

A spec string, as the CLI takes it: ``garbage=0.01,flip=0.001,drop=0.05,dup=0.01,delay=0.1``
(each a per-frame probability; ``delay_s=0.3`` sets how long a delayed write stalls). Faults
are drawn from a seeded generator, never phase-locked: losing exactly every other frame would
starve go-back-N forever (docs/protocol.md "Why the link works this way").

>>> faults = ByteFaults.parse("drop=1", seed=1)
>>> faults(bytes.fromhex("03 10 04 01 00 02 2a 00"))
b''
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Final

from tablectl.domain.cards import Card


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


class FaultKind(StrEnum):
    """Faults the dealer can cause at a given card."""

    GARBAGE = "garbage"
    """Random bytes on the wire before the card's frame."""
    BITFLIP = "bitflip"
    """One bit of the card's frame flipped (CRC catches it; the device resends)."""
    DROP = "drop"
    """The card's frame lost on the wire (the device resends)."""
    DUP_FRAME = "dup_frame"
    """The card's frame twice on the wire (the host drops the copy)."""
    DELAY = "delay"
    """The card's frame written ``seconds`` late."""
    UNPLUG = "unplug"
    """The cable pulled before the card; ``cards`` cards dealt meanwhile; plugged back."""
    REBOOT = "reboot"
    """The device reboots right after the card's read, before it is sent (lost as on a power
    cut); the dealer enters the card by hand (``manual_card``)."""
    DUPLICATE_READ = "duplicate_read"
    """The shoe reads the card's tag twice."""
    FOREIGN_TAG = "foreign_tag"
    """A tag of another deck is read just before the card."""
    MISREAD = "misread"
    """The card passes unread (MISREAD); the dealer enters it by hand."""
    WRONG_ANTENNA = "wrong_antenna"
    """Table: the card lands on the wrong antenna, then is moved to the right one."""
    TWO_AT_ONCE = "two_at_once"
    """The card and the next one come out together."""
    FACE_UP = "face_up"
    """The card is dealt face up by mistake (the reader cannot tell)."""


CLEARS: Final[Mapping[FaultKind, tuple[str, ...]]] = {
    FaultKind.FOREIGN_TAG: ("second_deck", "unknown_tag"),
    FaultKind.WRONG_ANTENNA: ("wrong_antenna",),
}
"""The read errors the daemon may raise for a fault; the dealer clears the first one the
daemon confirms it had (a tag of another deck is ``second_deck`` when the card room registered
that deck, else ``unknown_tag``)."""

BYTE_FAULTS: Final = frozenset({FaultKind.GARBAGE, FaultKind.BITFLIP, FaultKind.DROP,
                                FaultKind.DUP_FRAME, FaultKind.DELAY})


@dataclass(frozen=True, slots=True)
class FaultPlan:
    """A fault at card ``at_card`` (1-based, burns counted) of hand ``hand`` (1-based).

    Attributes:
        seconds: DELAY, how late the frame is written.
        cards: UNPLUG, cards dealt while unplugged.
        power_cut: UNPLUG, the device also reboots (its queue is lost).
        foreign: FOREIGN_TAG, the card of the other deck whose tag is read.
        antenna: WRONG_ANTENNA, the antenna role it lands on (default: the first empty
            seat's after the right one, else the next seat's).
        clear: the read-error code the dealer clears with ``clear_error`` after the fault
            (default :data:`CLEARS` by kind; ``""``: none).
    """

    kind: FaultKind
    at_card: int
    hand: int = 1
    seconds: float = 0.3
    cards: int = 2
    power_cut: bool = False
    foreign: Card | None = None
    antenna: str | None = None
    clear: str | None = None

    def __post_init__(self) -> None:
        if self.at_card < 1 or self.hand < 1:
            raise ValueError("at_card and hand count from 1")
        if self.seconds < 0 or self.cards < 0:
            raise ValueError("seconds and cards must not be negative")


@dataclass(frozen=True, slots=True)
class FaultRecord:
    """A fault that happened: its plan, the card it hit and a note."""

    plan: FaultPlan
    card: Card | None
    note: str
