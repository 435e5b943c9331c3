"""Information flow by role (docs/security.md §6): no role ever receives a hidden card or a tag UID.

Random hands of every variant are dealt through a :class:`TableDaemon` on the in-memory journal
and publisher, with random commands from every role between the dealing steps (dealer, floor,
display, keypad, a user with no role): valid and refused ones, manual and doubtful cards, cards
of the other deck, unknown tags, undo, recall, replay and malformed payloads. After every step
every message published outside the secure root is checked:

* no tag UID of the deck files anywhere in it (any case);
* no card that is hidden at that moment: a card the table knows in the hand (read, entered,
  or on the secure feed) that the public side has not shown (board, up cards, face-up and
  shown-down hands in the public events and snapshot). A recall reply is checked hand by hand
  against the hidden cards of the hand each entry recalls, a replay reply event by event
  against the hand its event belonged to.

The secure topics may hold both. On the code before the fix, the first examples found: a
display's and a dealer's recall with every read's tag UID and the typed ``manual_card`` cards,
the ``manual_card``/``confirm_read`` replies echoing the hidden card, ``undo``'s refusal naming
the cards dealt since, and the ``second_deck`` error (public event and snapshot) naming the
tag's UID.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from dataclasses import dataclass, field, replace

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tablectl.clock import ManualClock
from tablectl.controller import COMMAND_TABLE, CardRead, ReadStatus, Stage
from tablectl.daemon import TableDaemon
from tablectl.domain.cards import FULL_DECK, Card, CardParseError
from tablectl.domain.jsonvalue import JsonValue
from tablectl.game import Act, Showdown
from tablectl.journal import MemoryJournal
from tablectl.publish import topics
from tablectl.publish.base import IncomingMessage, MemoryPublisher
from tests.controller.helpers import BLUE, RED, VARIANTS, card_expected, initial_state, make_setup

TABLE = "t01"
DEALER, FLOOR, DISPLAY, KEYPAD, NOBODY = (
    "dealer-t01", "floor-t01", "display-01", "keypad-t01", "mallory")
ROLES = {DEALER: "dealer", FLOOR: "floor", DISPLAY: "display", KEYPAD: "dealer"}
USERS = [DEALER, FLOOR, DISPLAY, KEYPAD, NOBODY]
CARDS = [str(c) for c in FULL_DECK]
UIDS = {uid.upper() for deck in (RED, BLUE) for uid in deck.cards_by_uid}
_CARD_TOKEN = re.compile(r"(?<![A-Za-z0-9])(10|[2-9TJQKA])([cdhs])(?![A-Za-z0-9])")
_HEX_RUN = re.compile(r"[0-9A-Fa-f]{6,}")


def _strings(value: object, *, keys: bool = True) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items()
                for s in ((str(k),) if keys else ()) + tuple(_strings(v, keys=keys))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v, keys=keys)]
    return []


def cards_in(value: object) -> set[str]:
    """Every card named anywhere in a JSON value: as the controller spells cards inside a
    text (``"As"``, ``"10h"``), or as a whole string in any spelling ``Card.parse`` takes."""
    out = set()
    for text in _strings(value):
        for m in _CARD_TOKEN.finditer(text):
            out.add(str(Card.parse(m.group(0))))
    for text in _strings(value, keys=False):
        with contextlib.suppress(CardParseError):
            out.add(str(Card.parse(text)))
    return out


def uids_in(value: object) -> set[str]:
    """Every deck UID anywhere in a JSON value."""
    return {run.upper() for text in _strings(value) for run in _HEX_RUN.findall(text)
            if run.upper() in UIDS}


def public_cards_of(event_type: str, data: dict[str, object]) -> set[str]:
    """The cards a public event shows on purpose (the board, up cards, shown hands)."""
    keys = {"board": ("cards",), "cards_dealt": ("up",), "face_up": ("cards",),
            "showdown": ("cards", "best")}.get(event_type, ())
    return {str(c) for k in keys for c in data.get(k) or [] if isinstance(c, str)}  # type: ignore[attr-defined]


def snapshot_public_cards(snap: dict[str, object]) -> set[str]:
    seen = {c for c in snap.get("board") or [] if isinstance(c, str)}  # type: ignore[attr-defined]
    for seat in snap.get("seats") or []:  # type: ignore[attr-defined]
        seen.update(c["card"] for c in seat["cards"] if c.get("card"))
    return seen


@dataclass
class HandSeen:
    """One hand as the oracle knows it: the cards the table knows and those shown publicly."""

    known: set[str] = field(default_factory=set)
    public: set[str] = field(default_factory=set)

    @property
    def hidden(self) -> set[str]:
        return self.known - self.public


@dataclass
class Leak:
    topic: str
    what: str
    items: set[str]
    body: object


def _without_typed_words(body: object) -> object:
    """``body`` without the ``reason`` a floor typed for ``adjust_stack``, as its ``seat``
    event and log entry (``change`` ``adjusted``) echo it: the floor's own words, not something
    the table let out, even when they spell a card (as this test's ``adjust_stack`` does). Every
    other ``reason`` (a refusal's, a recalled decision's) is the table's and is checked."""
    if isinstance(body, dict):
        typed = body.get("change") == "adjusted"
        return {k: _without_typed_words(v) for k, v in body.items()
                if not (typed and k == "reason")}
    if isinstance(body, list):
        return [_without_typed_words(v) for v in body]
    return body


class FlowWatch:
    """Follows every message the daemon publishes and finds leaks (see the module docstring)."""

    def __init__(self, daemon: TableDaemon, publisher: MemoryPublisher) -> None:
        self.daemon = daemon
        self.publisher = publisher
        self.checked = 0
        self.current = HandSeen()
        self.by_journal_hand: dict[int, HandSeen] = {}
        self.by_event_seq: dict[tuple[int, int], HandSeen] = {}
        self.leaks: list[Leak] = []
        self.secure_cards = 0
        self.recalls = 0

    def note_known(self, card: str) -> None:
        self.current.known.add(card)

    def hand_started(self) -> None:
        self.current = HandSeen()

    def bind_journal_hand(self) -> None:
        if self.daemon.hand_id is not None:
            self.by_journal_hand.setdefault(self.daemon.hand_id, self.current)

    def check(self) -> None:
        batch = self.publisher.sent[self.checked:]
        self.checked = len(self.publisher.sent)
        decoded = [(m.topic.value, json.loads(m.payload)) for m in batch]
        # first what this batch made public or secret, then the messages against it
        for topic, body in decoded:
            if topic.startswith("secure/"):
                found = cards_in(body.get("data", {}))
                self.secure_cards += len(found)
                self.current.known.update(found)
            elif topic == topics.events(TABLE).value:
                self.by_event_seq[(body["epoch"], body["seq"])] = self.current
                self.current.public.update(public_cards_of(body["type"], body["data"]))
            elif topic == topics.state(TABLE).value:
                self.current.public.update(snapshot_public_cards(body["data"]))
        for topic, body in decoded:
            if topic.startswith("secure/"):
                continue
            self._uids(topic, body)
            data = body.get("data") or {}
            if topic.startswith("poker/v1/replies/") and "hands" in data:
                self.recalls += 1
                for hand in data["hands"]:
                    seen = self.by_journal_hand.get(hand["hand"], HandSeen())
                    self._cards(topic, f"recall of hand {hand['hand']}", hand, seen)
                rest = {k: v for k, v in body.items() if k != "data"}
                self._cards(topic, "recall envelope", rest, self.current)
            elif topic.startswith("poker/v1/replies/") and "events" in data:
                for event in data["events"]:
                    seen = self.by_event_seq.get((event["epoch"], event["seq"]), HandSeen())
                    self._cards(topic, "replayed event", event, seen)
            else:
                self._cards(topic, "message", body, self.current)

    def _uids(self, topic: str, body: object) -> None:
        found = uids_in(body)
        if found:
            self.leaks.append(Leak(topic, "tag UID", found, body))

    def _cards(self, topic: str, what: str, body: object, seen: HandSeen) -> None:
        found = cards_in(_without_typed_words(body)) & seen.hidden
        if found:
            self.leaks.append(Leak(topic, f"hidden card in {what}", found, body))


class Table:
    """A daemon on the in-memory twins and the commands of every role."""

    def __init__(self, variant: int) -> None:
        game, structure = VARIANTS[variant]
        self.clock = ManualClock()
        self.publisher = MemoryPublisher()
        setup = replace(make_setup(game, structure), roles=ROLES)
        self.daemon = TableDaemon(setup,
                                  initial_state((3000, 3000, 3000)), MemoryJournal(self.clock),
                                  self.publisher, clock=self.clock)
        self.watch = FlowWatch(self.daemon, self.publisher)
        self.n = 0
        self.shoe: list[Card] = []

    async def start(self) -> None:
        self.daemon.recover()
        await self.step_done()

    async def step_done(self) -> None:
        await self.daemon.publish_pending()
        self.watch.check()

    async def send(self, user: str, name: str, args: dict[str, JsonValue] | None = None,
                   *, raw: bytes | None = None) -> None:
        self.n += 1
        self.clock.advance(1)
        payload = raw if raw is not None else json.dumps({
            "v": 1, "id": f"c{self.n}", "ts": self.clock.now().isoformat(),
            "args": args or {}, "reply_to": f"poker/v1/replies/{user}/c"}).encode()
        before = self.daemon.controller.hand_id
        await self.daemon.handle_message(IncomingMessage(
            topic=topics.cmd(TABLE, name, user), payload=payload))
        if self.daemon.controller.hand_id not in (None, before):
            self.watch.hand_started()
            self.shoe = list(FULL_DECK)
        self.watch.bind_journal_hand()
        await self.step_done()

    async def read(self, card: Card, *, uid: str | None = None,
                   status: ReadStatus = ReadStatus.ACCEPTED) -> None:
        self.n += 1
        self.clock.advance(1)
        if uid is None:
            self.watch.note_known(str(card))
        self.daemon.apply(CardRead(source="shoe", uid=uid or RED.uid_for(card), antenna=0,
                                   read_id=f"r{self.n}", at=self.clock.now(), status=status,
                                   confidence=0.5 if status is ReadStatus.NEEDS_CONFIRMATION
                                   else 1.0))
        self.watch.bind_journal_hand()
        await self.step_done()


def _args(data: st.DataObject, name: str, table: Table) -> dict[str, JsonValue]:
    """Arguments for ``name``: valid-looking ones, often naming a card now in play."""
    in_play = sorted(table.watch.current.known) or CARDS
    card = data.draw(st.one_of(st.sampled_from(in_play), st.sampled_from(CARDS)), label="card")
    match name:
        case "action":
            return data.draw(st.fixed_dictionaries(
                {"kind": st.sampled_from(["fold", "check", "call", "bet", "raise", "show",
                                          "muck", "complete", "bring_in"])},
                optional={"seat": st.integers(1, 3),
                          "cards": st.lists(st.sampled_from(in_play), max_size=2)}),
                label="args")
        case "manual_card":
            return data.draw(st.fixed_dictionaries({"card": st.just(card)}, optional={
                "seat": st.integers(1, 3), "board": st.booleans(),
                "read": st.sampled_from([f"r{table.n}", "r1"])}), label="args")
        case "confirm_read" | "reject_read":
            return {"read": f"r{table.n}"}
        case "clear_error":
            return {"code": data.draw(st.sampled_from(
                ["missed_read", "duplicate_card", "doubtful_read", "second_deck",
                 "unknown_tag", "too_many_cards"]), label="code")}
        case "recall":
            return {"hands": data.draw(st.integers(1, 4), label="hands")}
        case "replay":
            return {"from_seq": 1, "to_seq": 500}
        case "adjust_stack":
            return {"seat": 1, "amount": 10, "reason": card}
        case _:
            return {}


async def random_command(data: st.DataObject, table: Table) -> None:
    user = data.draw(st.sampled_from(USERS), label="user")
    name = data.draw(st.sampled_from([*sorted(COMMAND_TABLE), "recall", "recall", "replay",
                                      "correct_card", "deal_faster"]), label="name")
    how = data.draw(st.integers(0, 9), label="malformed")
    if how == 0:
        await table.send(user, name, raw=data.draw(st.sampled_from([
            b"{", b"[]", b'{"v":1}',
            b'{"v":1,"id":"x","args":[],"reply_to":"poker/v1/replies/%s/c"}' % user.encode(),
            b'{"v":1,"id":"y","args":{"hands":"all"},"reply_to":"x"}']),
            label="raw"))
        return
    await table.send(user, name, _args(data, name, table))


async def deal_step(data: st.DataObject, table: Table) -> None:
    """One step a dealer would take: a card, a decision, a showdown, clearing errors."""
    ctl = table.daemon.controller
    if ctl.active_errors:
        code = ctl.active_errors[0].code.value
        if code == "doubtful_read":
            held = ctl.secure_snapshot().get("pending_read")
            read = held.get("read") if isinstance(held, dict) else None
            verb = data.draw(st.sampled_from(["confirm_read", "reject_read"]), label="verb")
            await table.send(DEALER, verb, {"read": str(read)})
            if not ctl.active_errors:
                return
        await table.send(FLOOR, "clear_error", {"code": code})
        return
    if ctl.stage is Stage.NO_HAND:
        await table.send(data.draw(st.sampled_from([DEALER, FLOOR]), label="starter"),
                         "start_hand")
        return
    if ctl.stage is Stage.SETTLED:
        await table.send(DEALER, "next_hand")
        return
    exp = ctl.expected()
    if card_expected(exp):
        table.shoe = [c for c in table.shoe if str(c) not in table.watch.current.known] \
            or list(FULL_DECK)
        card = data.draw(st.sampled_from(table.shoe), label="shoe card")
        how = data.draw(st.integers(0, 11), label="how")
        if how == 0:
            table.watch.note_known(str(card))
            await table.send(data.draw(st.sampled_from([DEALER, FLOOR]), label="who"),
                             "manual_card", {"card": str(card)})
        elif how == 1:
            await table.read(card, status=ReadStatus.NEEDS_CONFIRMATION)
        elif how == 2:
            await table.read(card, uid=BLUE.uid_for(card))        # the other deck's card
        elif how == 3:
            await table.read(card, uid="DEADBEEF0101")            # a tag of no deck
        elif how == 4 and table.watch.current.known:               # a card read twice
            again = Card.parse(data.draw(st.sampled_from(sorted(table.watch.current.known))))
            await table.read(again)
        else:
            await table.read(card)
    elif isinstance(exp, Act):
        kinds = sorted(k.value.replace("-", "_") for k in exp.legal.kinds)
        kind = data.draw(st.sampled_from(kinds), label="kind")
        if data.draw(st.booleans(), label="keypad"):
            await table.send(KEYPAD, "action", {"kind": kind})
        else:
            await table.send(DEALER, "action", {"seat": exp.seat, "kind": kind})
    elif isinstance(exp, Showdown):
        await table.send(DEALER, "action", {
            "seat": exp.seat, "kind": data.draw(st.sampled_from(["show", "muck"]))})


async def play(data: st.DataObject) -> FlowWatch:
    table = Table(data.draw(st.integers(0, len(VARIANTS) - 1), label="variant"))
    await table.start()
    for _ in range(data.draw(st.integers(20, 70), label="steps")):
        if data.draw(st.integers(0, 2), label="command?") == 0:
            await random_command(data, table)
        else:
            await deal_step(data, table)
    await table.send(DISPLAY, "recall", {"hands": 5})
    return table.watch


@settings(max_examples=30, deadline=None, phases=(Phase.explicit, Phase.reuse, Phase.generate),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_no_role_ever_receives_a_hidden_card_or_a_tag_uid(data: st.DataObject) -> None:
    watch = asyncio.run(play(data))
    assert watch.recalls >= 1
    assert not watch.leaks, "\n".join(
        f"{leak.topic}: {leak.what}: {sorted(leak.items)}: {json.dumps(leak.body)[:600]}"
        for leak in watch.leaks[:3])


def test_the_oracle_sees_what_it_looks_for() -> None:
    """The checks can fail: a card and a UID in any spelling are found, a hidden card only."""
    uid = next(iter(UIDS))
    assert uids_in({"x": [f"tag {uid.lower()} seen"]}) == {uid}
    assert cards_in({"a": "10h and as", "b": ["kd"], "Qc": 1, "c": " as "}) == {
        "Th", "Kd", "Qc", "As"}
    seen = HandSeen(known={"As", "Kd"}, public={"Kd"})
    assert seen.hidden == {"As"}
