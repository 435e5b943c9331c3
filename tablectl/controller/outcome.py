"""What the hand controller returns for every input: an :class:`Outcome`.

An outcome holds the command's reply (every command gets exactly one,
:class:`~tablectl.controller.reply.Reply`), the public and secure events (bodies without
envelope: the app adds epoch, seq and ts), whether the public and secure snapshots changed (a
:class:`SnapshotChange`, settled when first read), error states raised or cleared, and hand
boundaries for the journal's hands table. The app executes it: journal the events, publish,
reply.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final, TypeAlias

from tablectl.controller.reply import ErrorCode, Reply
from tablectl.controller.table import TableState
from tablectl.domain.jsonvalue import JsonObject, JsonValue


@dataclass(frozen=True, slots=True)
class Event:
    """An event body: ``type`` and its fields (see :mod:`tablectl.controller.payloads`)."""

    type: str
    data: JsonObject

    def to_json(self) -> dict[str, JsonValue]:
        """``{"type": ..., **data}`` (the app adds the envelope)."""
        return {"type": self.type, **self.data}


@dataclass(frozen=True, slots=True)
class ErrorChange:
    """An error state raised (``active``) or cleared, for the journal's error table.

    Attributes:
        code: the error code (at most one active per code).
        message: one sentence for the dealer.
        active: True when raised, False when cleared.
        at: the time of the input that raised or cleared it.
        by: who cleared it (the command's user); None when raised by the table.
        detail: particulars (uid, card, location, read id...).
    """

    code: ErrorCode
    message: str
    active: bool
    at: datetime
    by: str | None = None
    detail: JsonObject = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class HandStarted:
    """A hand began: open a hand row in the journal.

    Attributes:
        number: the table's hand number (1, 2, ...).
        hand_id: ``"{table}-{number:06d}"``.
        checkpoint: the table right before this hand; restore it and replay every input from
            this hand's ``start_hand`` command on to rebuild the controller exactly.
    """

    number: int
    hand_id: str
    checkpoint: TableState


@dataclass(frozen=True, slots=True)
class HandClosed:
    """A hand is over (settled, misdealt or killed): close its row with ``summary``.

    ``summary`` holds ``hand`` {id, number}, ``result`` (``settled`` | ``misdeal`` |
    ``killed``), ``stacks`` [{seat, stack}], ``results`` (awards), ``board`` and ``rake``;
    at a table with a rotation also ``game``, the variant the hand dealt.
    """

    number: int
    hand_id: str
    summary: JsonObject


Snapshots: TypeAlias = tuple[Mapping[str, JsonValue], Mapping[str, JsonValue]]
"""The public and the secure snapshot of one state of the table (read-only by contract)."""


class SnapshotChange:
    """Whether one input changed the public and the secure snapshot, settled on first use.

    The controller hands one out with every :class:`Outcome` without building anything: it
    keeps the snapshots of the state before the input and how to get those of the state after
    it. The first read of :attr:`public` or :attr:`secure` (or equality, ``repr``, hashing)
    builds the snapshots after the input (the controller caches them: a snapshot read after it
    costs nothing) and compares; from then on the answer is fixed. The controller settles an
    unsettled change itself before the next input changes its state, so the answer is always
    about its own input, however late it is read: the flags may be read right away, after
    further inputs, or never. Reading them after the events were published keeps the cost of
    the snapshots off the critical path of an input; it is paid once per input either way
    (when nobody read the flags, at the start of the next ``handle()``).

    Equal when both flags are equal (settling both sides); a copy or a pickle is settled.

    >>> SnapshotChange.settled(public=True, secure=False)
    SnapshotChange(public=True, secure=False)
    """

    __slots__ = ("__weakref__", "_after", "_before", "_public", "_secure")

    def __init__(self, before: Snapshots | None, after: Callable[[], Snapshots] | None, *,
                 public: bool = False, secure: bool = False) -> None:
        """Use :meth:`settled` or :meth:`pending`."""
        self._before = before
        self._after = after
        self._public = public
        self._secure = secure

    @classmethod
    def settled(cls, *, public: bool, secure: bool) -> SnapshotChange:
        """A change whose answer is known."""
        return cls(None, None, public=public, secure=secure)

    @classmethod
    def pending(cls, before: Snapshots, after: Callable[[], Snapshots]) -> SnapshotChange:
        """A change to settle later by comparing ``before`` with what ``after()`` returns.

        ``after`` must return the snapshots of the state right after the input for as long as
        the change is unsettled: its owner calls :meth:`settle` before changing that state.
        """
        return cls(before, after)

    @property
    def is_settled(self) -> bool:
        """True once the answer is known (reading it costs nothing then)."""
        return self._after is None

    def settle(self) -> None:
        """Compare now, if not done yet (the snapshots after the input are built if needed)."""
        after_of = self._after
        if after_of is None:
            return
        before = self._before
        assert before is not None
        after = after_of()
        self._public = after[0] != before[0]
        self._secure = after[1] != before[1]
        self._before = self._after = None  # the old snapshots are not kept alive by this

    @property
    def public(self) -> bool:
        """The public snapshot after the input differs from the one before it."""
        self.settle()
        return self._public

    @property
    def secure(self) -> bool:
        """The secure snapshot after the input differs from the one before it."""
        self.settle()
        return self._secure

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SnapshotChange):
            return NotImplemented
        return (self.public, self.secure) == (other.public, other.secure)

    def __hash__(self) -> int:
        return hash((self.public, self.secure))

    def __repr__(self) -> str:
        return f"SnapshotChange(public={self.public}, secure={self.secure})"

    def __reduce__(self) -> tuple[object, ...]:
        # a pickled or copied change is a settled one: it never takes the controller along
        return _settled_change, (self.public, self.secure)


def _settled_change(public: bool, secure: bool) -> SnapshotChange:
    return SnapshotChange.settled(public=public, secure=secure)


UNCHANGED: Final = SnapshotChange.settled(public=False, secure=False)
"""Neither snapshot changed."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """Everything one input caused.

    Attributes:
        reply: the command's reply (None for reads and device changes).
        events: public events, in order.
        secure_events: secure events (hole cards), in order.
        snapshot_change: whether the input changed the public and the secure snapshot,
            settled when first read (:class:`SnapshotChange`); read it through
            :attr:`public_changed` and :attr:`secure_changed`.
        errors: error states raised or cleared.
        hand_started: set when a hand began.
        hand_ended: set when a hand ended.
        log: human-readable notes for the daemon's log (ignored reads, debounced repeats).
        duplicate: the command's id was seen before; ``reply`` repeats the first reply.
    """

    reply: Reply | None = None
    events: tuple[Event, ...] = ()
    secure_events: tuple[Event, ...] = ()
    snapshot_change: SnapshotChange = UNCHANGED
    errors: tuple[ErrorChange, ...] = ()
    hand_started: HandStarted | None = None
    hand_ended: HandClosed | None = None
    log: tuple[str, ...] = ()
    duplicate: bool = False

    @property
    def public_changed(self) -> bool:
        """The public snapshot differs from before the input.

        Settled on first read, from the snapshots then cached by the controller: cheap to read
        after the input's events are published, correct whenever it is read (after later
        inputs too).
        """
        return self.snapshot_change.public

    @property
    def secure_changed(self) -> bool:
        """The secure snapshot differs from before the input (settled as
        :attr:`public_changed`)."""
        return self.snapshot_change.secure
