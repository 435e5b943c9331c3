"""The console's "Recall last hands": the daemon's ``recall`` reply as the lines of
``tablectl recall``.

The daemon answers ``recall`` with each hand in its public view
(:func:`tablectl.history.public_view.public_hand`: no tag UID, no card that was not shown).
This module turns that JSON back into the journal's records and hands them to
:func:`tablectl.history.recall_text.recall_lines`, the CLI's own formatter, so the console
reads exactly as ``tablectl recall`` does (cards already redacted by the daemon read
``hidden``). The reply came over the network: a hand that is not in that shape becomes one
line saying so, never an exception.

>>> recall_text([{"hand": 1, "number": 1, "name": "t1-000001", "epoch": 1,
...     "started_at": "2026-12-02T18:04:05+00:00", "ended_at": None, "result": None,
...     "steps": [{"seq": 12, "at": "2026-12-02T18:04:05.120000+00:00", "source": "mqtt",
...                "actor": "console-t1", "kind": "command", "what": "action",
...                "input": {"type": "command", "name": "action",
...                          "args": {"seat": 2, "kind": "call"}},
...                "events": [{"topic": "poker/v1/tables/t1/events", "seq": 40,
...                            "type": "action", "at": "2026-12-02T18:04:05.121000+00:00",
...                            "data": {"seat": 2, "kind": "call", "amount": 100}}]}]}])
['hand t1-000001 (#1, journal hand 1, epoch 1): 2026-12-02 18:04:05 - in progress', \
'  #12 18:04:05.120 console-t1 action: seat 2, kind call', \
'        -> action: seat 2, kind call, amount 100']
>>> recall_text([{"hand": "x"}]), recall_text(None)
(['(a hand of the reply was not understood)'], [])
"""

from __future__ import annotations

from datetime import datetime
from typing import Final

from tablectl.history.recall import RecalledHand, Step
from tablectl.history.recall_text import recall_lines
from tablectl.journal import EventRecord, JournalRecord

NOT_UNDERSTOOD: Final = "(a hand of the reply was not understood)"


def _object(value: object) -> dict[str, object]:
    if not isinstance(value, dict):
        raise TypeError("not an object")
    return value


def _int(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError("not an integer")
    return value


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError("not a string")
    return value


def _time(value: object) -> datetime:
    return datetime.fromisoformat(_str(value))


def _step(data: dict[str, object], epoch: int, hand: int) -> Step:
    events = data.get("events")
    actor = data.get("actor")
    decision = data.get("decision")
    record = JournalRecord(
        seq=_int(data.get("seq")), epoch=epoch, at=_time(data.get("at")),
        source=_str(data.get("source")), kind=_str(data.get("kind")),
        payload=_object(data.get("input")),  # type: ignore[arg-type]
        actor=actor if isinstance(actor, str) else None, hand_id=hand,
        decision=_object(decision) if decision is not None else None)  # type: ignore[arg-type]
    out = []
    for raw in events if isinstance(events, list) else []:
        ev = _object(raw)
        out.append(EventRecord(
            id=0, epoch=epoch, seq=_int(ev.get("seq")), topic=_str(ev.get("topic")),
            type=_str(ev.get("type")), payload=_object(ev.get("data")),  # type: ignore[arg-type]
            hand_id=hand, created_at=_time(ev.get("at")), published_at=None))
    return Step(record, tuple(out))


def _hand(data: dict[str, object]) -> RecalledHand:
    hand, epoch = _int(data.get("hand")), _int(data.get("epoch"))
    ended, result, name = data.get("ended_at"), data.get("result"), data.get("name")
    steps = data.get("steps")
    return RecalledHand(
        id=hand, number=_int(data.get("number")), epoch=epoch,
        started_at=_time(data.get("started_at")),
        ended_at=_time(ended) if ended is not None else None,
        result=result if isinstance(result, str) else None,
        name=name if isinstance(name, str) else None,
        steps=tuple(_step(_object(s), epoch, hand)
                    for s in (steps if isinstance(steps, list) else [])))


def recall_text(hands: object) -> list[str]:
    """The lines ``tablectl recall`` prints for the hands of a ``recall`` reply (its
    ``hands``: newest first, as the daemon sends them); [] for anything but a list."""
    out: list[str] = []
    for raw in hands if isinstance(hands, list) else []:
        try:
            hand = _hand(_object(raw))
        except (TypeError, ValueError):
            out.append(NOT_UNDERSTOOD)
            continue
        out += recall_lines([hand], [], {})
    return out
