"""A refused input stays refused: a replay under any later config reproduces the live run.

The table runs through several daemon lifetimes on one SQLite journal, each under a config
drawn at random (roles, stakes, rules preset, command age, even the game), with random inputs:
authorised and not, stale, out of turn, malformed, reads. After every restart:

* a daemon under yet another random config rebuilds exactly the state of the last live one;
* one controller fed the whole journal (with its decisions) from the start, under a random
  config, yields exactly the live run's events and replies.
"""

from __future__ import annotations

import logging
import random
import tempfile
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablectl.clock import ManualClock
from tablectl.controller import Command, ErrorCode, HandController, Outcome, TableSetup
from tablectl.controller.decisions import journaled_reply
from tablectl.controller.inputs import CardRead, input_from_json, input_to_json
from tablectl.daemon import TableDaemon
from tablectl.domain.cards import FULL_DECK
from tablectl.domain.games import BettingStructure, GameKind, RulesPreset
from tablectl.domain.jsonvalue import JsonValue
from tablectl.game import Act, Showdown, Stakes
from tablectl.journal import InputRecord, SqliteJournal
from tablectl.publish.base import MemoryPublisher
from tests.controller.helpers import (
    DEALER,
    DECKS,
    FLOOR,
    RED,
    card_expected,
    initial_state,
    make_setup,
)

MALLORY = "mallory"
ROLE_SETS = [{}, {DEALER: "dealer", FLOOR: "floor"}, {FLOOR: "floor"},
             {DEALER: "display", FLOOR: "floor"}, {DEALER: "dealer"}]


def random_setup(rng: random.Random) -> TableSetup:
    game, structure = rng.choice([(GameKind.HOLDEM, BettingStructure.NO_LIMIT),
                                  (GameKind.HOLDEM, BettingStructure.POT_LIMIT),
                                  (GameKind.OMAHA, BettingStructure.POT_LIMIT)])
    blind = rng.choice([25, 50, 100])
    return TableSetup(table="t01", game=game, structure=structure,
                      stakes=Stakes(small_blind=blind, big_blind=2 * blind), deck_id="demo-red",
                      decks=DECKS, roles=rng.choice(ROLE_SETS),
                      preset=rng.choice([RulesPreset.CASINO, RulesPreset.ISLAND]),
                      max_command_age=rng.choice([5.0, 60.0]))


class Live:
    """One daemon lifetime fed random inputs; keeps every command's reply."""

    def __init__(self, daemon: TableDaemon, clock: ManualClock, rng: random.Random) -> None:
        self.daemon, self.clock, self.rng = daemon, clock, rng
        self.deck = list(FULL_DECK)
        rng.shuffle(self.deck)

    def now(self) -> object:
        self.clock.advance(1)
        return self.clock.now()

    def cmd(self, name: str, user: str, *, stale: bool = False, **args: JsonValue) -> None:
        at = self.clock.now() + timedelta(seconds=1)
        self.clock.advance(1)
        sent = at - timedelta(seconds=30) if stale else at
        self.daemon.apply(Command(name=name, user=user, id=f"c{self.rng.randrange(10**9)}",
                                  at=at, args=args, sent_at=sent))

    def read(self) -> None:
        if not self.deck:
            self.deck = list(FULL_DECK)
        card = self.deck.pop()
        self.clock.advance(1)
        self.daemon.apply(CardRead(source="shoe", uid=RED.uid_for(card), antenna=0,
                                   read_id=f"r{self.rng.randrange(10**9)}",
                                   at=self.clock.now()))

    def step(self) -> None:
        rng, ctl = self.rng, self.daemon.controller
        user = rng.choice([DEALER, DEALER, FLOOR, MALLORY])
        exp = ctl.expected()
        roll = rng.random()
        if roll < 0.1:
            self.cmd(rng.choice(["start_hand", "next_hand", "undo", "misdeal", "bogus"]),
                     user, stale=rng.random() < 0.5)
        elif roll < 0.15:
            for err in ctl.active_errors:
                self.cmd("clear_error", FLOOR, code=err.code.value)
        elif exp is None:
            self.cmd("start_hand", user, stale=rng.random() < 0.2)
        elif card_expected(exp):
            self.read()
        elif isinstance(exp, Act):
            seat = exp.seat if rng.random() < 0.8 else rng.randint(1, 4)   # out of turn
            kind = rng.choice(sorted(k.value for k in exp.legal.kinds))
            self.cmd("action", user, seat=seat, kind=kind)
        elif isinstance(exp, Showdown):
            self.cmd("action", user, seat=exp.seat, kind="show")
        else:
            self.cmd("next_hand", user)


