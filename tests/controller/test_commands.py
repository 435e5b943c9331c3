"""Commands: authorisation, idempotency, refusals that change nothing, and every correction."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from tablectl.controller import (
    DeviceStatus,
    ErrorCode,
    HandController,
    Outcome,
    Phase,
    Reply,
    TableState,
)
from tablectl.domain.cards import parse_cards
from tablectl.domain.games import GameKind
from tablectl.game import Act, ActionIn, ActionKind, CardIn, Hand, SeatSetup

from .helpers import DEALER, FL, FLOOR, Driver, fresh, make_setup


def state_of(d: Driver) -> tuple[Any, ...]:
    return (d.ctl.public_snapshot(), d.ctl.secure_snapshot(), d.ctl.hand_view(),
            d.ctl.checkpoint().seats, d.ctl.checkpoint().button, d.ctl.active_errors)


def refused(d: Driver, code: ErrorCode, name: str, /, user: str = DEALER,
            **args: Any) -> Reply:
    """Send a command that must be refused with ``code`` and change nothing."""
    before = state_of(d)
    out = d.cmd(name, user=user, **args)
    assert out.reply is not None and not out.reply.ok, out.reply
    assert out.reply.code is code, out.reply
    assert out.events == () and out.secure_events == () and out.errors == ()
    assert not out.public_changed and not out.secure_changed
    assert out.hand_started is None and out.hand_ended is None
    assert state_of(d) == before
    return out.reply


def ok(out: Outcome) -> dict[str, Any]:
    assert out.reply is not None and out.reply.ok, out.reply
    return dict(out.reply.result)


def preflop(d: Driver) -> None:
    """Start a 3-seat hold'em hand (button 1: SB 2, BB 3) and deal the hole cards."""
    ok(d.cmd("start_hand"))
    for card in ["2c", "3c", "4c", "5c", "6c", "7c"]:
        d.read(card)
    assert isinstance(d.ctl.expected(), Act)


# --- refusals ----------------------------------------------------------------------------------


def test_unknown_command_and_app_commands() -> None:
    d = fresh()
    refused(d, ErrorCode.UNKNOWN_COMMAND, "explode")
    refused(d, ErrorCode.UNKNOWN_COMMAND, "recall", hands=3)  # the app answers recall


@pytest.mark.parametrize(("user", "name", "args"), [
    ("stranger", "start_hand", {}),
    ("display-01", "start_hand", {}),
    (DEALER, "adjust_stack", {"seat": 1, "amount": 100, "reason": "rebuy"}),
    (DEALER, "seat_player", {"seat": 5, "name": "Eve", "stack": 100}),
    (DEALER, "unseat_player", {"seat": 1}),
    (DEALER, "kill_hand", {}),
    (DEALER, "clear_error", {"code": "unknown_tag"}),
])
def test_not_authorised(user: str, name: str, args: dict[str, Any]) -> None:
    d = fresh()
    reply = refused(d, ErrorCode.NOT_AUTHORISED, name, user=user, **args)
    assert user in reply.reason


def test_identity_comes_from_the_topic_not_the_payload() -> None:
    d = fresh()
    refused(d, ErrorCode.BAD_ARGS, "start_hand", user=DEALER, user_claim=FLOOR)
    refused(d, ErrorCode.NOT_AUTHORISED, "adjust_stack", user=DEALER, seat=1, amount=5,
            reason="x", user_name=FLOOR)


def test_stale_command() -> None:
    d = fresh()
    old = d.now - timedelta(seconds=30)
    reply = refused(d, ErrorCode.STALE_COMMAND, "start_hand", sent_at=old)
    assert "at most 10 s" in reply.reason
    fresh_enough = d.now - timedelta(seconds=5)
    ok(d.cmd("start_hand", sent_at=fresh_enough))


@pytest.mark.parametrize("args", [
    {"seat": 1}, {"seat": "1", "kind": "call"}, {"seat": 1, "kind": 3},
    {"seat": 1, "kind": "dance"}, {"seat": 1, "kind": "call", "amount": 1.5},
    {"seat": 1, "kind": "call", "extra": 1}, {"seat": True, "kind": "call"},
])
def test_bad_args(args: dict[str, Any]) -> None:
    d = fresh()
    preflop(d)
    refused(d, ErrorCode.BAD_ARGS, "action", **args)


