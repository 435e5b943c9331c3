"""What the hand controller returns for every input: an :class:`Outcome`.

An outcome holds the command's reply (every command gets exactly one), the public and secure
events (bodies without envelope: the app adds epoch, seq and ts), whether the public and secure
snapshots changed (a :class:`SnapshotChange`, settled when first read), error states raised or
cleared, and hand boundaries for the journal's hands table. The app executes it: journal the
events, publish, reply.

>>> Reply.failure("c1", ErrorCode.OUT_OF_TURN, "seat 3 is to act").to_json()
{'id': 'c1', 'ok': False, 'error': {'code': 'out_of_turn', 'reason': 'seat 3 is to act'}}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Final, Self, TypeAlias

from tablectl.controller.errors import CodecError
from tablectl.journal import JsonObject, JsonValue
from tablectl.journal.records import freeze_json

if TYPE_CHECKING:
    from tablectl.controller.table import TableState


class ErrorCode(StrEnum):
    """Stable error codes: read hygiene (active error states) and command refusals (replies)."""

    # read hygiene: each becomes an active error state; card reads wait until it is cleared
    UNKNOWN_TAG = "unknown_tag"
    """A UID in no registered deck."""
    SECOND_DECK = "second_deck"
    """A UID of another registered deck than the one in play."""
    DUPLICATE_CARD = "duplicate_card"
    """A card seen twice in one hand (also a command refusal for manual_card)."""
    TOO_MANY_CARDS = "too_many_cards"
    """More cards than the current step allows (a seat or the board is complete)."""
    BOARD_BEFORE_ROUND_CLOSED = "board_before_round_closed"
    """A board (or burn) card while betting is still open."""
    WRONG_ANTENNA = "wrong_antenna"
    """A table read at a location the hand does not expect."""
    DOUBTFUL_READ = "doubtful_read"
    """A read that needs confirmation: held until confirm_read / reject_read."""
    MISSED_READ = "missed_read"
    """A card passed the reader without a read (or reads were lost in a reader's power cut):
    the dealer enters it with manual_card (or checks nothing is missing), then it is cleared."""
    # command refusals: a reply only, nothing changes
    OUT_OF_TURN = "out_of_turn"
    """An action (or manual card) for a seat or target that is not next."""
    ILLEGAL_ACTION = "illegal_action"
    """The seat is to act, but the rules do not allow this action or amount."""
    NOT_AUTHORISED = "not_authorised"
    STALE_COMMAND = "stale_command"
    UNKNOWN_COMMAND = "unknown_command"
    BAD_ARGS = "bad_args"
    WRONG_PHASE = "wrong_phase"
    """The command is not allowed in the table's current phase (e.g. seat_player mid-hand)."""
    NOTHING_TO_UNDO = "nothing_to_undo"
    NO_SUCH_ERROR = "no_such_error"
    NO_SUCH_READ = "no_such_read"


READ_ERRORS: frozenset[ErrorCode] = frozenset({
    ErrorCode.UNKNOWN_TAG, ErrorCode.SECOND_DECK, ErrorCode.DUPLICATE_CARD,
    ErrorCode.TOO_MANY_CARDS, ErrorCode.BOARD_BEFORE_ROUND_CLOSED, ErrorCode.WRONG_ANTENNA,
    ErrorCode.DOUBTFUL_READ, ErrorCode.MISSED_READ})
"""The codes that become active error states and halt card reads until cleared."""


@dataclass(frozen=True, slots=True)
class Reply:
    """The one reply to a command.

    Attributes:
        id: the command's id.
        ok: True if the command was applied.
        result: what it did (``ok``), a JSON object.
        code: why it failed (``not ok``).
        reason: one sentence for the dealer (``not ok``).
    """

    id: str
    ok: bool
    result: JsonObject = field(default_factory=dict)
    code: ErrorCode | None = None
    reason: str = ""

    @classmethod
    def success(cls, command_id: str, result: Mapping[str, JsonValue] | None = None) -> Reply:
        """An ``ok`` reply; ``result`` is copied as the journal stores it (sorted keys).

        Raises:
            JournalStateError: ``result`` is not a JSON object.
        """
        return cls(command_id, True, freeze_json(result or {}, "reply result"))

    @classmethod
    def failure(cls, command_id: str, code: ErrorCode, reason: str) -> Reply:
        """An error reply."""
        return cls(command_id, False, {}, code, reason)

    def to_json(self) -> dict[str, JsonValue]:
        """The reply payload of mqtt_payloads.md: ``{id, ok, result}`` or ``{id, ok, error}``."""
        if self.ok:
            return {"id": self.id, "ok": True, "result": dict(self.result)}
        assert self.code is not None
        return {"id": self.id, "ok": False,
                "error": {"code": self.code.value, "reason": self.reason}}

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Self:
        """Inverse of :meth:`to_json` (raises CodecError)."""
        try:
            cid, ok = data["id"], data["ok"]
            if not isinstance(cid, str) or not isinstance(ok, bool):
                raise CodecError("reply needs a string id and a bool ok")
            if ok:
                result = data["result"]
                assert isinstance(result, Mapping)
                return cls(cid, True, freeze_json(result, "reply result"))
            err = data["error"]
            assert isinstance(err, Mapping)
            return cls(cid, False, {}, ErrorCode(err["code"]), str(err["reason"]))
        except (KeyError, ValueError, AssertionError) as exc:
            if isinstance(exc, CodecError):
                raise
            raise CodecError(f"bad reply: {exc!r}") from exc


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
class HandEnded:
    """A hand is over (settled, misdealt or killed): close its row with ``summary``.

    ``summary`` holds ``hand`` {id, number}, ``result`` (``settled`` | ``misdeal`` |
    ``killed``), ``stacks`` [{seat, stack}], ``results`` (awards), ``board`` and ``rake``.
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
    hand_ended: HandEnded | None = None
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
