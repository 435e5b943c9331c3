"""What the hand controller returns for every input: an :class:`Outcome`.

An outcome holds the command's reply (every command gets exactly one), the public and secure
events (bodies without envelope: the app adds epoch, seq and ts), whether the public and secure
snapshots changed, error states raised or cleared, and hand boundaries for the journal's hands
table. The app executes it: journal the events, publish, reply.

>>> Reply.failure("c1", ErrorCode.OUT_OF_TURN, "seat 3 is to act").to_json()
{'id': 'c1', 'ok': False, 'error': {'code': 'out_of_turn', 'reason': 'seat 3 is to act'}}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Self

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
        """An ``ok`` reply."""
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


@dataclass(frozen=True, slots=True)
class Outcome:
    """Everything one input caused.

    Attributes:
        reply: the command's reply (None for reads and device changes).
        events: public events, in order.
        secure_events: secure events (hole cards), in order.
        public_changed: the public snapshot differs from before the input.
        secure_changed: the secure snapshot differs from before the input.
        errors: error states raised or cleared.
        hand_started: set when a hand began.
        hand_ended: set when a hand ended.
        log: human-readable notes for the daemon's log (ignored reads, debounced repeats).
        duplicate: the command's id was seen before; ``reply`` repeats the first reply.
    """

    reply: Reply | None = None
    events: tuple[Event, ...] = ()
    secure_events: tuple[Event, ...] = ()
    public_changed: bool = False
    secure_changed: bool = False
    errors: tuple[ErrorChange, ...] = ()
    hand_started: HandStarted | None = None
    hand_ended: HandEnded | None = None
    log: tuple[str, ...] = ()
    duplicate: bool = False
