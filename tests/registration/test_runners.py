"""The runners over an in-memory event stream and a scripted dialogue, on a manual clock:
what the dealer is told, what the dealer's lines do, and bounded waits (no real sleep)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from tablectl.clock import ManualClock
from tablectl.controller.inputs import CardRead, DeviceStatus, ReadMissed
from tablectl.domain.cards import FULL_DECK, Card
from tablectl.domain.deck import Deck
from tablectl.setup.calibrate import Calibration
from tablectl.setup.errors import AbortedError, ReaderTimeoutError, RunnerError
from tablectl.setup.register import DeckRegistration, RegistrationMode
from tablectl.setup.runners import calibrate_table, register_deck, verify_deck
from tablectl.setup.verify import DeckVerification
from tablectl.sources.base import SourceEvent
from tests.firmware_bridge.conftest import Driver

AT = datetime(2026, 11, 29, 18, 0, tzinfo=UTC)


class Feed:
    """A source's event stream that the test fills; ``end()`` closes it."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[SourceEvent | None] = asyncio.Queue()
        self.n = 0

    def read(self, uid: str, antenna: int = 0) -> None:
        self.n += 1
        self.queue.put_nowait(CardRead(source="reader", uid=uid, antenna=antenna,
                                       read_id=f"r{self.n}", at=AT))

    def put(self, event: SourceEvent) -> None:
        self.queue.put_nowait(event)

    def end(self) -> None:
        self.queue.put_nowait(None)

    async def events(self) -> AsyncIterator[SourceEvent]:
        while (event := await self.queue.get()) is not None:
            yield event


class Script:
    """A dialogue: records what the dealer is told; answers from lines the test gives."""

    def __init__(self) -> None:
        self.said: list[str] = []
        self.lines: asyncio.Queue[str | None] = asyncio.Queue()

    def say(self, text: str) -> None:
        self.said.append(text)

    async def readline(self) -> str | None:
        return await self.lines.get()

    def type(self, *lines: str | None) -> None:
        for line in lines:
            self.lines.put_nowait(line)


def uid(i: int) -> str:
    return f"E0{i:012X}"


async def test_ordered_registration_reports_each_card_and_refuses_a_double_read(
        clock: ManualClock, driver: Driver) -> None:
    reg = DeckRegistration()
    feed, script = Feed(), Script()
    feed.put(DeviceStatus("reader", True, AT))
    feed.read(uid(1))
    feed.read(uid(1))                          # the antenna saw the first card twice
    for i in range(2, 53):
        feed.read(uid(i))
    await register_deck(reg, feed.events(), script, clock=clock, idle_timeout=5)
    assert reg.complete
    assert script.said[0].startswith("pass the cards in this order: 2c 2d 2h 2s 3c")
    assert "reader online" in script.said
    assert f" 1/52 2c = {uid(1)}; next: 2d" in script.said
    assert f"refused: tag {uid(1)} is already registered as 2c" in script.said
    assert f"52/52 As = {uid(52)}" in script.said
    assert reg.deck("x").card_for(uid(2)) == Card.parse("2d")


async def test_undo_typed_by_the_dealer_takes_back_the_last_card(
        clock: ManualClock, driver: Driver) -> None:
    reg = DeckRegistration()
    feed, script = Feed(), Script()
    task = asyncio.create_task(register_deck(reg, feed.events(), script, clock=clock,
                                             idle_timeout=5))
    feed.read(uid(1))
    feed.read(uid(99))                         # the wrong card went past
    await driver.until(lambda: reg.count == 2)
    script.type("undo")
    await driver.until(lambda: reg.count == 1)
    assert f"took back 2d = {uid(99)}; next: 2d" in script.said
    script.type("bogus")
    await driver.until(lambda: any("unknown command" in s for s in script.said))
    for i in range(2, 53):
        feed.read(uid(i))
    await asyncio.wait_for(task, 10)
    assert reg.deck("x").card_for(uid(2)) == Card.parse("2d")
    assert reg.deck("x").card_for(uid(99)) is None