def seen_of(out: Outcome) -> list[object]:
    """An outcome's events, secure events and reply, as the tests compare them."""
    seen: list[object] = [(e.type, dict(e.data)) for e in out.events]
    seen += [("secure", e.type, dict(e.data)) for e in out.secure_events]
    if out.reply is not None:
        seen.append(out.reply.to_json())
    return seen


def full_replay(journal: SqliteJournal, setup: TableSetup) -> list[object]:
    """What one controller fed the whole journal with its decisions produces, in order."""
    ctl = HandController(setup, initial_state((10, 20), button=1))
    seen: list[object] = []
    for record in journal.inputs():
        inp = input_from_json(record.payload)
        decided = journaled_reply(inp.id, record.decision) if isinstance(inp, Command) else None
        seen += seen_of(ctl.handle(inp, decided=decided))
    return seen


def run_lifetime(setup: TableSetup, journal: SqliteJournal, clock: ManualClock,
                 rng: random.Random, seen: list[object]) -> TableDaemon:
    """A daemon started on ``journal`` under ``setup``, fed 5-60 random inputs; every
    event and reply it produced is added to ``seen``."""
    daemon = TableDaemon(setup, initial_state((3000, 800, 5000), button=2), journal,
                         MemoryPublisher(), clock=clock)

    def keep(_inp: object, out: Outcome) -> None:
        seen.extend(seen_of(out))

    daemon.on_outcome = keep
    daemon.recover()
    live = Live(daemon, clock, rng)
    for _ in range(rng.randint(5, 60)):
        live.step()
    return daemon


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), lifetimes=st.integers(2, 4))
def test_replay_under_any_later_config_reproduces_the_live_run(seed: int, lifetimes: int) -> None:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        clock = ManualClock()
        journal = SqliteJournal.open(Path(tmp) / "j.sqlite", clock)
        seen: list[object] = []
        for _ in range(lifetimes):
            live = run_lifetime(random_setup(rng), journal, clock, rng, seen)
            # a restart under yet another config rebuilds exactly the live state
            probe = TableDaemon(random_setup(rng), initial_state((10, 20), button=1), journal,
                                MemoryPublisher(), clock=clock)
            probe._rebuild()
            assert probe.controller.public_snapshot() == live.controller.public_snapshot()
            assert probe.controller.secure_snapshot() == live.controller.secure_snapshot()
            assert probe.controller.checkpoint() == live.controller.checkpoint()
        assert all(r.decision is not None for r in journal.inputs())
        # the whole journal from the start, under a random config: the live events and replies
        assert full_replay(journal, random_setup(rng)) == seen
        journal.close()