def test_out_of_turn_and_illegal_action() -> None:
    d = fresh()
    refused(d, ErrorCode.WRONG_PHASE, "action", seat=1, kind="call")
    preflop(d)
    reply = refused(d, ErrorCode.OUT_OF_TURN, "action", seat=2, kind="call")
    assert "seat 1 is to act" in reply.reason
    reply = refused(d, ErrorCode.ILLEGAL_ACTION, "action", seat=1, kind="check")
    assert "to call" in reply.reason
    refused(d, ErrorCode.ILLEGAL_ACTION, "action", seat=1, kind="raise", amount=150)
    refused(d, ErrorCode.OUT_OF_TURN, "action", seat=1, kind="show")


def test_keypad_actions_name_no_seat_and_no_amount() -> None:
    d = fresh(stacks=(1000, 2000, 3000))
    ok(d.cmd("start_hand"))
    refused(d, ErrorCode.OUT_OF_TURN, "action", kind="call")  # still dealing
    for card in ["2c", "3c", "4c", "5c", "6c", "7c"]:
        d.read(card)
    raised = ok(d.cmd("action", kind="raise", amount=None))
    assert raised == {"seat": 1, "kind": "raise", "amount": 200, "to": 200}  # min raise: 2 BB
    assert ok(d.cmd("action", kind="call"))["seat"] == 2


def test_action_while_dealing_is_out_of_turn() -> None:
    d = fresh()
    ok(d.cmd("start_hand"))
    refused(d, ErrorCode.OUT_OF_TURN, "action", seat=2, kind="fold")


# --- idempotency -------------------------------------------------------------------------------


def test_repeated_id_gets_the_same_reply_and_applies_nothing() -> None:
    d = fresh()
    preflop(d)
    first = d.cmd("action", cid="same", seat=1, kind="raise", amount=300)
    ok(first)
    before = state_of(d)
    again = d.cmd("action", cid="same", seat=2, kind="fold")
    assert again.duplicate and again.reply == first.reply
    assert again.events == () and not again.public_changed and state_of(d) == before
    # a refused command repeats its refusal too, even once it would now be fine
    bad = d.cmd("action", cid="bad", seat=3, kind="call")
    assert bad.reply is not None and bad.reply.code is ErrorCode.OUT_OF_TURN
    ok(d.cmd("action", seat=2, kind="fold"))
    assert d.cmd("action", cid="bad", seat=3, kind="call").reply == bad.reply
    # the same id from another user is another command
    other = d.cmd("action", user=FLOOR, cid="same", seat=3, kind="call")
    assert not other.duplicate and ok(other)["kind"] == "call"


def test_ids_of_the_previous_hand_are_remembered_also_after_restore() -> None:
    d = fresh()
    first = d.cmd("start_hand", cid="h1")
    ok(d.cmd("kill_hand", user=FLOOR, cid="k1"))
    second = d.cmd("start_hand", cid="h2")
    started = second.hand_started
    assert started is not None
    assert d.cmd("start_hand", cid="h1").reply == first.reply
    restored = HandController.restore(d.ctl.setup,
                                      TableState.from_json(started.checkpoint.to_json()))
    again = restored.handle(d.inputs[2])  # replay start_hand h2 onto the checkpoint
    assert again.reply == second.reply
    repeat = restored.handle(d.inputs[0])
    assert repeat.duplicate and repeat.reply == first.reply


# --- corrections -------------------------------------------------------------------------------


def test_undo_restores_the_state_before_the_last_decision() -> None:
    d = fresh()
    preflop(d)
    ok(d.act(1, "call"))
    before = d.ctl.public_snapshot(), d.ctl.secure_snapshot(), d.ctl.hand_view()
    ok(d.act(2, "raise", 300))
    out = d.cmd("undo")
    assert ok(out) == {"undone": {"seat": 2, "kind": "raise", "amount": 300}}
    assert [e.type for e in out.events] == ["correction"]
    assert out.public_changed
    log = [e for e in d.ctl.public_snapshot()["log"] if e["type"] in ("action", "correction")]
    assert [(e["type"], e.get("kind")) for e in log[-3:]] == [
        ("action", "call"), ("action", "raise"), ("correction", "undo")]   # as it happened
    assert log[-1]["undone"] == {"seat": 2, "kind": "raise", "amount": 300}
    assert without_log(d.ctl.public_snapshot(), d.ctl.secure_snapshot(), d.ctl.hand_view()) \
        == without_log(*before)
    ok(d.act(2, "call"))  # the hand goes on from there


def without_log(*parts: Any) -> tuple[Any, ...]:
    """Snapshots without their action log (a history: it keeps what was undone and the undo)."""
    return tuple({k: v for k, v in p.items() if k not in ("log", "log_omitted")}
                 if isinstance(p, dict) else p for p in parts)


