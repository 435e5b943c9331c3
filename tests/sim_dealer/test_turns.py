"""The dealer waits for its turn: :mod:`hardware_sim.turns` tells from the daemon's snapshot
whether it expects the dealer's decision, and the MQTT console waits for that snapshot on a
real broker (a decision sent before the daemon read the cards was refused ``out_of_turn``)."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from functools import partial

import pytest

from hardware_sim.console import MqttConsole
from hardware_sim.errors import ConsoleRefusedError, TurnTimeoutError
from hardware_sim.turns import SnapshotWatch, Turn, mismatch, turn_of
from tablectl.domain.cards import Card
from tablectl.game import ActionIn, ActionKind, CardIn, Hand, HandStart
from tablectl.publish import topics
from tablectl.publish.envelope import SnapshotEnvelope, encode
from tablectl.publish.mqtt import MqttPublisher
from tablectl.publish.mqtt_settings import MqttSettings
from tests.conftest import Broker
from tests.sim_dealer.conftest import TABLE

TURN = Turn("t1-000004", 3, False, ((1, 2), (3, 2), (5, 2)), 0)


def snap(*, hand: str = "t1-000004", to_act: int | None = 3, cards: tuple[int, ...] = (2, 2, 2),
         board: int = 0) -> dict[str, object]:
    """A public snapshot as tablectl.controller.snapshots builds it (the parts read here):
    seats 1, 3, 5 in the hand, 2 and 4 empty."""
    counts = dict(zip((1, 3, 5), cards, strict=True))
    seats = [{"seat": n, "cards": [{"card": None, "up": False}] * counts.get(n, 0),
              "to_act": n == to_act} for n in range(1, 6)]
    return {"hand": {"id": hand, "number": 4}, "seats": seats, "board": [None] * board,
            "to_act": {"seat": to_act, "legal": []} if to_act is not None else None}


def test_the_turn_is_there_when_hand_cards_board_and_seat_agree() -> None:
    assert mismatch(snap(), TURN) is None


@pytest.mark.parametrize(("snapshot", "why"), [
    (None, "no state snapshot from the daemon yet"),
    (snap(hand="t1-000003"), "the daemon's snapshot is of hand t1-000003, not t1-000004"),
    (snap(cards=(2, 1, 2)), "the daemon has 1 cards at seat 3, the dealer dealt 2"),
    (snap(cards=(2, 2, 1), to_act=None), "the daemon has 1 cards at seat 5"),
    (snap(board=1), "the daemon has 1 board cards, the dealer dealt 0"),
    (snap(to_act=5), "the daemon expects seat 5 to act"),
    (snap(to_act=None), "the daemon expects no decision"),
])
def test_a_snapshot_that_is_not_the_turn_says_why(snapshot: dict[str, object] | None,
                                                   why: str) -> None:
    got = mismatch(snapshot, TURN)
    assert got is not None and got.startswith(why)


@pytest.mark.parametrize("snapshot", [
    {}, {"hand": "t1-000004"}, {"hand": {"id": "t1-000004"}, "seats": "all"},
    {"hand": {"id": "t1-000004"}, "seats": [1, None, {"seat": 1, "cards": 2}]},
    {**snap(), "board": "none"}, {**snap(), "to_act": 3}, {**snap(), "to_act": {"seat": "3"}},
])
def test_a_hostile_snapshot_is_never_the_turn(snapshot: dict[str, object]) -> None:
    assert mismatch(snapshot, TURN) is not None


def test_a_showdown_turn_needs_every_card_and_no_betting_decision() -> None:
    show = Turn("t1-000004", 5, True, ((1, 2), (3, 2), (5, 2)), 5)
    assert mismatch(snap(to_act=None, board=5), show) is None
    assert mismatch(snap(to_act=None, board=4), show) is not None
    assert mismatch(snap(to_act=1, board=5), show) == (
        "the daemon expects seat 1 to act, not a showdown")


def test_turn_of_counts_what_the_dealers_engine_has_dealt() -> None:
    start = HandStart(TABLE["game"], TABLE["structure"], TABLE["rules"],  # type: ignore[arg-type]
                      TABLE["stakes"], TABLE["seats"], TABLE["button"],  # type: ignore[arg-type]
                      "t1-000004")
    hand = Hand.replay(start, ())
    cards = iter(Card.parse(c) for c in ("As", "Kd", "Qh", "Jc", "Ts", "9d"))
    for _ in range(5):
        hand.apply(CardIn(next(cards)))
    # dealt from the left of the button (seat 1), which gets its second card last
    assert turn_of(hand, 1) == Turn("t1-000004", 1, False, ((1, 1), (3, 2), (5, 2)), 0)
    hand.apply(CardIn(next(cards)))
    turn = turn_of(hand, hand.view().to_act or 0)
    assert turn.cards == ((1, 2), (3, 2), (5, 2)) and turn.board == 0
    assert turn.seat == 1          # button 1, blinds 3 and 5: seat 1 opens preflop
    hand.apply(ActionIn(1, ActionKind.CALL))
    assert turn_of(hand, 3).text() == "seat 3 to act in hand t1-000004 (cards 1:2 3:2 5:2, board 0)"


def envelope(seq: int, data: dict[str, object], *, epoch: int = 1) -> bytes:
    return encode(SnapshotEnvelope(table="t1", journal="j1", epoch=epoch, seq=seq,
                                   ts=datetime(2026, 1, 1, tzinfo=UTC), data=data))


def test_the_watch_keeps_the_newest_snapshot_of_an_epoch() -> None:
    watch = SnapshotWatch()
    assert watch.feed(envelope(5, snap(to_act=5)))
    assert not watch.feed(envelope(4, snap(to_act=1)))      # older: a late duplicate
    assert watch.snapshot is not None and mismatch(watch.snapshot, TURN) is not None
    assert watch.feed(envelope(6, snap()))
    assert mismatch(watch.snapshot, TURN) is None
    assert watch.feed(envelope(1, snap(to_act=1), epoch=2))   # the daemon restarted
    assert mismatch(watch.snapshot, TURN) == "the daemon expects seat 1 to act"


@pytest.mark.parametrize("payload", [
    b"", b"\xff\xfe", b"[1]", b"null", b'{"seq": 9}', b'{"seq": "9", "data": {}}',
    b'{"seq": true, "data": {}}', b'{"seq": 9, "data": []}',
    b"[" * 100_000 + b"]" * 100_000,
])
def test_the_watch_ignores_what_is_not_a_snapshot(payload: bytes) -> None:
    watch = SnapshotWatch()
    assert watch.feed(envelope(3, snap()))
    assert not watch.feed(payload)
    assert mismatch(watch.snapshot, TURN) is None


def test_a_refusal_reads_as_words_not_a_dict() -> None:
    err = ConsoleRefusedError("action", {"id": "c1", "ok": False, "error": {
        "code": "out_of_turn", "reason": "seat 3 is not to act"}})
    assert str(err) == "command action refused: out_of_turn: seat 3 is not to act"


def _not_yet(want: object, got: object) -> str | None:
    return None if got == want else "not that snapshot yet"


async def test_the_console_waits_until_the_daemon_expects_the_decision(
        mosquitto: Broker) -> None:
    settings = MqttSettings(host=mosquitto.host, port=mosquitto.port, client_id="fake-daemon",
                            session_expiry=0)
    state = topics.state("t1")
    async with MqttPublisher(settings) as daemon:
        # the daemon has not read seat 5's second card yet
        await daemon.publish(state, envelope(7, snap(cards=(2, 2, 1), to_act=None)),
                             retain=True, qos=1)
        async with MqttConsole.connect(mosquitto.url, table="t1", user="dealer-t1",
                                       turn_timeout=30) as console:
            waiting = asyncio.create_task(console.wait_turn(TURN))
            # nothing the dealer can see says the card is in: the wait goes on through
            # snapshots that are still not the turn (seen by the console before going on)
            for seq in (8, 9):
                data = {**snap(cards=(2, 2, 1), to_act=None), "phase": f"dealing {seq}"}
                await daemon.publish(state, envelope(seq, data), retain=True, qos=1)
                async with asyncio.timeout(30):
                    await console.wait_snapshot(partial(_not_yet, data))
            assert not waiting.done()
            await daemon.publish(state, envelope(10, snap()), retain=True, qos=1)
            await asyncio.wait_for(waiting, 30)


async def test_a_turn_that_never_comes_is_a_clear_error(mosquitto: Broker) -> None:
    settings = MqttSettings(host=mosquitto.host, port=mosquitto.port, client_id="fake-daemon",
                            session_expiry=0)
    async with MqttPublisher(settings) as daemon:
        await daemon.publish(topics.state("t1"), envelope(7, snap(to_act=5)), retain=True,
                             qos=1)
        async with MqttConsole.connect(mosquitto.url, table="t1", user="dealer-t1",
                                       turn_timeout=0.5) as console:
            with pytest.raises(TurnTimeoutError) as info:
                await console.wait_turn(TURN)
    assert str(info.value) == (
        "waited 0.5 s for seat 3 to act in hand t1-000004 (cards 1:2 3:2 5:2, board 0): "
        "the daemon expects seat 5 to act")


async def test_a_console_not_following_the_state_does_not_wait(mosquitto: Broker) -> None:
    async with MqttConsole.connect(mosquitto.url, table="t1", user="dealer-t1",
                                   follow_state=False, turn_timeout=0.1) as console:
        await console.wait_turn(TURN)
    assert json.loads(envelope(1, {}))["seq"] == 1
