"""The service: commands through the store at the injected clock, the retained status, the
registration windows, the end of the tournament, and the publisher loop on a ManualClock."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from tablectl.clock import ManualClock
from tablectl.publish.base import MemoryPublisher
from tablectl.tournament.clock import AddTime, MoveTo, Pause, Start
from tablectl.tournament.command import status_line
from tablectl.tournament.errors import TournamentError
from tablectl.tournament.lockstep import Lockstep
from tablectl.tournament.service import TournamentService, clock_topic
from tablectl.tournament.store import MemoryTournamentStore
from tablectl.tournament.structure import Structure

T0 = datetime(2026, 12, 3, 19, 0, tzinfo=UTC)


def service(small: Structure) -> tuple[TournamentService, ManualClock, MemoryPublisher]:
    clock = ManualClock(T0)
    pub = MemoryPublisher()
    svc = TournamentService(MemoryTournamentStore(), clock, pub)
    svc.create("t1", small)
    return svc, clock, pub


async def test_a_command_publishes_the_status_retained(small: Structure) -> None:
    svc, clock, pub = service(small)
    for name in ("ann", "bob", "cat"):
        svc.register("t1", name)
    t = svc.command("t1", Start())
    clock.advance(125)
    body = await svc.publish(t)
    msg = pub.retained["poker/v1/tournaments/t1/clock"]
    assert msg.qos == 1 and json.loads(msg.payload) == body
    assert body["clock"]["level"] == 1 and body["clock"]["time_left"] == 475
    assert body["clock"]["time_left_text"] == "7:55"
    assert body["clock"]["next"]["big_blind"] == 200 and body["clock"]["next"]["ante"] == 200
    assert body["clock"]["ends_at"] == "2026-12-03T19:10:00+00:00"
    assert (body["players_left"], body["average_stack"], body["registration_open"]) == (
        3, 10000, True)


def test_registration_and_reentry_close_after_their_level(small: Structure) -> None:
    svc, clock, _ = service(small)
    svc.register("t1", "ann")
    svc.register("t1", "bob")
    svc.register("t1", "cat")
    svc.command("t1", Start())
    clock.advance(1250)                 # the break after level 2: still open
    svc.register("t1", "dan")
    svc.bust("t1", "dan", hand=None, start_chips=10)
    svc.reenter("t1", "dan")
    clock.advance(300)                  # level 3
    with pytest.raises(TournamentError, match=r"registration is closed \(it closed at the "
                                              r"end of level 2; level 3 is playing\)"):
        svc.register("t1", "eve")
    svc.bust("t1", "dan", hand=None, start_chips=10)
    with pytest.raises(TournamentError, match="re-entry is closed"):
        svc.reenter("t1", "dan")


def test_the_last_bust_finishes_the_tournament(small: Structure) -> None:
    svc, clock, _ = service(small)
    for name in ("ann", "bob", "cat"):
        svc.register("t1", name)
    svc.command("t1", Start())
    clock.advance(60)
    svc.bust("t1", "bob", hand="h1", start_chips=100)
    t = svc.bust("t1", "cat", hand="h2", start_chips=20000)
    status = svc.status("t1")
    assert status["clock"]["phase"] == "finished" and not status["registration_open"]
    assert [(p.place, p.player) for p in t.field.ranking()] == [
        (1, "ann"), (2, "cat"), (3, "bob")]
    with pytest.raises(TournamentError, match="finished"):
        svc.bust("t1", "ann", hand="h3", start_chips=1)


def test_balance_applied_moves_players_and_closes_a_broken_table(small: Structure) -> None:
    svc, _, _ = service(small)                      # six seats a table
    for i in range(8):
        svc.register("t1", f"p{i}")                 # table 1: 6, table 2: 2
    p, t = svc.balance("t1")
    assert [(m.from_table, m.to_table) for m in p.moves] == [(1, 2), (1, 2)]
    assert t.field.seating()[2] == {1: "p6", 2: "p7"}   # nothing moved yet
    p, t = svc.balance("t1", apply_moves=True)
    assert {k: len(v) for k, v in t.field.seating().items()} == {1: 4, 2: 4}
    for name in ("p0", "p1", "p2"):
        svc.bust("t1", name, hand=None, start_chips=5)
    p, t = svc.balance("t1", apply_moves=True)
    assert p.broken == (2,) and t.field.tables == (1,) and len(t.field.seating()[1]) == 5


def test_hand_for_hand_in_the_status(small: Structure) -> None:
    svc, _, _ = service(replace(small, seats_per_table=3))   # 3 paid, hand for hand at 4
    for i in range(5):
        svc.register("t1", f"p{i}", table=1 + i % 2, seat=1 + i // 2)
    assert not svc.status("t1")["hand_for_hand"]
    svc.bust("t1", "p4", hand=None, start_chips=5)
    assert svc.status("t1")["hand_for_hand"]
    svc.bust("t1", "p3", hand=None, start_chips=5)
    assert not svc.status("t1")["hand_for_hand"]    # in the money


def test_the_status_names_the_tables_a_round_waits_for(small: Structure) -> None:
    svc, _, _ = service(replace(small, seats_per_table=3))   # 3 paid, hand for hand at 4
    for i in range(4):
        svc.register("t1", f"p{i}", table=1 + i % 2, seat=1 + i // 2)
    assert "hand_for_hand_waiting" not in svc.status("t1")     # a one-shot: no rounds kept
    svc.lockstep = Lockstep()
    assert svc.status("t1")["hand_for_hand_waiting"] == [1, 2]
    assert not svc.hand_ready("t1", 2, 0)[1]
    status = svc.status("t1")
    assert status["hand_for_hand_waiting"] == [1] and status["hand_for_hand_go"] == 0
    assert "waiting for table 1)" in status_line(status)
    assert svc.hand_ready("t1", 1, 0)[1]                      # round 1 goes
    assert svc.status("t1")["hand_for_hand_waiting"] == [1, 2]
    svc.bust("t1", "p3", hand=None, start_chips=5)           # in the money: no more rounds
    assert "hand_for_hand_waiting" not in svc.status("t1")


async def test_run_publishes_at_every_level_change(small: Structure) -> None:
    """The loop sleeps on the ManualClock until the period ends: one publish per level or
    break change (and per refresh), each with the level the schedule says."""
    svc, clock, pub = service(small)
    svc.command("t1", Start())
    task = asyncio.create_task(svc.run("t1", refresh=1000))
    seen: list[tuple[str, int]] = []
    for _ in range(4):
        for _ in range(100):                        # let the task wake and publish
            if len(pub.on(clock_topic("t1"))) > len(seen):
                break
            await asyncio.sleep(0)
        assert len(pub.on(clock_topic("t1"))) == len(seen) + 1
        for _ in range(5):                          # and go back to sleep on the clock
            await asyncio.sleep(0)
        body = json.loads(pub.on(clock_topic("t1"))[-1])
        seen.append((body["clock"]["label"], round(body["clock"]["time_left"])))
        clock.advance(600.05 if len(seen) < 3 else 300.05)
    svc.stop()
    await asyncio.wait_for(task, 5)
    assert seen[0] == ("level 1 50/100", 600)
    assert seen[1] == ("level 2 100/200 (big-blind ante 200)", 600)
    assert seen[2] == ("break 5 min (chip-up 25)", 300)
    assert seen[3][0] == "level 3 200/400 (ante 400)"


def test_clock_commands_go_through_the_store(small: Structure) -> None:
    svc, clock, _ = service(small)
    svc.command("t1", MoveTo(2))
    svc.command("t1", Start())
    clock.advance(30)
    svc.command("t1", Pause())
    t = svc.command("t1", AddTime(60))
    assert t.version == 5
    assert svc.status("t1")["clock"]["time_left"] == 630


async def test_run_rides_out_a_database_and_a_broker_away(small: Structure) -> None:
    """The database away: the levels still change on time from the last record read; the
    broker away: nothing is published, and the next wake-up publishes again. stop() wakes
    the loop at once."""
    svc, clock, pub = service(small)
    svc.command("t1", Start())
    store = svc.store
    assert isinstance(store, MemoryTournamentStore)
    task = asyncio.create_task(svc.run("t1", refresh=1000))

    async def published(count: int) -> dict[str, object]:
        for _ in range(100):
            if len(pub.on(clock_topic("t1"))) >= count:
                break
            await asyncio.sleep(0)
        assert len(pub.on(clock_topic("t1"))) == count
        for _ in range(5):                      # and go back to sleep on the clock
            await asyncio.sleep(0)
        return dict(json.loads(pub.on(clock_topic("t1"))[-1])["clock"])

    assert (await published(1))["level"] == 1
    store.fail_next = True                      # the next read fails
    clock.advance(600.05)
    assert (await published(2))["level"] == 2   # from the last record, on time
    pub.online = False
    clock.advance(600.05)
    for _ in range(20):
        await asyncio.sleep(0)
    assert len(pub.on(clock_topic("t1"))) == 2  # the break was not published
    pub.online = True
    clock.advance(300.05)
    assert (await published(3))["level"] == 3
    svc.stop()                                  # no clock advance needed
    await asyncio.wait_for(task, 5)
