"""Eliminations from the tables (docs/tournament.md, "Eliminations from the tables"): a real
mosquitto, the table daemon of tablectl/app.py, the service's intake on PostgreSQL.

Two players bust in one hand while the tournament service is down; when it comes back (its
persistent session kept them on the broker) each elimination is recorded once, ranked by
the chips at the start of the hand, and the last bust finishes the tournament; a copy sent
again changes nothing. The table frees both seats itself, also after a restart. The
decoder's refusals are checked by hand beside it."""

from __future__ import annotations

import asyncio
import contextlib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tablectl.app import run_daemon
from tablectl.clock import SystemClock
from tablectl.controller import CardRead, Command, ReadStatus
from tablectl.daemon import TableDaemon
from tablectl.daemon.busts import Bust, bust_event
from tablectl.domain.cards import Card
from tablectl.domain.deck import Deck
from tablectl.game import Act, Showdown
from tablectl.publish.mqtt import MqttPublisher
from tablectl.publish.mqtt_settings import MqttSettings
from tablectl.tournament.clock import Start, Status
from tablectl.tournament.intake import (
    TABLES_FILTER,
    Intake,
    IntakeRefusedError,
    TableChips,
    TableElimination,
    decode_chips,
    decode_elimination,
)
from tablectl.tournament.pg import PgTournamentStore
from tablectl.tournament.service import TournamentService
from tablectl.tournament.store import ChipCount, MemoryTournamentStore
from tablectl.tournament.structure import Structure
from tests.conftest import Broker
from tests.daemon.helpers import Listener
from tests.daemon.test_end_to_end import ROOT, write_config
from tests.reliability.harness import journal_rows
from tests.tournament.conftest import SMALL
from tests.tournament.test_cli import Run

USER = "dealer-e2e"
TOPIC = "poker/v1/tables/e2e/tournament"
# seat 3 holds aces; seats 1 and 2 nothing the board helps
HOLE = {1: ["Kh", "Qd"], 2: ["7c", "2d"], 3: ["As", "Ad"]}
BOARD = ["8h", "Jc", "9h", "4d", "5c", "Qs", "6c", "3s"]     # burns and board, in order


def _config(tmp_path: Path, broker: Broker) -> Any:
    from tablectl.config import load_config
    write_config(tmp_path, broker, "holdem", "no-limit", {"small_blind": 50, "big_blind": 100},
                 [300, 50, 5000])
    path = tmp_path / "table.toml"
    path.write_text(path.read_text() + '\n[tournament]\nid = "d1"\ntable = 1\n')
    return load_config(path)


def _intake_settings(broker: Broker) -> MqttSettings:
    return MqttSettings(host=broker.host, port=broker.port, client_id="tournament-d1",
                        session_expiry=86400)


def _play_the_hand(daemon: TableDaemon) -> None:
    """Seat 2 is all in on the small blind, seat 1 raises all in, seat 3 calls: aces win."""
    deck = Deck.load(ROOT / "config" / "decks" / "demo-red.csv")
    n = 0

    def cmd(name: str, **args: Any) -> None:
        nonlocal n
        n += 1
        out = daemon.apply(Command(name=name, user=USER, id=f"c{n}", at=datetime.now(UTC),
                                   args=args))
        assert out.reply is not None and out.reply.ok, out.reply

    cmd("start_hand")
    holes = {seat: list(cards) for seat, cards in HOLE.items()}
    board = list(BOARD)
    for _ in range(60):
        exp = daemon.controller.expected()
        if exp is None:
            return
        if isinstance(exp, Act):
            if exp.seat == 1:
                cmd("action", seat=1, kind="raise", amount=exp.legal.max_to)
            else:
                cmd("action", seat=exp.seat, kind="call")
        elif isinstance(exp, Showdown):
            cmd("action", seat=exp.seat, kind="show")
        else:
            seat = getattr(exp, "seat", None)
            card = holes[seat].pop(0) if seat is not None else board.pop(0)
            n += 1
            daemon.apply(CardRead(source="shoe", uid=deck.uid_for(Card.parse(card)),
                                  antenna=0, read_id=f"r{n}", at=datetime.now(UTC),
                                  location=None, status=ReadStatus.ACCEPTED, confidence=1.0))
        if daemon.controller.stage.value != "in_hand":
            return
    raise AssertionError("the hand did not end")


