"""Read hygiene: every bad read raises one active error, halts reads and changes nothing else."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from tablectl.controller import ErrorCode, Outcome, Phase, ReadStatus
from tablectl.domain.cards import Card
from tablectl.domain.games import GameKind
from tablectl.game import Act, DealBoard, DealHole

from .helpers import BLUE, FL, FLOOR, RED, Driver, fresh


def deal_holes(d: Driver, cards: str) -> None:
    """Deal named cards from the shoe (3 seats x 2 = 6 cards for hold'em)."""
    for text in cards.split():
        out = d.read(text)
        assert not out.errors, out.errors


def frozen_view(d: Driver) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    """What must not change when a read is refused (errors, phase and the commands they
    make available aside, and the action log, which records the error)."""
    pub = d.ctl.public_snapshot()
    sec = d.ctl.secure_snapshot()
    for snap in (pub, sec):
        snap.pop("errors")
        snap.pop("phase")
        snap.pop("commands")
        snap.pop("pending_read", None)
        snap.pop("log")
        snap.pop("log_omitted")
    return d.ctl.hand_view(), pub, sec


def assert_raised(out: Outcome, code: ErrorCode) -> None:
    assert [e.code for e in out.errors] == [code]
    assert out.errors[0].active and out.errors[0].by is None
    assert [(e.type, e.data["code"], e.data["active"]) for e in out.events] == [
        ("error", code.value, True)]
    assert out.secure_events == ()
    assert out.reply is None


def started(**kw: Any) -> Driver:
    d = fresh(**kw)
    assert d.cmd("start_hand").reply.ok  # type: ignore[union-attr]
    return d


def check_halt_and_clear(d: Driver, code: ErrorCode, next_card: str, *,
                         resume: bool = True) -> None:
    """The error is active in the snapshot; reads wait; a dealer cannot clear, the floor can."""
    snap = d.ctl.public_snapshot()
    assert snap["phase"] == Phase.FAULT
    assert [e["code"] for e in snap["errors"]] == [code.value]
    before = frozen_view(d)
    out = d.read(next_card)
    assert out.events == () and out.errors == () and not out.public_changed
    assert "waits for the dealer" in out.log[0]
    assert frozen_view(d) == before
    refused = d.cmd("clear_error", code=code.value)
    assert refused.reply is not None and refused.reply.code is ErrorCode.NOT_AUTHORISED
    cleared = d.cmd("clear_error", user=FLOOR, code=code.value)
    assert cleared.reply is not None and cleared.reply.ok
    assert [(e.code, e.active, e.by) for e in cleared.errors] == [(code, False, FLOOR)]
    assert cleared.events[0].data == {"code": code.value, "message": snap["errors"][0]["message"],
                                      "active": False}
    assert d.ctl.public_snapshot()["errors"] == []
    assert d.ctl.phase is not Phase.FAULT
    if resume:
        out = d.read(next_card)
        assert out.errors == () and out.events, "reads flow again after clear_error"


def test_unknown_tag() -> None:
    d = started()
    deal_holes(d, "As Kd")
    before = frozen_view(d)
    out = d.read("Qh", uid="DEADBEEF0001")
    assert_raised(out, ErrorCode.UNKNOWN_TAG)
    # the UID is the journal's (the error's detail), never a public message's
    assert "DEADBEEF0001" not in out.errors[0].message
    assert out.errors[0].detail["uid"] == "DEADBEEF0001"
    assert frozen_view(d) == before
    check_halt_and_clear(d, ErrorCode.UNKNOWN_TAG, "Qh")


def test_second_deck() -> None:
    d = started()
    deal_holes(d, "As")
    before = frozen_view(d)
    out = d.read("Kd", deck=BLUE)
    assert_raised(out, ErrorCode.SECOND_DECK)
    assert "demo-blue" in out.errors[0].message
    assert frozen_view(d) == before
    check_halt_and_clear(d, ErrorCode.SECOND_DECK, "Kd")


def test_unknown_tag_between_hands_is_still_an_error() -> None:
    d = fresh()
    out = d.read("As", uid="0BADBADBAD")
    assert_raised(out, ErrorCode.UNKNOWN_TAG)
    refused = d.cmd("start_hand")
    assert refused.reply is not None and refused.reply.code is ErrorCode.WRONG_PHASE


def test_shoe_repeat_within_debounce_is_ignored_later_it_is_a_duplicate() -> None:
    d = started()
    d.read("As")
    before = frozen_view(d)
    out = d.read("As")  # one second later, same shoe antenna: a bounce
    assert out.events == () and out.errors == ()
    assert "repeats" in out.log[0]
    d.tick()
    d.tick()
    out = d.read("As")
    assert_raised(out, ErrorCode.DUPLICATE_CARD)
    assert out.errors[0].message.startswith("A card was already dealt to seat 2")
    assert "As" not in out.errors[0].message, "a hole card is never named in public"
    assert frozen_view(d) == before
    check_halt_and_clear(d, ErrorCode.DUPLICATE_CARD, "Kd")


def test_table_card_read_again_where_it_lies_is_ignored_elsewhere_a_duplicate() -> None:
    d = started()
    assert d.read("As", location="seat 2 slot 1").secure_events
    assert d.read("As", location="seat 2 slot 2").events == ()  # same seat: still lies there
    before = frozen_view(d)
    out = d.read("As", location="seat 3")
    assert_raised(out, ErrorCode.DUPLICATE_CARD)
    assert frozen_view(d) == before


def test_too_many_cards_for_a_seat() -> None:
    d = started()
    d.read("As", location="seat 2")
    d.read("Ks", location="seat 2")  # seat 2's second card: held until its turn
    before = frozen_view(d)
    out = d.read("Qs", location="seat 2")
    assert_raised(out, ErrorCode.TOO_MANY_CARDS)
    assert "seat 2 has all its cards" in out.errors[0].message
    assert frozen_view(d) == before


def test_too_many_cards_on_a_filled_board_position() -> None:
    d = started()
    deal_holes(d, "2c 3c 4c 5c 6c 7c")
    for seat in (1, 2, 3):
        assert d.act(seat, "call" if seat != 3 else "check").reply.ok  # type: ignore[union-attr]
    exp = d.ctl.expected()
    assert not isinstance(exp, Act), exp
    for pos, card in enumerate(("Ah", "Kh", "Qh"), start=1):
        d.read(card, location=f"board {pos}")
    assert d.ctl.public_snapshot()["board"] == ["Ah", "Kh", "Qh"]
    before = frozen_view(d)
    out = d.read("Jh", location="board 2")
    assert_raised(out, ErrorCode.TOO_MANY_CARDS)
    assert frozen_view(d) == before


def test_board_card_from_the_shoe_before_the_round_closes() -> None:
    d = started()
    deal_holes(d, "2c 3c 4c 5c 6c 7c")
    assert isinstance(d.ctl.expected(), Act)
    before = frozen_view(d)
    out = d.read("Ah")
    assert_raised(out, ErrorCode.BOARD_BEFORE_ROUND_CLOSED)
    assert "preflop" in out.errors[0].message
    assert frozen_view(d) == before
    check_halt_and_clear(d, ErrorCode.BOARD_BEFORE_ROUND_CLOSED, "Kh", resume=False)


def test_board_antenna_before_the_round_closes() -> None:
    d = started()
    deal_holes(d, "2c 3c 4c 5c 6c 7c")
    before = frozen_view(d)
    out = d.read("Ah", location="board 1")
    assert_raised(out, ErrorCode.BOARD_BEFORE_ROUND_CLOSED)
    assert frozen_view(d) == before


@pytest.mark.parametrize("location", ["board 1", "seat 7", "burn"])
def test_wrong_antenna_while_hole_cards_are_dealt(location: str) -> None:
    d = started()
    deal_holes(d, "As")
    assert isinstance(d.ctl.expected(), DealHole)
    before = frozen_view(d)
    out = d.read("Kd", location=location)
    assert_raised(out, ErrorCode.WRONG_ANTENNA)
    assert frozen_view(d) == before
    check_halt_and_clear(d, ErrorCode.WRONG_ANTENNA, "Kd")


def test_doubtful_read_confirmed() -> None:
    d = started()
    before = frozen_view(d)
    out = d.read("As", source="camera", status=ReadStatus.NEEDS_CONFIRMATION,
                 confidence=0.61)
    assert_raised(out, ErrorCode.DOUBTFUL_READ)
    read_id = out.errors[0].detail["read"]
    assert frozen_view(d) == before
    assert d.ctl.secure_snapshot()["pending_read"] == {
        "read": read_id, "card": "As", "confidence": 0.61, "target": "seat 2"}
    assert "As" not in str(d.ctl.public_snapshot())
    assert d.read("Kd").events == ()  # held: reads wait
    wrong = d.cmd("confirm_read", read="r999")
    assert wrong.reply is not None and wrong.reply.code is ErrorCode.NO_SUCH_READ
    ok = d.cmd("confirm_read", read=read_id)
    assert ok.reply is not None and ok.reply.ok and ok.reply.result["accepted"] is True
    assert [(e.code, e.active, e.by) for e in ok.errors] == [
        (ErrorCode.DOUBTFUL_READ, False, "dealer-t01")]
    assert [e.data["cards"] for e in ok.secure_events] == [["As"]]
    assert d.ctl.secure_snapshot()["pending_read"] is None
    assert d.ctl.phase is Phase.DEALING


def test_doubtful_read_rejected_then_dealt_manually() -> None:
    d = started()
    out = d.read("As", status=ReadStatus.NEEDS_CONFIRMATION, confidence=0.4)
    read_id = out.errors[0].detail["read"]
    before = frozen_view(d)
    rej = d.cmd("reject_read", read=read_id)
    assert rej.reply is not None and rej.reply.ok and rej.errors[0].active is False
    assert frozen_view(d) == before and d.ctl.phase is Phase.DEALING
    man = d.cmd("manual_card", card="Ad", seat=2)
    assert man.reply is not None and man.reply.ok
    assert [e.data["cards"] for e in man.secure_events] == [["Ad"]]


def test_doubtful_read_corrected_by_manual_card() -> None:
    d = started()
    out = d.read("As", status=ReadStatus.NEEDS_CONFIRMATION, confidence=0.4)
    read_id = out.errors[0].detail["read"]
    need = d.cmd("manual_card", card="Ac")
    assert need.reply is not None and need.reply.code is ErrorCode.BAD_ARGS
    fix = d.cmd("manual_card", card="Ac", read=read_id)
    assert fix.reply is not None and fix.reply.ok
    assert [e.data["cards"] for e in fix.secure_events] == [["Ac"]]
    assert not d.ctl.active_errors


def test_table_reads_between_hands_and_on_the_muck_are_ignored() -> None:
    d = fresh()
    out = d.read("As", location="seat 1")
    assert out.events == () and out.errors == () and "no hand" in out.log[0]
    d.cmd("start_hand")
    before = frozen_view(d)
    out = d.read("As", location="muck")
    assert out.events == () and out.errors == () and frozen_view(d) == before


def test_table_reads_in_any_order_within_a_round() -> None:
    d = started()
    # dealing order is seats 2, 3, 1, 2, 3, 1 (button 1); the antennas report otherwise
    order = [("Ah", 1), ("Kh", 3), ("Qh", 1), ("Jh", 2), ("Th", 3), ("9h", 2)]
    for card, seat in order:
        out = d.read(card, location=f"seat {seat}")
        assert out.errors == ()
    sec = d.ctl.secure_snapshot()
    held = {s["seat"]: [c["card"] for c in s["cards"]] for s in sec["seats"] if s["cards"]}
    assert held == {1: ["Ah", "Qh"], 2: ["Jh", "9h"], 3: ["Kh", "Th"]}
    assert isinstance(d.ctl.expected(), Act)


def test_unread_burn_before_a_board_antenna_read_is_entered_as_unknown() -> None:
    d = started()
    deal_holes(d, "2c 3c 4c 5c 6c 7c")
    for seat, kind in ((1, "call"), (2, "call"), (3, "check")):
        assert d.act(seat, kind).reply.ok  # type: ignore[union-attr]
    for pos, card in ((3, "Qh"), (1, "Ah"), (2, "Kh")):
        assert d.read(card, location=f"board {pos}").errors == ()
    assert d.ctl.public_snapshot()["board"] == ["Ah", "Kh", "Qh"]
    assert d.ctl.secure_snapshot()["burns"] == [None]
    view = d.ctl.hand_view()
    assert view is not None and isinstance(view.expected, Act)
    assert not isinstance(view.expected, DealBoard)


def test_shoe_read_of_an_already_seen_card_after_undo_window() -> None:
    d = started()
    d.read("As")
    d.now += timedelta(seconds=10)
    out = d.read("As", antenna=1)
    assert_raised(out, ErrorCode.DUPLICATE_CARD)
    assert RED.card_for(RED.uid_for(Card.parse("As"))) == Card.parse("As")


def test_a_slot_holds_one_card() -> None:
    d = started()
    assert d.read("Ks", location="seat 2 slot 2").errors == ()  # held until its turn
    before = frozen_view(d)
    out = d.read("Qs", location="seat 2 slot 2")
    assert_raised(out, ErrorCode.TOO_MANY_CARDS)
    assert "slot 2" in out.errors[0].message
    assert frozen_view(d) == before


def test_stud_slots_keep_down_cards_down() -> None:
    d = started(game=GameKind.STUD, structure=FL, stacks=(1000, 1000))
    # the up card (slot 3) lies on the antenna before the down cards are read
    for card, where in [("Ah", "seat 1 slot 3"), ("Kh", "seat 2 slot 3"),
                        ("2c", "seat 1 slot 1"), ("3c", "seat 2 slot 1"),
                        ("4c", "seat 1 slot 2"), ("5c", "seat 2 slot 2")]:
        assert d.read(card, location=where).errors == ()
    seats = d.ctl.public_snapshot()["seats"]
    assert [c["card"] for c in seats[0]["cards"]] == [None, None, "Ah"]
    assert [c["card"] for c in seats[1]["cards"]] == [None, None, "Kh"]