def test_undo_is_refused_after_cards_or_without_a_decision() -> None:
    d = fresh()
    ok(d.cmd("start_hand"))
    refused(d, ErrorCode.NOTHING_TO_UNDO, "undo")
    for card in ["2c", "3c", "4c", "5c", "6c", "7c"]:
        d.read(card)
    ok(d.act(1, "call"))
    ok(d.act(2, "call"))
    ok(d.act(3, "check"))
    d.read("8c")  # the burn
    reply = refused(d, ErrorCode.NOTHING_TO_UNDO, "undo")
    assert "misdeal or kill_hand" in reply.reason


def test_undo_matches_the_engine_replayed_without_the_action() -> None:
    d = fresh()
    preflop(d)
    ok(d.act(1, "raise", 300))
    ok(d.act(2, "call"))
    view_before = d.ctl.hand_view()
    ok(d.cmd("undo"))
    view = d.ctl.hand_view()
    assert view is not None and view_before is not None
    engine = Hand.start(game=GameKind.HOLDEM, structure=d.ctl.setup.structure,
                        rules=d.ctl.setup.rule_set, stakes=d.ctl.setup.stakes,
                        seats=[SeatSetup(s.seat, s.stack, s.name)
                               for s in d.ctl.checkpoint().seats],
                        button=1, hand_id=view.hand_id)
    for card in parse_cards("2c 3c 4c 5c 6c 7c"):
        engine.apply(CardIn(card))
    engine.apply(ActionIn(1, ActionKind.RAISE, 300))
    assert view == engine.view()


def test_misdeal_restores_stacks_and_keeps_the_button() -> None:
    d = fresh(stacks=(1000, 2000, 3000), button=2)
    idle = d.ctl.public_snapshot()
    ok(d.cmd("start_hand"))
    d.read("As")
    d.read("Kd")
    out = d.cmd("misdeal")
    assert ok(out)["result"] == "misdeal"
    assert [e.type for e in out.events] == ["correction", "hand_ended"]
    assert out.events[1].data["stacks"] == [{"seat": 1, "stack": 1000},
                                            {"seat": 2, "stack": 2000},
                                            {"seat": 3, "stack": 3000}]
    assert out.hand_ended is not None and out.hand_ended.summary["result"] == "misdeal"
    assert d.ctl.phase is Phase.IDLE
    snap = d.ctl.public_snapshot()
    assert snap["button"] == 2 and snap["seats"] == idle["seats"]
    again = d.cmd("start_hand")
    assert ok(again)["hand"] == {"id": "t01-000002", "number": 2}
    assert again.events[0].data["button"] == 2


def test_misdeal_refused_after_substantial_action_kill_hand_is_not() -> None:
    d = fresh(stacks=(1000, 2000, 3000))
    preflop(d)
    ok(d.act(1, "raise", 300))
    ok(d.act(2, "call"))
    reply = refused(d, ErrorCode.WRONG_PHASE, "misdeal")
    assert "substantial action" in reply.reason
    out = d.cmd("kill_hand", user=FLOOR)
    assert ok(out)["result"] == "killed"
    assert [s["stack"] for s in d.ctl.public_snapshot()["seats"][:3]] == [1000, 2000, 3000]
    refused(d, ErrorCode.WRONG_PHASE, "kill_hand", user=FLOOR)


def test_manual_card_for_the_expected_target() -> None:
    d = fresh()
    ok(d.cmd("start_hand"))
    refused(d, ErrorCode.OUT_OF_TURN, "manual_card", card="As", seat=3)
    refused(d, ErrorCode.OUT_OF_TURN, "manual_card", card="As", board=True)
    refused(d, ErrorCode.BAD_ARGS, "manual_card", card="Zz", seat=2)
    out = d.cmd("manual_card", card="As", seat=2)
    ok(out)
    assert [e.data for e in out.secure_events] == [
        {"hand": {"id": "t01-000001", "number": 1}, "seat": 2, "cards": ["As"]}]
    correction = next(e for e in out.events if e.type == "correction")
    assert correction.data["card"] is None, "a hidden hole card is not named in public"
    refused(d, ErrorCode.DUPLICATE_CARD, "manual_card", card="As")
    d.read("As")  # the shoe now reports the card the dealer typed: a duplicate
    assert d.ctl.active_errors[0].code is ErrorCode.DUPLICATE_CARD


def test_unknown_burn_can_be_entered_manually() -> None:
    d = fresh()
    preflop(d)
    ok(d.act(1, "call"))
    ok(d.act(2, "call"))
    ok(d.act(3, "check"))
    out = d.cmd("manual_card", card=None, burn=True)
    assert ok(out)["target"] == "the burn"
    assert d.ctl.secure_snapshot()["burns"] == [None]