async def test_busts_while_the_service_is_down_arrive_once(
        tmp_path: Path, mosquitto: Broker, pg_url: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    store = PgTournamentStore(pg_url)
    service = TournamentService(store, SystemClock())
    service.create("d1", Structure.parse(SMALL, "small.toml"))
    for seat, name in ((1, "P1"), (2, "P2"), (3, "P3")):
        service.register("d1", name, table=1, seat=seat)
    service.command("d1", Start())
    # the service's session exists on the broker, then the service goes down
    async with MqttPublisher(_intake_settings(mosquitto), manual_ack=True) as client:
        await client.subscribe(TABLES_FILTER, qos=1)

    listener = Listener(mosquitto.host, mosquitto.port, "e2e")
    ready: asyncio.Future[TableDaemon] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(run_daemon(_config(tmp_path, mosquitto), sources=[],
                                          ready=ready.set_result))
    try:
        daemon = await asyncio.wait_for(ready, 20)
        _play_the_hand(daemon)
        # the table freed both busted seats itself, once the hand was settled
        assert [s.seat for s in daemon.controller.checkpoint().seats] == [3]
        assert await asyncio.to_thread(listener.wait_for, lambda lst: sum(
            t == TOPIC for t, _ in lst.raw) == 3)
        sent = [p for t, p in listener.raw if t == TOPIC]
        assert [json.loads(p)["type"] for p in sent] == ["eliminated", "eliminated",
                                                         "chip_counts"]
        assert store.load("d1").field.eliminations == ()       # nobody was listening

        # the service is back: both arrive, once each
        seen: list[tuple[str, TableElimination | None]] = []
        changed = asyncio.Event()

        def told(what: str, found: TableElimination | None) -> None:
            seen.append((what, found))
            changed.set()

        async def until(count: int) -> None:
            async with asyncio.timeout(20):
                while len(seen) < count:
                    await changed.wait()
                    changed.clear()

        async with MqttPublisher(_intake_settings(mosquitto), manual_ack=True) as client:
            await client.subscribe(TABLES_FILTER, qos=1)
            intake = asyncio.create_task(Intake(service, "d1", SystemClock(), seen=told)
                                         .run(client))
            await until(3)        # the two eliminations, then the hand's chip counts
            assert [w for w, _ in seen] == ["recorded", "recorded", "counted"]
            # a copy sent again (a table's outbox after a lost PUBACK): recorded already
            await _publish(mosquitto, sent[0])
            await until(4)
            assert [w for w, _ in seen][-1] == "again"
            intake.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await intake
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        listener.close()
    # ... by unseat_player inputs in the journal: a restarted daemon has them free too
    ready = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(run_daemon(_config(tmp_path, mosquitto), sources=[],
                                          ready=ready.set_result))
    try:
        again = await asyncio.wait_for(ready, 20)
        assert [s.seat for s in again.controller.checkpoint().seats] == [3]
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    t = store.load("d1")
    assert len(t.field.eliminations) == 2
    ranking = [(p.place, p.player, p.start_chips) for p in t.field.ranking()]
    # out in one hand: more chips at its start, better place; the last one in finishes it
    assert ranking == [(1, "P3", None), (2, "P1", 300), (3, "P2", 50)]
    assert t.clock.status is Status.FINISHED
    hand = json.loads(sent[0])["data"]["hand"]
    assert {x.hand for x in t.field.eliminations} == {hand}
    # the chip counts: the winner of the hand has every chip; the busted are not counted
    assert store.chip_counts("d1") == [ChipCount(1, 3, "P3", 5350, hand)]
    out = Run(["tournament", "chips", "d1", "--db", pg_url], capsys)
    assert out.returncode == 0 and "5,350  P3  (table 1 seat 3" in out.stdout, out.stdout
    store.close()


async def test_a_daemon_killed_before_freeing_the_seats_frees_them_when_it_starts(
        tmp_path: Path, mosquitto: Broker, monkeypatch: pytest.MonkeyPatch) -> None:
    """The hand that busts seats 1 and 2 commits; the daemon dies before the second commit
    (the seats' ``unseat_player``): started again, it frees them itself, once."""
    from tablectl.daemon.tournament import FREEING_USER, TournamentLink

    async def run(play: bool) -> list[int]:
        ready: asyncio.Future[TableDaemon] = asyncio.get_running_loop().create_future()
        task = asyncio.create_task(run_daemon(_config(tmp_path, mosquitto), sources=[],
                                              ready=ready.set_result))
        try:
            daemon = await asyncio.wait_for(ready, 20)
            if play:
                with monkeypatch.context() as m:       # the kill between the two commits
                    m.setattr(TournamentLink, "free_busted", lambda _self: None)
                    _play_the_hand(daemon)
            return [s.seat for s in daemon.controller.checkpoint().seats]
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    assert await run(play=True) == [1, 2, 3]           # busted, their seats still taken
    assert await run(play=False) == [3]                 # freed at start
    assert await run(play=False) == [3]
    commands = [json.loads(p) for (p,) in journal_rows(
        tmp_path / "journal.sqlite", "SELECT payload FROM inputs WHERE kind='command'")]
    freed = [c for c in commands if c["user"] == FREEING_USER]
    assert sorted(c["args"]["seat"] for c in freed) == [1, 2], freed


async def _publish(broker: Broker, payload: bytes) -> None:
    settings = MqttSettings(host=broker.host, port=broker.port, client_id="resender",
                            session_expiry=0)
    async with MqttPublisher(settings) as client:
        from tablectl.publish.topics import Topic
        await client.publish(Topic(TOPIC), payload, qos=1)


def _event(**data: Any) -> bytes:
    body = bust_event(Bust(2, "P2", 50), tournament="d1", table="e2e", table_number=1,
                      hand="e2e-000001")
    body.update(data)
    return json.dumps({"table": "e2e", "epoch": 1, "seq": 1, "type": "eliminated",
                       "ts": "2026-12-03T10:00:00+00:00", "hand": 1, "data": body}).encode()


def test_the_decoder_takes_a_tables_elimination() -> None:
    found = decode_elimination(TOPIC, _event(), "d1")
    assert found == TableElimination("d1", "e2e", 1, "e2e-000001", 2, "P2", 50)
    assert decode_elimination(TOPIC, _event(tournament="other"), "d1") is None


@pytest.mark.parametrize(("topic", "payload", "reason"), [
    (TOPIC, b"{", "not an event"),
    (TOPIC, _event(seat=0), "data.seat"),
    (TOPIC, _event(seat=True), "data.seat"),
    (TOPIC, _event(start_chips=-1), "data.start_chips"),
    (TOPIC, _event(start_chips=float("nan")), "not an event"),
    (TOPIC, _event(table_number="1"), "data.table_number"),
    (TOPIC, _event(hand=""), "data.hand"),
    (TOPIC, _event(table="t99"), "not the topic's"),
    ("poker/v1/tables/e2e/events", _event(), "not a table's tournament topic"),
])
def test_the_decoder_refuses_what_is_not_an_elimination(topic: str, payload: bytes,
                                                       reason: str) -> None:
    with pytest.raises(IntakeRefusedError, match=reason):
        decode_elimination(topic, payload, "d1")


def _counts(seats: Any) -> bytes:
    return json.dumps({"table": "e2e", "epoch": 1, "seq": 3, "type": "chip_counts",
                       "ts": "2026-12-03T10:00:00+00:00", "hand": 1, "data": {
                           "tournament": "d1", "table": "e2e", "table_number": 1,
                           "hand": "e2e-000001", "seats": seats}}).encode()


def test_chip_counts_are_decoded_and_kept_per_table() -> None:
    found = decode_chips(TOPIC, _counts([{"seat": 1, "name": "P1", "stack": 800},
                                         {"seat": 2, "name": "", "stack": 0}]), "d1")
    assert found == TableChips("e2e", 1, "e2e-000001", ((1, "P1", 800), (2, "", 0)))
    store = MemoryTournamentStore()
    store.record_chips("d1", 1, [ChipCount(1, 1, "P1", 800, "h1")])
    store.record_chips("d1", 2, [ChipCount(2, 4, "Q4", 900, "h7")])
    store.record_chips("d1", 1, [ChipCount(1, 2, "P2", 700, "h2")])     # replaces table 1's
    assert [c.player for c in store.chip_counts("d1")] == ["Q4", "P2"]


@pytest.mark.parametrize(("seats", "reason"), [
    ([{"seat": 1, "name": "P1", "stack": -1}], "data.stack"),
    ([{"seat": 13, "name": "P1", "stack": 1}], "data.seat"),
    ([{"seat": 1, "name": "P1", "stack": 1}, {"seat": 1, "name": "P2", "stack": 1}], "twice"),
    ([1, 2], "not a seat"),
    ({"seat": 1}, "list of at most 12"),
    ([{"seat": 1, "name": "P1", "stack": 1}] * 13, "list of at most 12"),
])
def test_chip_counts_that_cannot_be_right_are_refused(seats: Any, reason: str) -> None:
    with pytest.raises(IntakeRefusedError, match=reason):
        decode_chips(TOPIC, _counts(seats), "d1")