async def test_confirm_mode_prompts_for_each_card_and_keeps_reads_that_arrive_meanwhile(
        clock: ManualClock, driver: Driver) -> None:
    reg = DeckRegistration(mode=RegistrationMode.CONFIRM)
    feed, script = Feed(), Script()
    task = asyncio.create_task(register_deck(reg, feed.events(), script, clock=clock,
                                             idle_timeout=5))
    feed.read(uid(1))
    feed.read(uid(2))                          # read before the first is confirmed
    await driver.until(lambda: f"tag {uid(1)}: which card?" in script.said)
    script.type("Zz", "Ks")                    # a typo, then the card
    await driver.until(lambda: f"tag {uid(2)}: which card?" in script.said)
    assert any(s.startswith("refused:") for s in script.said)
    script.type("ks")                          # the same card again: refused
    await driver.until(lambda: sum(s.startswith("refused:") for s in script.said) == 2)
    assert f"refused: Ks is already registered (tag {uid(1)})" in script.said
    script.type("")                            # skip this tag
    await driver.until(lambda: f"skipped tag {uid(2)}" in script.said)
    cards = [c for c in FULL_DECK if c != Card.parse("Ks")]
    for i, card in enumerate(cards, start=3):
        feed.read(uid(i))
        script.type(str(card))
    await asyncio.wait_for(task, 10)
    deck = reg.deck("x")
    assert deck.card_for(uid(1)) == Card.parse("Ks") and deck.card_for(uid(2)) is None
    assert deck.card_for(uid(3)) == cards[0]


async def test_confirm_answers_typed_before_the_reads_wait_for_them(
        clock: ManualClock, driver: Driver) -> None:
    reg = DeckRegistration(mode=RegistrationMode.CONFIRM)
    feed, script = Feed(), Script()
    script.type(*(str(c) for c in reversed(FULL_DECK)))     # a script answers everything first
    task = asyncio.create_task(register_deck(reg, feed.events(), script, clock=clock,
                                             idle_timeout=5))
    await driver.settle()
    assert reg.count == 0 and not any(s.startswith("refused") for s in script.said)
    for i in range(1, 53):
        feed.read(uid(i))
    await asyncio.wait_for(task, 10)
    assert reg.deck("x").card_for(uid(1)) == Card.parse("As")
    assert reg.deck("x").card_for(uid(52)) == Card.parse("2c")


async def test_confirm_mode_aborts_when_the_input_ends_during_a_question(
        clock: ManualClock, driver: Driver) -> None:
    reg = DeckRegistration(mode=RegistrationMode.CONFIRM)
    feed, script = Feed(), Script()
    feed.read(uid(1))
    script.type(None)
    with pytest.raises(AbortedError, match="input ended"):
        await register_deck(reg, feed.events(), script, clock=clock, idle_timeout=5)
    assert reg.count == 0 and reg.pending is None


async def test_registration_times_out_on_the_injected_clock(
        clock: ManualClock, driver: Driver) -> None:
    reg = DeckRegistration()
    feed, script = Feed(), Script()
    task = asyncio.create_task(register_deck(reg, feed.events(), script, clock=clock,
                                             idle_timeout=5))
    feed.read(uid(1))
    await driver.until(lambda: reg.count == 1)
    await driver.advance(4.9)
    assert not task.done()                      # 4.9 s without a read: still waiting
    await driver.advance(0.2)
    await driver.settle()
    assert task.done()
    with pytest.raises(ReaderTimeoutError, match=r"nothing read in 5 s.*never came online"):
        task.result()


async def test_quit_stops_registration(clock: ManualClock, driver: Driver) -> None:
    feed, script = Feed(), Script()
    script.type("quit")
    with pytest.raises(AbortedError, match="stopped by the dealer"):
        await register_deck(DeckRegistration(), feed.events(), script, clock=clock,
                            idle_timeout=5)


async def test_a_closed_source_stops_the_runner(clock: ManualClock, driver: Driver) -> None:
    feed, script = Feed(), Script()
    feed.end()
    with pytest.raises(RunnerError, match="closed"):
        await register_deck(DeckRegistration(), feed.events(), script, clock=clock,
                            idle_timeout=5)


async def test_verify_settles_after_the_last_card_and_tells_each_problem(
        clock: ManualClock, driver: Driver, blue_deck: Deck, red_deck: Deck) -> None:
    ver = DeckVerification(blue_deck, others=[red_deck])
    feed, script = Feed(), Script()
    task = asyncio.create_task(verify_deck(ver, feed.events(), script, clock=clock,
                                           idle_timeout=30, settle=1.0))
    for card in FULL_DECK:
        feed.read(blue_deck.uid_for(card))
    feed.put(ReadMissed("reader", 0, "the shoe missed a card (no_tag)", AT))
    await driver.until(lambda: ver.complete)
    feed.read(red_deck.uid_for(Card.parse("9c")))   # a stray card right after the deck
    feed.read(blue_deck.uid_for(Card.parse("2c")))
    await driver.until(task.done, within=5)
    report = task.result()
    assert report.foreign == ((red_deck.uid_for(Card.parse("9c")), "demo-red",
                               Card.parse("9c")),)
    assert report.duplicates == ((Card.parse("2c"), 2),)
    assert any(s.startswith("missed read:") for s in script.said)
    assert "duplicate: 2c read 2 times" in script.said


