"""The public view of a recall (:mod:`tablectl.history.public_view`): the one place a journaled
input becomes what a role sees, and the ``recall`` reply built from it."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime

from tablectl.clock import ManualClock
from tablectl.controller import CardRead, Command, ReadStatus, Stage
from tablectl.controller.inputs import ReadMissed
from tablectl.daemon import TableDaemon
from tablectl.daemon.answers import answer_from_journal
from tablectl.domain.cards import Card
from tablectl.domain.jsonvalue import JsonValue
from tablectl.game import Act, Showdown
from tablectl.history.public_view import (
    HIDDEN,
    public_cards,
    public_input,
    public_text,
    without_uids,
)
from tablectl.journal import EventRecord, MemoryJournal
from tablectl.publish.base import MemoryPublisher
from tests.controller.helpers import RED, card_expected, initial_state, make_setup

AT = datetime(2026, 12, 2, tzinfo=UTC)
UID = RED.uid_for(Card.parse("As"))
ROLES = {"dealer-t01": "dealer", "floor-t01": "floor", "display-01": "display"}


def _event(kind: str, data: dict[str, JsonValue], topic: str = "poker/v1/tables/t/events",
           ) -> EventRecord:
    return EventRecord(id=1, epoch=1, seq=1, topic=topic, type=kind, payload=data,
                       hand_id=1, created_at=AT, published_at=None)


def test_a_read_keeps_its_kind_and_place_and_loses_its_uid_and_hidden_card() -> None:
    read = CardRead(source="shoe", uid=UID, antenna=2, read_id="shoe:0:7", at=AT)
    payload = read.to_json()
    assert UID in json.dumps(payload) and payload["card"] is None
    shown = public_input("card_read", payload, set())
    assert "uid" not in shown and UID not in json.dumps(shown)
    assert shown["source"] == "shoe" and shown["antenna"] == 2 and shown["read_id"] == "shoe:0:7"
    typed = replace(read, uid=None, card=Card.parse("Kd")).to_json()
    assert public_input("card_read", typed, set())["card"] == HIDDEN
    assert public_input("card_read", typed, {"Kd"})["card"] == "Kd"       # on the board


def test_every_card_bearing_argument_is_hidden_until_public() -> None:
    manual = Command(name="manual_card", user="dealer-t01", id="c1", at=AT,
                     args={"card": "As", "seat": 3}).to_json()
    assert public_input("command", manual, set())["args"] == {"card": HIDDEN, "seat": 3}
    assert public_input("command", manual, {"As"})["args"] == {"card": "As", "seat": 3}
    show = Command(name="action", user="dealer-t01", id="c2", at=AT, args={
        "kind": "show", "cards": ["as", "10h"], "note": {"As": "seen Th"}}).to_json()
    assert public_input("command", show, {"Th"})["args"] == {
        "kind": "show", "cards": [HIDDEN, "Th"], "note": {HIDDEN: "seen Th"}}
    shown = public_input("command", show, set())
    assert shown["name"] == "action" and shown["user"] == "dealer-t01"


def test_config_and_unknown_inputs_show_almost_nothing() -> None:
    decks = {"type": "config", "setup": {"decks": {"demo-red": {UID: "As"}}}, "at": "x"}
    assert public_input("config", decks, set()) == {"type": "config", "at": "x"}
    assert public_input("future_kind", {"type": "future_kind", "uid": UID}, set()) == {
        "type": "future_kind"}
    missed = ReadMissed("shoe", 1, f"undecodable reader event: tag {UID}", AT).to_json()
    assert UID not in json.dumps(public_input("read_missed", missed, set()))


def test_texts_lose_uids_and_hidden_cards_only() -> None:
    assert public_text(f"tag {UID.lower()} is As, board Kd", {"Kd"}) == (
        "tag (tag) is hidden, board Kd")
    assert public_text("as agreed", set()) == "as agreed"
    assert without_uids({"m": f"tag {UID}", "cards": ["As"]}) == {
        "m": "tag (tag)", "cards": ["As"]}


def test_public_cards_are_what_public_events_showed() -> None:
    events = [
        _event("board", {"cards": ["Ah", "Kh", "Qh"], "street": "flop"}),
        _event("cards_dealt", {"seat": 1, "up": ["7c"]}),
        _event("cards_dealt", {"seat": 2, "up": []}),
        _event("showdown", {"seat": 3, "cards": ["2d", "3d"], "best": ["Ah"]}),
        _event("face_up", {"seat": 4, "cards": ["9s"]}),
        _event("correction", {"kind": "manual_card", "card": "5s"}),
        _event("holecards", {"seat": 2, "cards": ["Jc", "Jd"]}, "secure/v1/tables/t/holecards"),
    ]
    assert public_cards(events) == {"Ah", "Kh", "Qh", "7c", "2d", "3d", "9s"}


# --- the recall reply, from a hand dealt through the daemon ---------------------------------


class Table:
    def __init__(self) -> None:
        self.clock = ManualClock()
        self.daemon = TableDaemon(replace(make_setup(), roles=ROLES),
                                  initial_state((1000, 1000, 1000)), MemoryJournal(self.clock),
                                  MemoryPublisher(), clock=self.clock)
        self.daemon.recover()
        self.n = 0
        self.shoe = [Card.parse(c) for c in ("As", "Kd", "2c", "7h", "8h", "9s", "Tc", "Qd",
                                             "Jd", "3c", "Ah", "4s", "5d", "6d", "Ts")]

    def tick(self) -> datetime:
        self.n += 1
        self.clock.advance(1)
        return self.clock.now()

    def cmd(self, name: str, user: str = "dealer-t01", **args: JsonValue) -> None:
        at = self.tick()
        self.daemon.apply(Command(name=name, user=user, id=f"c{self.n}", at=at, args=args))

    def read(self, status: ReadStatus = ReadStatus.ACCEPTED) -> Card:
        card = self.shoe.pop(0)
        self.daemon.apply(CardRead(source="shoe", uid=RED.uid_for(card), antenna=0,
                                   read_id=f"r{self.n}", at=self.tick(), status=status))
        return card

    def recall(self, user: str = "display-01") -> dict[str, JsonValue]:
        reply = answer_from_journal(self.daemon.journal, self.daemon.setup, Command(
            name="recall", user=user, id=f"q{self.n}", at=self.clock.now(), args={"hands": 1}))
        assert reply.status == "ok", reply
        hand = reply.data["hands"][0]  # type: ignore[index]
        assert isinstance(hand, dict)
        return hand

    def play_out(self) -> None:
        """The first to act folds, the others check and call to the river and show down (at
        a showdown decision, if the rules ask for one, the first shows and the next mucks)."""
        ctl = self.daemon.controller
        decided = 0
        while ctl.stage is Stage.IN_HAND:
            exp = ctl.expected()
            if card_expected(exp):
                self.read()
            elif isinstance(exp, Act):
                kind = "check" if any(k.value == "check" for k in exp.legal.kinds) else "call"
                self.cmd("action", seat=exp.seat, kind=kind if decided else "fold")
                decided += 1
            elif isinstance(exp, Showdown):
                self.cmd("action", seat=exp.seat, kind="muck" if decided > 1 else "show")
            else:
                return


def _texts(value: object) -> str:
    return json.dumps(value)


def test_recall_mid_hand_shows_no_hole_card_uid_or_typed_card_to_any_role() -> None:
    table = Table()
    table.cmd("start_hand")
    holes = [table.read() for _ in range(5)]
    table.cmd("manual_card", card=str(table.shoe.pop(0)))   # the sixth hole card, typed
    table.cmd("manual_card", card="As")                      # refused: already dealt
    assert table.daemon.controller.expected() is not None
    for user in ROLES:
        hand = table.recall(user)
        text = _texts(hand)
        steps = hand["steps"]
        assert isinstance(steps, list)
        assert [s["what"] for s in steps][:3] == ["start_hand", "card_read", "card_read"]
        for card in holes:
            assert str(card) not in text
            assert RED.uid_for(card) not in text.upper()
        manual = [s for s in steps if s["what"] == "manual_card"]
        assert [s["input"]["args"] for s in manual] == [{"card": HIDDEN}, {"card": HIDDEN}]
        reads = [s["input"] for s in steps if s["what"] == "card_read"]
        assert reads and all("uid" not in r and r["card"] in (None, HIDDEN) for r in reads)


def test_after_the_hand_only_what_was_shown_down_and_the_board() -> None:
    table = Table()
    table.cmd("start_hand")
    table.play_out()
    secure = [e for e in table.daemon.journal.events_range(
        "secure/v1/tables/t01/holecards", table.daemon.journal.epoch, 1, 1000)]
    holes = {e.payload["seat"]: e.payload["cards"] for e in secure}
    public = [e for e in table.daemon.journal.events_range(
        "poker/v1/tables/t01/events", table.daemon.journal.epoch, 1, 1000)]
    shown = {e.payload["seat"] for e in public if e.type == "showdown"}
    board = {c for e in public if e.type == "board" for c in e.payload["cards"]}  # type: ignore[union-attr]
    assert shown and len(shown) < len(holes), "hands shown down, one folded"
    text = _texts(table.recall())
    for seat, cards in holes.items():
        for card in cards:  # type: ignore[union-attr]
            assert (card in text) == (seat in shown or card in board), (seat, card)
            assert RED.uid_for(Card.parse(str(card))) not in text.upper()
