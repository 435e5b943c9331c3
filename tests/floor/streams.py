"""Event streams for the floor's unit tests, in the daemon's envelope shape (docs/mqtt.md)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from tablectl.floor.decode import decode_event, decode_snapshot
from tablectl.floor.model import FloorEvent, FloorSnapshot

T0 = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)


def body(table: str, epoch: object, seq: int, etype: str, data: dict[str, Any],
         hand: int | None = None, at: datetime = T0) -> dict[str, Any]:
    """One events envelope as JSON."""
    return {"v": 1, "table": table, "epoch": epoch, "seq": seq, "type": etype,
            "ts": (at + timedelta(seconds=seq)).isoformat().replace("+00:00", "Z"),
            "hand": hand, "data": data}


def holdem_hand(number: int, *, a: tuple[str, str] = ("Ah", "Ad"),
                b: tuple[str, str] = ("Kc", "Kd"),
                board: tuple[str, ...] = ("Ac", "Ks", "Kh", "2d", "7c"),
                players: int = 4) -> list[tuple[str, dict[str, Any]]]:
    """``(type, data)`` of one hold'em hand: seat 1 (``a``) and seat 2 (``b``) go to a
    showdown that seat 2 wins; the other players fold preflop."""
    seats = [{"seat": s, "name": f"P{s}", "stack": 1000} for s in range(1, players + 1)]
    out: list[tuple[str, dict[str, Any]]] = [
        ("hand_started", {"hand": {"id": f"t-{number:06d}", "number": number}, "button": 1,
                          "seats": seats}),
        ("forced_bet", {"seat": 1, "kind": "small_blind", "amount": 50, "all_in": False}),
        ("forced_bet", {"seat": 2, "kind": "big_blind", "amount": 100, "all_in": False}),
    ]
    for s in range(1, players + 1):
        out.append(("cards_dealt", {"seat": s, "count": 1, "up": [], "street": "preflop"}))
    for s in range(3, players + 1):
        out.append(("action", {"seat": s, "kind": "fold", "amount": 0, "to": 0,
                               "all_in": False, "stack": 1000}))
    out += [
        ("action", {"seat": 1, "kind": "call", "amount": 50, "to": 100, "all_in": False,
                    "stack": 900}),
        ("action", {"seat": 2, "kind": "check", "amount": 0, "to": 100, "all_in": False,
                    "stack": 900}),
        ("pot", {"pots": [{"amount": 200, "eligible": [1, 2]}], "street": "preflop"}),
        ("board", {"cards": list(board[:3]), "street": "flop"}),
        ("action", {"seat": 1, "kind": "bet", "amount": 100, "to": 100, "all_in": False,
                    "stack": 800}),
        ("action", {"seat": 2, "kind": "call", "amount": 100, "to": 100, "all_in": False,
                    "stack": 800}),
        ("pot", {"pots": [{"amount": 400, "eligible": [1, 2]}], "street": "flop"}),
        ("board", {"cards": list(board[:4]), "street": "turn"}),
        ("board", {"cards": list(board), "street": "river"}),
        ("showdown", {"seat": 1, "cards": list(a), "best": ["Ah", "Ad", "Ac", "Ks", "Kh"],
                      "high": "Full house, aces full of kings", "low": None}),
        ("showdown", {"seat": 2, "cards": list(b), "best": ["Kc", "Kd", "Ks", "Kh", "Ac"],
                      "high": "Four of a kind, kings", "low": None}),
        ("winner", {"pot": 0, "seat": 2, "amount": 400, "half": "whole",
                    "description": "Four of a kind, kings"}),
        ("hand_ended", {"hand": {"id": f"t-{number:06d}", "number": number},
                        "result": "settled",
                        "stacks": [{"seat": 1, "stack": 800}, {"seat": 2, "stack": 1200}],
                        "rake": 0}),
    ]
    return out


def stream(table: str, epoch: object, hands: int, *, first_hand: int = 1, seq0: int = 0,
           **kw: Any) -> list[dict[str, Any]]:
    """Envelopes of ``hands`` hands in a row on one (table, epoch), seq from ``seq0 + 1``."""
    out = []
    seq = seq0
    for i in range(hands):
        number = first_hand + i
        for etype, data in holdem_hand(number, **kw):
            seq += 1
            out.append(body(table, epoch, seq, etype, data, hand=number))
    return out


def events_of(bodies: list[dict[str, Any]]) -> list[FloorEvent]:
    """Parsed, as the service parses messages."""
    return [decode_event(json.dumps(b).encode(), b["table"]) for b in bodies]


def snapshot(table: str, epoch: object, seq: int, game: str = "holdem",
             stakes: dict[str, object] | None = None,
             table_name: str | None = None) -> FloorSnapshot:
    """A snapshot that names the table's game and stakes (50/100 chips unless given), and
    the table's name when given."""
    named = {"table_name": table_name} if table_name is not None else {}
    return decode_snapshot(json.dumps({
        "v": 1, "table": table, "epoch": epoch, "seq": seq, "type": "snapshot",
        "ts": T0.isoformat(), "hand": None,
        "data": {"game": {"variant": game, "structure": "no-limit", "preset": "casino",
                          "label": "No-Limit Hold'em"},
                 "stakes": stakes or {"small_blind": 50, "big_blind": 100},
                 **named}}).encode(), table)