def test_stack_seat_and_unseat_only_between_hands() -> None:
    d = fresh(stacks=(1000, 2000, 3000))
    ok(d.cmd("start_hand"))
    refused(d, ErrorCode.WRONG_PHASE, "adjust_stack", user=FLOOR, seat=1, amount=5,
            reason="rebuy")
    refused(d, ErrorCode.WRONG_PHASE, "seat_player", user=FLOOR, seat=5, name="E", stack=5)
    refused(d, ErrorCode.WRONG_PHASE, "unseat_player", user=FLOOR, seat=1)
    ok(d.cmd("misdeal"))
    refused(d, ErrorCode.BAD_ARGS, "adjust_stack", user=FLOOR, seat=1, amount=5, reason=" ")
    refused(d, ErrorCode.BAD_ARGS, "adjust_stack", user=FLOOR, seat=1, amount=-1001,
            reason="chips off")
    refused(d, ErrorCode.BAD_ARGS, "adjust_stack", user=FLOOR, seat=4, amount=1, reason="x")
    out = d.cmd("adjust_stack", user=FLOOR, seat=1, amount=-400, reason="colour up error")
    assert ok(out) == {"seat": 1, "stack": 600}
    assert out.events[0].data == {"seat": 1, "name": "P1", "stack": 600, "change": "adjusted",
                                  "by": FLOOR, "amount": -400, "reason": "colour up error"}
    refused(d, ErrorCode.BAD_ARGS, "seat_player", user=FLOOR, seat=2, name="X", stack=5)
    refused(d, ErrorCode.BAD_ARGS, "seat_player", user=FLOOR, seat=11, name="X", stack=5)
    ok(d.cmd("seat_player", user=FLOOR, seat=7, name="Gil", stack=800))
    assert ok(d.cmd("unseat_player", user=FLOOR, seat=3)) == {"seat": 3, "name": "P3",
                                                               "stack": 3000}
    seats = {s["seat"]: (s["name"], s["stack"], s["status"])
             for s in d.ctl.public_snapshot()["seats"]}
    assert seats[1] == ("P1", 600, "active") and seats[3] == ("", 0, "empty")
    assert seats[7] == ("Gil", 800, "active")
    start = d.cmd("start_hand")
    assert [s["seat"] for s in start.events[0].data["seats"]] == [1, 2, 7]


def test_next_hand_moves_the_button_to_the_next_seat_with_chips() -> None:
    d = fresh(stacks=(1000, 2000, 3000), button=1)
    preflop(d)
    refused(d, ErrorCode.WRONG_PHASE, "next_hand")
    ok(d.act(1, "fold"))
    ok(d.act(2, "fold"))
    assert d.ctl.phase is Phase.SETTLED
    refused(d, ErrorCode.WRONG_PHASE, "start_hand")
    assert ok(d.cmd("next_hand")) == {"button": 2}
    assert d.ctl.public_snapshot()["hand"] is None
    ok(d.cmd("start_hand"))


def test_stud_has_no_button() -> None:
    d = Driver(HandController(make_setup(GameKind.STUD, FL),
                              TableState.initial([], 0)))
    for seat in (1, 2):
        ok(d.cmd("seat_player", user=FLOOR, seat=seat, name=f"S{seat}", stack=1000))
    out = d.cmd("start_hand")
    assert out.events[0].data["button"] is None
    assert d.ctl.public_snapshot()["button"] is None
    assert [e.data["kind"] for e in out.events if e.type == "forced_bet"] == ["ante", "ante"]


def test_clear_error_needs_an_active_error() -> None:
    d = fresh()
    refused(d, ErrorCode.NO_SUCH_ERROR, "clear_error", user=FLOOR, code="unknown_tag")
    refused(d, ErrorCode.NO_SUCH_ERROR, "clear_error", user=FLOOR, code="nonsense")


def test_device_status_changes_are_events_once() -> None:
    d = fresh()
    out = d.feed(DeviceStatus("shoe", True, d.tick(), kind="rfid-shoe"))
    assert [e.data for e in out.events] == [{"name": "shoe", "kind": "rfid-shoe",
                                             "status": "online"}]
    assert d.feed(DeviceStatus("shoe", True, d.tick())).events == ()
    out = d.feed(DeviceStatus("shoe", False, d.tick()))
    assert out.events[0].data["status"] == "offline"
    assert d.ctl.public_snapshot()["devices"] == [{"name": "shoe", "kind": "rfid-shoe",
                                                    "status": "offline"}]
