"""No accepted command makes the snapshot larger than the broker takes (issue 25, item 7).

The broker disconnects a client that sends a packet over ``max_packet_size``
(config/mosquitto/mosquitto.conf). Names are the only free text a command puts on the
snapshot: each at most 32 characters a display can show. The worst case here, ten seats named
with 32 four-byte characters and stacks of 2^53 - 1 in an Omaha hand with every hole card
dealt, and its action log full of the largest entries, is the figure docs/mqtt.md §8.4
("Limits") quotes.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tablectl.controller import CardRead, Command, HandController, ReadStatus, TableState
from tablectl.controller.table import TableSetup
from tablectl.domain.cards import FULL_DECK
from tablectl.domain.deck import Deck
from tablectl.domain.games import BettingStructure, GameKind
from tablectl.domain.strictjson import MAX_SAFE_INT
from tablectl.game import Act, Stakes
from tablectl.publish.envelope import SnapshotEnvelope, encode

ROOT = Path(__file__).resolve().parents[2]
RED = Deck.load(ROOT / "config" / "decks" / "demo-red.csv")
T0 = datetime(2026, 12, 2, 18, 0, tzinfo=UTC)
WIDE = "\U0001d54f"          # MATHEMATICAL DOUBLE-STRUCK CAPITAL X: four bytes in UTF-8
FLOOR = "floor-" + "f" * 58  # the longest user a topic level takes


def broker_max_packet() -> int:
    text = (ROOT / "config" / "mosquitto" / "mosquitto.conf").read_text()
    match = re.search(r"^max_packet_size (\d+)$", text, re.M)
    assert match
    return int(match.group(1))


def command(n: int, name: str, args: dict[str, object]) -> Command:
    return Command(name=name, user=FLOOR, id=f"{'i' * 120}{n:08d}",
                   at=T0 + timedelta(seconds=n), args=args)


def test_the_worst_snapshot_fits_the_broker() -> None:
    setup = TableSetup(table="t" * 32, game=GameKind.OMAHA, structure=BettingStructure.POT_LIMIT,
                       stakes=Stakes(small_blind=1, big_blind=2), deck_id=RED.deck_id,
                       decks={RED.deck_id: RED}, roles={FLOOR: "floor"}, max_seats=10)
    controller = HandController(setup, TableState.initial([], button=1))
    for seat in range(1, 11):
        reply = controller.handle(command(seat, "seat_player", {
            "seat": seat, "name": WIDE * 32, "stack": MAX_SAFE_INT})).reply
        assert reply is not None and reply.ok, reply
    # a 33rd character is refused, as is a name a display cannot show
    for bad in (WIDE * 33, "Ann\u202e", "A\u200bB"):
        reply = controller.handle(command(20, "unseat_player", {"seat": 1})).reply
        assert reply is not None and reply.ok
        reply = controller.handle(command(21, "seat_player", {
            "seat": 1, "name": bad, "stack": 1})).reply
        assert reply is not None and reply.code is not None
        assert reply.code.value == "bad_args", reply
        reply = controller.handle(command(22, "seat_player", {
            "seat": 1, "name": WIDE * 32, "stack": MAX_SAFE_INT})).reply
        assert reply is not None and reply.ok
    assert controller.handle(command(30, "start_hand", {})).reply.ok  # type: ignore[union-attr]
    for i, card in enumerate(FULL_DECK[:40]):
        controller.handle(CardRead(source="shoe", uid=RED.uid_for(card), antenna=0,
                                   read_id=f"r{i}", at=T0 + timedelta(seconds=40 + i),
                                   status=ReadStatus.ACCEPTED))
    assert sum(len(s["cards"]) for s in controller.secure_snapshot()["seats"]) == 40  # type: ignore
    # the action log at its fullest (24 + 96 entries): all-in raises of 2^53 - 1 chips, each
    # taken back by the floor user with the longest name, and tags of no deck read and
    # cleared (the longest error messages)
    n = 100
    for i in range(60):
        exp = controller.expected()
        assert isinstance(exp, Act) and exp.legal.max_to is not None
        for name, args in (("action", {"seat": exp.seat, "kind": "raise",
                                       "amount": exp.legal.max_to}), ("undo", {})):
            n += 1
            reply = controller.handle(command(n, name, args)).reply
            assert reply is not None and reply.ok, reply
        if i % 6 == 0:
            controller.handle(CardRead(source="shoe", uid="04" + "ab" * 9, antenna=0,
                                       read_id=f"x{i}", at=T0 + timedelta(seconds=n),
                                       status=ReadStatus.ACCEPTED))
            n += 1
            reply = controller.handle(command(n, "clear_error", {"code": "unknown_tag"})).reply
            assert reply is not None and reply.ok, reply
    public = controller.public_snapshot()
    assert len(public["log"]) == 120 and public["log_omitted"] > 0  # type: ignore[arg-type]
    sizes = []
    for body in (controller.public_snapshot(), controller.secure_snapshot()):
        env = SnapshotEnvelope(table=setup.table, journal="f" * 16, epoch=MAX_SAFE_INT,
                               seq=MAX_SAFE_INT, ts=T0, hand=MAX_SAFE_INT, data=body)
        sizes.append(len(encode(env)))
    print(f"worst snapshot: public {sizes[0]} bytes, secure {sizes[1]} bytes")
    assert max(sizes) < 64 * 1024 < broker_max_packet()