async def test_verify_of_an_incomplete_deck_ends_after_the_timeout_or_on_done(
        clock: ManualClock, driver: Driver, blue_deck: Deck) -> None:
    feed, script = Feed(), Script()
    ver = DeckVerification(blue_deck)
    task = asyncio.create_task(verify_deck(ver, feed.events(), script, clock=clock,
                                           idle_timeout=10))
    for card in FULL_DECK[1:]:
        feed.read(blue_deck.uid_for(card))
    await driver.until(lambda: ver.present == 51)
    await driver.advance(9.5)
    assert not task.done()
    await driver.advance(1.0)
    await driver.settle()
    assert task.result().missing == (Card.parse("2c"),)
    assert "no new card of deck demo-blue in 10 s: stopping" in script.said
    assert f"[51/52] {FULL_DECK[-1]}" in script.said
    feed2, script2 = Feed(), Script()
    script2.type("done")
    report = await verify_deck(DeckVerification(blue_deck), feed2.events(), script2,
                               clock=clock, idle_timeout=10)
    assert len(report.missing) == 52


async def test_verify_stops_at_the_timeout_while_a_reader_keeps_reading_the_wrong_deck(
        clock: ManualClock, driver: Driver, blue_deck: Deck, red_deck: Deck) -> None:
    feed, script = Feed(), Script()
    ver = DeckVerification(blue_deck, others=[red_deck])
    task = asyncio.create_task(verify_deck(ver, feed.events(), script, clock=clock,
                                           idle_timeout=10))
    feed.read(blue_deck.uid_for(FULL_DECK[0]))
    await driver.until(lambda: ver.present == 1)
    assert f"[1/52] {FULL_DECK[0]}" in script.said
    for i in range(30):                       # a red card every second, for 30 s
        feed.read(red_deck.uid_for(FULL_DECK[i % 52]))
        await driver.advance(1.0)
        if task.done():
            break
    await driver.settle()
    assert task.done() and i < 12, i
    assert len(task.result().missing) == 51
    assert "no new card of deck demo-blue in 10 s: stopping" in script.said


async def test_calibration_asks_for_each_position_refuses_a_reused_antenna_and_skips(
        clock: ManualClock, driver: Driver) -> None:
    cal = Calibration(Calibration.positions(2, board=1, muck=True, burn=True))
    feed, script = Feed(), Script()
    task = asyncio.create_task(calibrate_table(cal, feed.events(), script, clock=clock,
                                               idle_timeout=5))
    await driver.until(lambda: "[1/5] place a card on seat 1 (or type 'skip')" in script.said)
    feed.read(uid(1), antenna=3)
    await driver.until(lambda: cal.progress[0] == 1)
    feed.read(uid(1), antenna=3)               # the card left on seat 1: refused
    await driver.until(lambda: any(s.startswith("refused:") for s in script.said))
    assert "refused: antenna 3 is already seat 1; place the card on seat 2" in script.said
    feed.read(uid(1), antenna=8)
    feed.read(uid(1), antenna=1)
    feed.read(uid(1), antenna=2)               # muck
    await driver.until(lambda: "[5/5] place a card on burn (or type 'skip')" in script.said)
    script.type("skip")
    await asyncio.wait_for(task, 5)
    assert {a: str(loc) for a, loc in cal.antenna_map().items()} == {
        3: "seat 1", 8: "seat 2", 1: "board 1", 2: "muck"}
    assert "burn: no antenna" in script.said


async def test_calibration_times_out(clock: ManualClock, driver: Driver) -> None:
    cal = Calibration(Calibration.positions(1, board=0, muck=False, burn=False))
    feed, script = Feed(), Script()
    task = asyncio.create_task(calibrate_table(cal, feed.events(), script, clock=clock,
                                               idle_timeout=3))
    await driver.advance(3.1)
    await driver.settle()
    with pytest.raises(ReaderTimeoutError, match="seat 1 was not calibrated"):
        task.result()
