"""Replay determinism: any input sequence, journaled through the codec and replayed (from the
start, or from the last hand's checkpoint), gives the same outcomes and snapshots."""

from __future__ import annotations

import json
import random
from datetime import timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablectl.controller import (
    COMMANDS,
    ControllerInput,
    DeviceStatus,
    HandController,
    ReadStatus,
    TableState,
    TagLeft,
    input_from_json,
    input_to_json,
)
from tablectl.domain.cards import FULL_DECK
from tablectl.game import Act, DealBoard, Showdown

from .helpers import (
    BLUE,
    DEALER,
    FLOOR,
    RED,
    VARIANTS,
    Driver,
    card_expected,
    fresh,
)

LOCATIONS = ["seat 1", "seat 2 slot 1", "seat 3", "seat 7", "board 1", "board 4", "muck",
             "burn"]


def chaos(d: Driver, rng: random.Random, moves: int) -> None:
    """Drive the controller with a mix of proper dealing and every kind of mistake."""
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    used: list[str] = []
    commands: list[ControllerInput] = []

    def next_card() -> str:
        nonlocal deck
        if not deck:
            deck = list(FULL_DECK)
            rng.shuffle(deck)
        card = str(deck.pop())
        used.append(card)
        return card

    for _ in range(moves):
        kind = rng.randrange(14)
        ctl = d.ctl
        exp = ctl.expected()
        if kind <= 5:  # progress
            if exp is None:
                d.cmd("start_hand")
            elif card_expected(exp):
                where = None
                if rng.random() < 0.4:  # through a table antenna (the burn left unread)
                    seat = getattr(exp, "seat", rng.randint(1, 4))
                    where = (f"board {exp.index + 1}" if isinstance(exp, DealBoard)
                             else f"seat {seat}")
                d.read(next_card(), location=where)
            elif isinstance(exp, Act):
                legal = exp.legal
                k = rng.choice(sorted(legal.kinds, key=lambda x: x.value))
                amount = rng.choice([legal.min_to, legal.max_to, None])
                d.act(exp.seat, k.value, amount)
            elif isinstance(exp, Showdown):
                d.cmd("action", seat=exp.seat, kind=rng.choice(["show", "muck"]))
            else:
                d.cmd("next_hand")
        if kind == 6:
            which = rng.randrange(7)
            if which == 0:
                d.read("As", uid=f"{rng.randrange(16**8):08X}")
            elif which == 1:
                d.read(next_card(), deck=BLUE)
            elif which == 2 and used:
                d.tick()
                d.tick()
                d.tick()
                d.read(rng.choice(used))
            elif which == 3:
                d.read(next_card(), status=ReadStatus.NEEDS_CONFIRMATION, confidence=0.5)
            elif which == 4:
                d.read(next_card(), location=rng.choice(LOCATIONS))
            elif which == 5:
                d.feed(TagLeft("table", RED.uid_for(FULL_DECK[rng.randrange(52)]), 3,
                               d.tick()))
            else:
                d.feed(DeviceStatus(rng.choice(["shoe", "table"]), rng.random() < 0.5,
                                    d.tick(), kind="rfid-shoe"))
        elif kind == 7:  # the dealer / floor sorts things out
            for err in ctl.active_errors:
                d.cmd("clear_error", user=FLOOR, code=err.code.value)
            pending = ctl.secure_snapshot()["pending_read"]
            if pending:
                if rng.random() < 0.3:
                    d.cmd("undo")
                name = rng.choice(["confirm_read", "reject_read", "manual_card"])
                if name == "manual_card":
                    d.cmd(name, read=pending["read"], card=next_card())  # type: ignore[index]
                else:
                    d.cmd(name, read=pending["read"])  # type: ignore[index]
        elif kind == 8:
            d.cmd("undo")
        elif kind == 9 and rng.random() < 0.2:
            d.cmd(rng.choice(["misdeal", "kill_hand"]), user=rng.choice([DEALER, FLOOR]))
        elif kind == 10:  # anything at all, maybe malformed
            name = rng.choice([*sorted(COMMANDS), "bogus"])
            args = {rng.choice(["seat", "kind", "amount", "card", "code", "read", "name",
                                "stack", "reason", "board", "zzz"]):
                    rng.choice([1, 2, 3, -50, "call", "As", None, True, "x", 400])
                    for _ in range(rng.randrange(4))}
            d.cmd(name, user=rng.choice([DEALER, FLOOR, "display-01", "mallory"]), **args)
        elif kind == 11 and commands:  # a redelivered command
            d.feed(rng.choice(commands))
        elif kind == 12:
            d.cmd("start_hand", sent_at=d.now - timedelta(seconds=rng.choice([1, 30])))
        elif kind == 13:
            seat = rng.randint(1, 10)
            name = rng.choice(["adjust_stack", "seat_player", "unseat_player"])
            args = {"adjust_stack": {"seat": seat, "amount": rng.randint(-500, 500),
                                     "reason": "rebuy"},
                    "seat_player": {"seat": seat, "name": f"N{seat}",
                                    "stack": rng.randint(0, 3000)},
                    "unseat_player": {"seat": seat}}[name]
            d.cmd(name, user=FLOOR, **args)
        if d.inputs and d.inputs[-1].type == "command":
            commands.append(d.inputs[-1])


def journal(inp: ControllerInput) -> ControllerInput:
    """Through the journal's JSON and back."""
    text = json.dumps(input_to_json(inp), sort_keys=True)
    back = input_from_json(json.loads(text))
    assert back == inp
    return back


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rng=st.randoms(use_true_random=False), variant=st.sampled_from(VARIANTS),
       moves=st.integers(10, 160))
def test_replay_from_the_journal_is_identical(rng: random.Random, variant: tuple[object, ...],
                                              moves: int) -> None:
    game, structure = variant
    d = fresh(game, structure, stacks=(3000, 800, 5000, 2000))  # type: ignore[arg-type]
    chaos(d, rng, moves)
    setup, initial = d.ctl.setup, TableState.from_json(json.loads(json.dumps(
        fresh(game, structure, stacks=(3000, 800, 5000, 2000)).ctl.checkpoint().to_json())))  # type: ignore[arg-type]
    again = HandController(setup, initial)
    for inp, out in zip(d.inputs, d.outcomes, strict=True):
        assert again.handle(journal(inp)) == out
    assert again.public_snapshot() == d.ctl.public_snapshot()
    assert again.secure_snapshot() == d.ctl.secure_snapshot()
    assert again.checkpoint() == d.ctl.checkpoint()
    # restore at the last hand start and replay only what came after
    starts = [i for i, o in enumerate(d.outcomes) if o.hand_started is not None]
    if starts:
        i = starts[-1]
        started = d.outcomes[i].hand_started
        assert started is not None
        checkpoint = TableState.from_json(json.loads(json.dumps(started.checkpoint.to_json())))
        assert checkpoint == started.checkpoint
        restored = HandController.restore(setup, checkpoint)
        for inp, out in zip(d.inputs[i:], d.outcomes[i:], strict=True):
            assert restored.handle(journal(inp)) == out
        assert restored.public_snapshot() == d.ctl.public_snapshot()
        assert restored.secure_snapshot() == d.ctl.secure_snapshot()
        assert restored.checkpoint() == d.ctl.checkpoint()
