"""A shoe card drawn while no hand is in progress (issue 25, item 4): an error state for the
dealer, never silently the first card of the next hand."""

from __future__ import annotations

from dataclasses import replace

from tablectl.controller import CardRead, ErrorCode
from tablectl.domain.cards import Card

from .helpers import FLOOR, fresh


def _holes(d: object) -> dict[int, list[str]]:
    sec = d.ctl.secure_snapshot()  # type: ignore[attr-defined]
    return {s["seat"]: [c["card"] for c in s["cards"]] for s in sec["seats"] if s["cards"]}


def test_a_card_drawn_before_start_hand_is_an_error_and_the_next_cards_land_right() -> None:
    d = fresh()
    stray = d.read("Ah")
    assert [(e.code, e.active) for e in stray.errors] == [(ErrorCode.TOO_MANY_CARDS, True)]
    assert stray.errors[0].detail["when"] == "no_hand"
    assert "Ah" not in stray.errors[0].message       # the card may be nobody's to see
    assert d.ctl.public_snapshot()["phase"] == "fault"
    refused = d.cmd("start_hand")                    # the dealer must deal with it first
    assert refused.reply is not None and refused.reply.code is ErrorCode.WRONG_PHASE
    cleared = d.cmd("clear_error", user=FLOOR, code="too_many_cards")
    assert cleared.reply is not None and cleared.reply.ok
    assert d.cmd("start_hand").reply.ok  # type: ignore[union-attr]
    for text in ("Kd", "Qc", "Js", "Td", "9c", "8s"):
        assert d.read(text).errors == ()
    # button 1: seats 2, 3, 1, 2, 3, 1; the stray Ah is in no hand
    assert _holes(d) == {1: ["Js", "8s"], 2: ["Kd", "Td"], 3: ["Qc", "9c"]}


def test_a_card_drawn_after_the_hand_settled_is_an_error_a_resent_read_is_not() -> None:
    d = fresh()
    assert d.cmd("start_hand").reply.ok  # type: ignore[union-attr]
    for text in ("2c", "3c", "4c", "5c", "6c", "7c"):
        assert d.read(text).errors == ()
    last_read = d.inputs[-1]
    assert d.act(1, "fold").reply.ok  # type: ignore[union-attr]
    assert d.act(2, "fold").reply.ok  # type: ignore[union-attr]
    assert d.ctl.public_snapshot()["phase"] == "settled"
    # the reader resends the hand's last read (its ACK was lost): a repeat, nothing raised
    assert isinstance(last_read, CardRead)
    again = d.feed(replace(last_read, at=d.tick()))
    assert again.errors == () and "repeats" in again.log[0]
    out = d.read("Ks")
    assert [(e.code, e.active) for e in out.errors] == [(ErrorCode.TOO_MANY_CARDS, True)]
    assert out.errors[0].detail == {"card": "Ks", "read": f"r{d.n}", "when": "settled"}
    assert Card.parse("Ks") not in d.ctl.hand_view().board  # type: ignore[union-attr]