def test_a_refused_start_hand_stays_refused_after_a_restart_with_roles(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    clock = ManualClock()
    no_roles = TableSetup(table="t01", game=GameKind.HOLDEM,
                          structure=BettingStructure.NO_LIMIT,
                          stakes=Stakes(small_blind=50, big_blind=100), deck_id="demo-red",
                          decks=DECKS, roles={})
    with SqliteJournal.open(tmp_path / "j.sqlite", clock) as journal:
        daemon = TableDaemon(no_roles, initial_state(), journal, MemoryPublisher(), clock=clock)
        daemon.recover()
        out = daemon.apply(Command(name="start_hand", user=DEALER, id="c1", at=clock.now()))
        assert out.reply is not None and out.reply.code is ErrorCode.NOT_AUTHORISED
    with caplog.at_level(logging.INFO), SqliteJournal.open(tmp_path / "j.sqlite",
                                                           clock) as journal:
        again = TableDaemon(make_setup(), initial_state(), journal, MemoryPublisher(),
                            clock=clock)
        again.recover()
        assert again.controller.phase.value == "idle"
        assert again.controller.hand_id is None
        assert journal.last_hands(1) == []
        # the same command resent gets its first reply; a new one is now authorised
        clock.advance(1)
        resent = again.apply(Command(name="start_hand", user=DEALER, id="c1", at=clock.now()))
        assert resent.reply is not None and resent.reply.code is ErrorCode.NOT_AUTHORISED
        fresh_cmd = again.apply(Command(name="start_hand", user=DEALER, id="c2",
                                        at=clock.now()))
        assert fresh_cmd.reply is not None and fresh_cmd.reply.ok
    assert "not journaled" not in caplog.text
    assert "the config differs from the one journaled last" in caplog.text


def test_a_clean_restart_says_nothing_of_events_not_journaled(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    clock = ManualClock()
    with SqliteJournal.open(tmp_path / "j.sqlite", clock) as journal:
        daemon = TableDaemon(make_setup(), initial_state(), journal, MemoryPublisher(),
                             clock=clock)
        daemon.recover()
        daemon.apply(Command(name="start_hand", user=DEALER, id="c1", at=clock.now()))
        daemon.apply(Command(name="action", user=DEALER, id="c2", at=clock.now(),
                             args={"seat": 1, "kind": "fold"}))
    with caplog.at_level(logging.INFO), SqliteJournal.open(tmp_path / "j.sqlite",
                                                           clock) as journal:
        TableDaemon(make_setup(), initial_state(), journal, MemoryPublisher(),
                    clock=clock).recover()
    assert "replayed 2 journaled inputs" in caplog.text   # from the hand's checkpoint
    assert "not journaled" not in caplog.text


def test_events_an_older_journal_lost_in_a_crash_are_said_not_journaled_and_appended(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    clock = ManualClock()
    with SqliteJournal.open(tmp_path / "j.sqlite", clock) as journal:
        TableDaemon(make_setup(), initial_state(), journal, MemoryPublisher(),
                    clock=clock).recover()
        # what a version that journaled the input before its events left after a crash
        # between the two: a start_hand with no decision, no hand row, no events
        start = Command(name="start_hand", user=DEALER, id="c1", at=clock.now())
        with journal.transaction():
            journal.append_input(InputRecord(source="console", kind=start.type,
                                             payload=input_to_json(start), actor=DEALER))
    with caplog.at_level(logging.INFO), SqliteJournal.open(tmp_path / "j.sqlite",
                                                           clock) as journal:
        again = TableDaemon(make_setup(), initial_state(), journal, MemoryPublisher(),
                            clock=clock)
        again.recover()
        hand = journal.last_hands(1)[0]
        assert again.controller.hand_id is not None
        assert [e.type for e in hand.events if e.topic.endswith("/events")][:1] == [
            "hand_started"]
    said = [r for r in caplog.records if "not journaled" in r.getMessage()]
    assert len(said) == 1 and said[0].levelno == logging.WARNING


def test_a_config_change_applies_from_the_next_input_and_its_stakes_from_the_next_hand(
        tmp_path: Path) -> None:
    clock = ManualClock()
    small = replace(make_setup(), stakes=Stakes(small_blind=25, big_blind=50))
    with SqliteJournal.open(tmp_path / "j.sqlite", clock) as journal:
        daemon = TableDaemon(small, initial_state(), journal, MemoryPublisher(), clock=clock)
        daemon.recover()
        refused = daemon.apply(Command(name="misdeal", user=MALLORY, id="m1", at=clock.now()))
        assert refused.reply is not None and refused.reply.code is ErrorCode.NOT_AUTHORISED
        daemon.apply(Command(name="start_hand", user=DEALER, id="c1", at=clock.now()))
    big = replace(small, stakes=Stakes(small_blind=100, big_blind=200),
                  roles={**small.roles, MALLORY: "floor"})
    with SqliteJournal.open(tmp_path / "j.sqlite", clock) as journal:
        again = TableDaemon(big, initial_state(), journal, MemoryPublisher(), clock=clock)
        again.recover()
        # the hand in progress keeps the blinds it was dealt with
        stakes = again.controller.public_snapshot()["stakes"]
        assert isinstance(stakes, dict) and stakes["big_blind"] == 50
        # the new roles apply at once: mallory may now call the misdeal
        clock.advance(1)
        misdeal = again.apply(Command(name="misdeal", user=MALLORY, id="m2", at=clock.now()))
        assert misdeal.reply is not None and misdeal.reply.ok, misdeal.reply
        clock.advance(1)
        started = again.apply(Command(name="start_hand", user=DEALER, id="c2", at=clock.now()))
        assert started.reply is not None and started.reply.ok, started.reply
        posted = sorted(int(str(e.data["amount"])) for e in started.events
                        if e.type == "forced_bet")
        assert posted == [100, 200]
