"""A card that passed the reader without a read: the hand waits, the dealer enters the card,
the floor clears the error; nothing accepted earlier changes."""

from __future__ import annotations

from tablectl.controller import ErrorCode, ReadMissed, input_from_json, input_to_json
from tablectl.domain.cards import Card

from .helpers import FLOOR, fresh


def test_missed_read_halts_reads_until_the_card_is_entered_and_cleared() -> None:
    d = fresh()
    assert d.cmd("start_hand").reply.ok  # type: ignore[union-attr]
    for text in ("As", "Kd"):
        assert not d.read(text).errors
    before = d.ctl.hand_view()
    out = d.feed(ReadMissed("shoe", 0, "the shoe missed a card (no_tag)", d.tick()))
    assert [(e.code, e.active) for e in out.errors] == [(ErrorCode.MISSED_READ, True)]
    assert "manual_card" in out.errors[0].message
    assert d.ctl.hand_view() == before                    # nothing changed
    assert not d.read("Qh").errors and d.ctl.hand_view() == before   # reads wait
    expected_seat = d.ctl.expected().seat  # type: ignore[union-attr]
    entered = d.cmd("manual_card", card="7c", seat=expected_seat)
    assert entered.reply is not None and entered.reply.ok, entered.reply
    refused = d.cmd("clear_error", code="missed_read")      # a dealer may not clear it
    assert refused.reply is not None and refused.reply.code is ErrorCode.NOT_AUTHORISED
    cleared = d.cmd("clear_error", user=FLOOR, code="missed_read")
    assert cleared.reply is not None and cleared.reply.ok
    assert [(e.code, e.active, e.by) for e in cleared.errors] == [
        (ErrorCode.MISSED_READ, False, FLOOR)]
    assert not d.read("Qh").errors                           # reads flow again
    seats = {c.card for s in d.ctl.hand_view().seats for c in s.cards}  # type: ignore[union-attr]
    assert {Card.parse("As"), Card.parse("Kd"), Card.parse("7c"), Card.parse("Qh")} <= seats


def test_missed_read_between_hands_is_only_logged_and_round_trips() -> None:
    d = fresh()
    missed = ReadMissed("shoe", 0, "the shoe's reader restarted", d.tick())
    out = d.feed(missed)
    assert not out.errors and out.log
    assert input_from_json(input_to_json(missed)) == missed
