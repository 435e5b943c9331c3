"""The command reply and the error codes of the hand controller.

Every command gets exactly one :class:`Reply`; a refusal names an :class:`ErrorCode`. The same
codes name the read-hygiene error states (:data:`READ_ERRORS`).

>>> Reply.failure("c1", ErrorCode.OUT_OF_TURN, "seat 3 is to act").to_json()
{'id': 'c1', 'ok': False, 'error': {'code': 'out_of_turn', 'reason': 'seat 3 is to act'}}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Self

from tablectl.controller.errors import CodecError
from tablectl.domain.jsonvalue import JsonObject, JsonValue, freeze_json


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
        """The controller's reply: ``{id, ok, result}`` or ``{id, ok, error}`` (the daemon sends it
        as the reply envelope of docs/mqtt.md §2.3)."""
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


class Refused(Exception):  # noqa: N818 (control flow inside the controller, never escapes it)
    """A command (or read) refused with ``code``: the controller turns it into a failure
    :class:`Reply` (or an error state) and changes nothing."""

    def __init__(self, code: ErrorCode, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
