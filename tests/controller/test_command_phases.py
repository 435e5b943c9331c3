"""The command table against the real controller, through the daemon on the in-memory journal.

A hypothesis state machine deals hands (shoe reads, legal decisions, next_hand) and, between
its steps, sends random commands, valid and not, in whatever stage the table is in. After every
command: one that the table does not allow in the stage it was sent in is refused with
``wrong_phase`` and the table's reason, an unknown one with ``unknown_command``, bad arguments
with ``bad_args``; a refused command changes nothing (snapshots, hand, stage, checkpoint but
for the reply it caches). After every step the stored stage is the one the hand implies.
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from tablectl.clock import ManualClock
from tablectl.controller import (
    COMMAND_TABLE,
    CardRead,
    Command,
    ErrorCode,
    HandController,
    Outcome,
    Phase,
    Stage,
)
from tablectl.daemon import TableDaemon
from tablectl.domain.cards import FULL_DECK
from tablectl.domain.jsonvalue import JsonValue
from tablectl.game import Act, Done, Showdown
from tablectl.journal import MemoryJournal
from tablectl.publish.base import MemoryPublisher
from tests.controller.helpers import FLOOR, RED, card_expected, initial_state, make_setup

_CARDS = [str(c) for c in FULL_DECK]
_VALID_ARGS: dict[str, st.SearchStrategy[dict[str, JsonValue]]] = {
    "start_hand": st.just({}),
    "undo": st.just({}),
    "misdeal": st.just({}),
    "kill_hand": st.just({}),
    "next_hand": st.just({}),
    "action": st.fixed_dictionaries(
        {"kind": st.sampled_from(["fold", "check", "call", "bet", "raise", "show", "muck"])},
        optional={"seat": st.integers(1, 4)}),
    "manual_card": st.fixed_dictionaries({}, optional={"card": st.sampled_from(_CARDS)}),
    "confirm_read": st.fixed_dictionaries({"read": st.sampled_from(["r1", "r2"])}),
    "reject_read": st.fixed_dictionaries({"read": st.sampled_from(["r1", "r2"])}),
    "adjust_stack": st.fixed_dictionaries({"seat": st.integers(1, 4),
                                           "amount": st.integers(-100, 100),
                                           "reason": st.just("count")}),
    "seat_player": st.fixed_dictionaries({"seat": st.integers(1, 10), "name": st.just("Zed"),
                                          "stack": st.integers(0, 2000)}),
    "unseat_player": st.fixed_dictionaries({"seat": st.integers(1, 4)}),
    "clear_error": st.fixed_dictionaries({"code": st.sampled_from([c.value
                                                                    for c in ErrorCode])}),
    "choose_game": st.fixed_dictionaries({"game": st.sampled_from(["razz", "holdem"])}),
    "run_it": st.fixed_dictionaries({"count": st.integers(1, 3)}),
}
assert set(_VALID_ARGS) == set(COMMAND_TABLE)


def implied_stage(ctl: HandController) -> Stage:
    """The stage the hand implies: none, over (every pot awarded) or in progress."""
    if ctl.hand_id is None:
        return Stage.NO_HAND
    return Stage.SETTLED if isinstance(ctl.expected(), Done) else Stage.IN_HAND


def table_now(ctl: HandController) -> object:
    """Everything a refused command must leave as it was (the reply cache aside)."""
    return (ctl.stage, ctl.public_snapshot(), ctl.secure_snapshot(), ctl.hand_view(),
            replace(ctl.checkpoint(), replies=()))


class CommandPhases(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.clock = ManualClock()
        self.daemon = TableDaemon(make_setup(), initial_state((600, 600)),
                                  MemoryJournal(self.clock), MemoryPublisher(), clock=self.clock)
        self.daemon.recover()
        self.n = 0
        self.deck = list(_CARDS)

    @property
    def ctl(self) -> HandController:
        return self.daemon.controller

    def send(self, name: str, args: dict[str, JsonValue]) -> Outcome:
        self.n += 1
        self.clock.advance(1)
        return self.daemon.apply(Command(name=name, user=FLOOR, id=f"c{self.n}",
                                         at=self.clock.now(), args=args))

    # --- moving the table through its stages ----------------------------------------------

    @precondition(lambda self: self.ctl.stage is not Stage.IN_HAND)
    @rule(data=st.data())
    def start_or_next(self, data: st.DataObject) -> None:
        if data.draw(st.booleans(), label="a command first"):
            self.command(data)
        self.send("next_hand" if self.ctl.stage is Stage.SETTLED else "start_hand", {})
        self.deck = list(_CARDS)

    @precondition(lambda self: self.ctl.stage is Stage.IN_HAND)
    @rule(data=st.data())
    def deal_step(self, data: st.DataObject) -> None:
        exp = self.ctl.expected()
        if card_expected(exp):
            card = data.draw(st.sampled_from(self.deck), label="card")
            self.deck.remove(card)
            self.n += 1
            self.clock.advance(1)
            self.daemon.apply(CardRead(source="shoe", uid=RED.uid_for(FULL_DECK[
                _CARDS.index(card)]), antenna=0, read_id=f"r{self.n}", at=self.clock.now()))
        elif isinstance(exp, Act):
            kinds = sorted(k.value.replace("-", "_") for k in exp.legal.kinds)
            fold = "fold" in kinds and data.draw(st.booleans(), label="fold")
            kind = "fold" if fold else data.draw(st.sampled_from(kinds), label="kind")
            self.send("action", {"seat": exp.seat, "kind": kind})
        elif isinstance(exp, Showdown):
            self.send("action", {"seat": exp.seat,
                                 "kind": data.draw(st.sampled_from(["show", "muck"]))})

    @precondition(lambda self: not self.ctl.active_errors)
    @rule()
    def stray_read(self) -> None:
        self.n += 1
        self.clock.advance(1)
        self.daemon.apply(CardRead(source="shoe", uid="DEADBEEF", antenna=0,
                                   read_id=f"r{self.n}", at=self.clock.now()))

    @precondition(lambda self: self.ctl.phase is Phase.FAULT)
    @rule()
    def clear_errors(self) -> None:
        for error in self.ctl.active_errors:
            self.send("clear_error", {"code": error.code.value})

    # --- random commands ---------------------------------------------------------------------

    @rule(data=st.data())
    def command(self, data: st.DataObject) -> None:
        name = data.draw(st.sampled_from([*sorted(COMMAND_TABLE), "deal_faster"]), label="name")
        bad = data.draw(st.integers(0, 3), label="bad args") == 0
        args = {"bogus": 1} if bad else data.draw(_VALID_ARGS.get(name, st.just({})))
        stage = self.ctl.stage
        hand = self.ctl.hand_id
        before = table_now(self.ctl)
        out = self.send(name, args)
        reply = out.reply
        assert reply is not None
        row = COMMAND_TABLE.get(name)
        if row is None:
            assert reply.code is ErrorCode.UNKNOWN_COMMAND
        elif bad:
            assert reply.code is ErrorCode.BAD_ARGS
        elif stage not in row.phases:
            assert reply.code is ErrorCode.WRONG_PHASE
            assert reply.reason == row.wrong_phase[stage].format(name=name, hand=hand)
        if not reply.ok:
            assert out.events == () and out.secure_events == () and out.errors == ()
            assert table_now(self.ctl) == before

    # --- after every step --------------------------------------------------------------------

    @invariant()
    def stage_is_what_the_hand_implies(self) -> None:
        ctl = self.ctl
        assert ctl.stage is implied_stage(ctl)
        assert (ctl.phase is Phase.IDLE) == (ctl.stage is Stage.NO_HAND
                                             and ctl.phase is not Phase.FAULT)
        assert (ctl.phase is Phase.SETTLED) == (ctl.stage is Stage.SETTLED
                                                and ctl.phase is not Phase.FAULT)


CommandPhases.TestCase.settings = settings(
    max_examples=30, stateful_step_count=50, deadline=None,
    suppress_health_check=[HealthCheck.too_slow])
test_command_phases = CommandPhases.TestCase
