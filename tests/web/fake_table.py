"""A stand-in for the table daemon: it publishes the daemon's payloads to a real mosquitto and
answers console commands, for a heads-up no-limit hold'em hand with known cards.

Its payloads have the daemon's shapes: every event and snapshot in the envelope of
``tablectl.publish.envelope`` (the body under ``data``), the status ``{"state": ...}``, replies
``{"status", "error": {"code", "message"}, "data"}``; each body is validated against the
controller's payload models (``tablectl.controller.payloads``) before it is published, so a
shape the real daemon would not send fails the test at once. Its rules are written out here
(not taken from the web server or the engine): two seats, blinds, check/call/bet/raise/fold, a
fixed deck order and a fixed showdown result. ``start_hand`` only between hands, ``next_hand``
only after a settled hand (it moves the button), as the real controller does.
(``tests/web/test_whole_stack.py`` runs the pages against the real daemon.)
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from tablectl.controller.payloads import (
    PUBLIC_EVENT,
    HoleCardsEvent,
    PublicSnapshot,
    SecureSnapshot,
)
from tablectl.publish.envelope import (
    EventEnvelope,
    ReplyPayload,
    SnapshotEnvelope,
    StatusPayload,
    decode,
)
from tests.web.paho_link import SyncClient

TABLE = "t01"
STAKES = {"small_blind": 100, "big_blind": 200, "ante": 0, "bring_in": 0, "small_bet": 0,
          "big_bet": 0, "currency": "USD", "units_per_currency": 100}
GAME = {"variant": "holdem", "structure": "no-limit", "preset": "casino",
        "label": "No-Limit Hold'em"}
HOLE = {1: ["As", "Ks"], 3: ["7h", "7d"]}
BOARD = ["Ah", "7c", "2d", "Kd", "9s"]
WINNER_DESCRIPTION = "Three of a kind, sevens"
WINNER_CARDS = ["7h", "7d", "7c", "Ah", "Kd"]
LOSER_DESCRIPTION = "Two pair, aces and kings"
STREETS = ("preflop", "flop", "turn", "river")


def ts() -> str:
    return "2026-11-29T18:00:00Z"


@dataclass
class Seat:
    seat: int
    name: str
    stack: int
    bet: int = 0
    committed: int = 0
    folded: bool = False
    acted: bool = False


@dataclass
class FakeTable:
    """Publishes state/events/status (+ the secure feed) and answers commands."""

    port: int
    epoch: int = 1
    seq: int = 0
    hand_no: int = 0
    phase: str = "idle"
    street: str | None = None
    button: int = 1
    secure_seq: int = 0
    seats: dict[int, Seat] = field(default_factory=lambda: {
        1: Seat(1, "Ada", 20000), 3: Seat(3, "Brook", 20000)})
    board: list[str] = field(default_factory=list)
    to_act: int | None = None
    results: list[dict[str, Any]] = field(default_factory=list)
    last_action: dict[str, Any] | None = None
    commands: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    recall_result: dict[str, Any] = field(default_factory=lambda: {"hands": [
        {"id": "t01-000001", "summary": "Brook wins $8 with three of a kind, sevens"}]})
    on_command: Callable[[str, dict[str, Any]], None] | None = None
    password: str | None = None

    def __post_init__(self) -> None:
        self.lock = threading.Lock()
        # Commands are handled on a worker thread: publishing with QoS 1 waits for the PUBACK,
        # which paho's network thread (where on_message runs) must be free to read.
        self._inbox: queue.Queue[mqtt.MQTTMessage | None] = queue.Queue()
        self._worker = threading.Thread(target=self._work, daemon=True)
        self._worker.start()
        self.mqtt = SyncClient(self.port, f"controller-{TABLE}", password=self.password)
        self.mqtt.client.on_message = self._on_message
        self.mqtt.client.subscribe(f"poker/v1/tables/{TABLE}/cmd/+/+", qos=1)
        status = {"v": 1, "table": TABLE, "state": "online", "version": "test",
                  "epoch": self.epoch}
        decode(StatusPayload, json.dumps(status).encode())
        self.pub(f"poker/v1/tables/{TABLE}/status", status, retain=True)
        self.publish_state()

    def close(self) -> None:
        self._inbox.put(None)
        self._worker.join(10)
        self.mqtt.close()

    def _work(self) -> None:
        while (msg := self._inbox.get()) is not None:
            self._process(self.mqtt.client, msg)

    # --- publishing ---------------------------------------------------------------------

    def pub(self, topic: str, obj: dict[str, Any], *, retain: bool = False) -> None:
        self.mqtt.publish(topic, json.dumps(obj).encode(), retain=retain)

    def envelope(self, etype: str, seq: int, data: dict[str, Any]) -> dict[str, Any]:
        return {"v": 1, "table": TABLE, "epoch": self.epoch, "seq": seq, "type": etype,
                "ts": ts(), "hand": self.hand_no if self.phase != "idle" else None,
                "data": data}

    def event(self, etype: str, **fields: Any) -> None:
        PUBLIC_EVENT.validate_python({"type": etype, **fields})
        self.seq += 1
        env = self.envelope(etype, self.seq, fields)
        decode(EventEnvelope, json.dumps(env).encode())
        self.pub(f"poker/v1/tables/{TABLE}/events", env)

    def holecards(self, seat: int, cards: list[str]) -> None:
        body = {"hand": self.hand_ref(), "seat": seat, "cards": cards}
        HoleCardsEvent.model_validate({"type": "holecards", **body})
        self.secure_seq += 1
        self.pub(f"secure/v1/tables/{TABLE}/holecards",
                 self.envelope("holecards", self.secure_seq, body))

    def hand_ref(self) -> dict[str, Any]:
        return {"id": f"{TABLE}-{self.hand_no:06d}", "number": self.hand_no}

    def snapshot(self, *, secure: bool) -> dict[str, Any]:
        show = self.street == "showdown"
        seats = []
        for s in self.seats.values():
            cards = []
            if self.hand_no and self.phase != "idle":
                for c in HOLE[s.seat]:
                    visible = secure or (show and not s.folded)
                    cards.append({"card": c if visible else None, "up": show and not s.folded})
            status = "folded" if s.folded else ("all_in" if s.stack == 0 and self.hand_no
                                                and self.phase != "settled" else "active")
            seats.append({"seat": s.seat, "name": s.name, "stack": s.stack, "bet": s.bet,
                          "status": status, "cards": cards, "to_act": s.seat == self.to_act})
        pot = sum(s.committed for s in self.seats.values())
        to_act = None
        if self.to_act is not None:
            to_act = {"seat": self.to_act, "legal": self.legal(self.to_act)}
        body: dict[str, Any] = {
            "schema": "tablectl.state/1", "table": TABLE,
            "hand": self.hand_ref() if self.hand_no and self.phase != "idle" else None,
            "game": GAME, "stakes": STAKES, "button": self.button, "phase": self.phase,
            "street": self.street, "seats": seats, "board": list(self.board),
            "pots": [{"amount": pot, "eligible": [s.seat for s in self.seats.values()
                                                  if not s.folded]}] if pot else [],
            "to_act": to_act, "last_action": self.last_action,
            "results": self.results, "errors": list(self.errors),
            "devices": [{"name": "shoe", "kind": "rfid-shoe", "status": "online"}]}
        if secure:
            body.update({"schema": "tablectl.secure-state/1", "burns": [],
                         "pending_read": None})
            SecureSnapshot.model_validate(body)
        else:
            PublicSnapshot.model_validate(body)
        env = self.envelope("snapshot", self.secure_seq if secure else self.seq, body)
        decode(SnapshotEnvelope, json.dumps(env).encode())
        return env

    def publish_state(self) -> None:
        self.pub(f"poker/v1/tables/{TABLE}/state", self.snapshot(secure=False), retain=True)
        self.pub(f"secure/v1/tables/{TABLE}/state", self.snapshot(secure=True))

    # --- rules (heads-up, no-limit) ---------------------------------------------------------

    def other(self, seat: int) -> int:
        return next(s for s in self.seats if s != seat)

    def legal(self, seat: int) -> list[dict[str, Any]]:
        me, them = self.seats[seat], self.seats[self.other(seat)]
        to_call = them.bet - me.bet
        max_total = me.bet + me.stack
        if to_call > 0:
            out: list[dict[str, Any]] = [{"kind": "fold"}, {"kind": "call",
                                                            "amount": min(to_call, me.stack)}]
            min_raise = them.bet + max(to_call, STAKES["big_blind"])
            if max_total > them.bet:
                out.append({"kind": "raise", "min": min(min_raise, max_total), "max": max_total})
            return out
        return [{"kind": "check"}, {"kind": "bet", "min": min(STAKES["big_blind"], max_total),
                                    "max": max_total}]

    def start_hand(self) -> None:
        self.hand_no += 1
        for s in self.seats.values():
            s.bet = s.committed = 0
            s.folded = s.acted = False
        self.board, self.results, self.last_action = [], [], None
        self.phase, self.street = "dealing", "preflop"
        self.event("hand_started", hand=self.hand_ref(), button=self.button,
                   seats=[{"seat": s.seat, "name": s.name, "stack": s.stack}
                          for s in self.seats.values()], game=GAME, stakes=STAKES)
        sb, bb = self.button, self.other(self.button)  # heads-up: the button posts the SB
        for seat, kind, amount in ((sb, "small_blind", 100), (bb, "big_blind", 200)):
            s = self.seats[seat]
            s.stack -= amount
            s.bet += amount
            s.committed += amount
            self.event("forced_bet", seat=seat, kind=kind, amount=amount, all_in=False)
        dealt: dict[int, list[str]] = {seat: [] for seat in HOLE}
        for i, seat in enumerate((bb, sb, bb, sb)):
            self.event("cards_dealt", seat=seat, count=1, up=[], street="preflop")
            dealt[seat].append(HOLE[seat][i // 2])
            self.holecards(seat, list(dealt[seat]))  # every card of the seat so far
        self.phase = "betting"
        self.to_act = sb
        self.publish_state()

    def act(self, seat: int, kind: str, amount: int | None) -> str | None:
        if self.phase != "betting" or seat != self.to_act:
            return "not_your_turn"
        legal = {a["kind"]: a for a in self.legal(seat)}
        if kind not in legal:
            return "illegal_action"
        me, them = self.seats[seat], self.seats[self.other(seat)]
        if kind in ("bet", "raise"):
            if amount is None or not legal[kind]["min"] <= amount <= legal[kind]["max"]:
                return "bad_amount"
            add = amount - me.bet
        elif kind == "call":
            add = legal["call"]["amount"]
        else:
            add = 0
        me.stack -= add
        me.bet += add
        me.committed += add
        me.acted = True
        if kind == "fold":
            me.folded = True
        self.last_action = {"seat": seat, "kind": kind, "amount": add}
        self.event("action", seat=seat, kind=kind, amount=add, to=me.bet,
                   all_in=me.stack == 0, stack=me.stack)
        if kind in ("bet", "raise"):
            them.acted = False
        if me.folded:
            self.finish(winner=them.seat, showdown=False)
        elif them.acted and me.bet == them.bet:
            self.next_street()
        else:
            self.to_act = them.seat
        self.publish_state()
        return None

    def next_street(self) -> None:
        pot = sum(s.committed for s in self.seats.values())
        for s in self.seats.values():
            s.bet, s.acted = 0, False
        self.event("pot", pots=[{"amount": pot, "eligible": list(self.seats)}],
                   street=self.street)
        i = STREETS.index(self.street or "preflop")
        if i == len(STREETS) - 1:
            self.finish(winner=3, showdown=True)
            return
        self.street = STREETS[i + 1]
        new = BOARD[:3] if self.street == "flop" else BOARD[len(self.board):len(self.board) + 1]
        for card in new:  # one event per card, each with the whole board so far
            self.board.append(card)
            self.event("board", cards=list(self.board), street=self.street)
        self.to_act = self.other(self.button)  # heads-up: the big blind acts first after the flop

    def finish(self, *, winner: int, showdown: bool) -> None:
        pot = sum(s.committed for s in self.seats.values())
        self.to_act = None
        self.phase, self.street = "settled", ("showdown" if showdown else None)
        if showdown:
            for seat, desc in ((1, LOSER_DESCRIPTION), (3, WINNER_DESCRIPTION)):
                best = WINNER_CARDS if seat == 3 else ["As", "Ah", "Ks", "Kd", "9s"]
                self.event("showdown", seat=seat, cards=HOLE[seat], best=best, high=desc,
                           low=None)
        self.seats[winner].stack += pot
        for s in self.seats.values():
            s.bet = 0
        self.results = [{"pot": 0, "seat": winner, "amount": pot, "half": "whole",
                         "description": WINNER_DESCRIPTION if showdown else "",
                         "cards": WINNER_CARDS if showdown else []}]
        self.event("winner", pot=0, seat=winner, amount=pot, half="whole",
                   description=self.results[0]["description"])
        self.event("hand_ended", hand=self.hand_ref(), result="settled",
                   stacks=[{"seat": s.seat, "stack": s.stack} for s in self.seats.values()],
                   rake=0)

    # --- commands -----------------------------------------------------------------------

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        self._inbox.put(msg)

    def _process(self, client: mqtt.Client, msg: mqtt.MQTTMessage) -> None:
        name = msg.topic.split("/")[-2]
        try:
            cmd = json.loads(msg.payload)
        except ValueError:
            return
        args = cmd.get("args", {})
        with self.lock:
            self.commands.append((name, args))
            error = self.handle(name, args)
        reply: dict[str, Any] = {"v": 1, "id": cmd.get("id"),
                                 "status": "ok" if error is None else "error",
                                 "data": {}}
        if error is None:
            reply["data"] = self.recall_result if name == "recall" else {}
        else:
            reply["error"] = {"code": error, "message": f"{name} refused: {error}"}
        raw = json.dumps(reply).encode()
        decode(ReplyPayload, raw)
        props = Properties(PacketTypes.PUBLISH)
        props.CorrelationData = msg.properties.CorrelationData
        client.publish(msg.properties.ResponseTopic, raw, qos=1, properties=props)

    def handle(self, name: str, args: dict[str, Any]) -> str | None:
        if name == "start_hand":
            if self.phase != "idle":
                return "wrong_phase"
            self.start_hand()
            return None
        if name == "next_hand":
            if self.phase != "settled":
                return "wrong_phase"
            self.phase, self.street, self.to_act = "idle", None, None
            self.board, self.results, self.last_action = [], [], None
            self.button = self.other(self.button)
            self.publish_state()
            return None
        if name == "action":
            return self.act(int(args.get("seat", 0)), str(args.get("kind")),
                            args.get("amount"))
        if name in ("manual_card", "confirm_read", "reject_read", "clear_error",
                    "seat_player", "unseat_player", "adjust_stack", "misdeal", "recall",
                    "run_it"):
            return None  # recorded in self.commands; the stand-in does not model them
        return "not_supported_by_stand_in"

    def doubtful_read(self, read: str, message: str) -> None:
        """Publish a snapshot with a read that needs the dealer's confirmation (as the
        controller words it: the read id leads the message)."""
        with self.lock:
            self.errors = [{"code": "doubtful_read",
                            "message": f"read {read} needs confirmation: {message}",
                            "since": ts()}]
            self.phase = "fault"
            self.publish_state()
