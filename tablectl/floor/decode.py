"""The floor's one decoder of what it takes from the broker: events, snapshots, replay replies.

Every payload goes through :func:`~tablectl.domain.strictjson.decode_strict` first (size
before parsing, no NaN/Infinity, bounded depth, integers a browser and PostgreSQL hold,
bounded strings without control characters such as the NUL that PostgreSQL text refuses),
then through a typed check of each field the floor uses (docs/mqtt.md §2.1 and §8.1): the
envelope's ``epoch``, ``seq``, ``hand``, ``ts``, and per event type the seats (1..10), amounts
(non-negative), cards, ``seats`` / ``stacks`` / ``pots`` lists of the right shape. Fields the
floor does not use are left alone (a daemon may add one), but they passed the strict JSON
checks, so whatever is kept in a ``jsonb`` column can be kept.

The table is the topic's (``poker/v1/tables/{t}/events``): a payload that names another
table is refused, so one table's bridge user cannot write another table's history.

Anything refused raises :class:`~tablectl.floor.model.FloorInputError` with where and why;
nothing else escapes (the fuzz test in ``tests/floor/test_decode_fuzz.py`` holds it to that).
Sans-IO: bytes in, values out.

>>> ev = decode_event(b'{"v":1,"table":"t1","epoch":2,"seq":7,"type":"board",'
...                   b'"ts":"2026-12-01T20:00:00Z","hand":3,'
...                   b'"data":{"cards":["2c","7d","Jh"],"street":"flop"}}', "t1")
>>> ev.key, ev.hand
(('t1', '2', 7), 3)
>>> decode_event(b'{"v":1,"table":"t2","epoch":2,"seq":7,"type":"board",'
...              b'"ts":"2026-12-01T20:00:00Z","data":{}}', "t1")
Traceback (most recent call last):
...
tablectl.floor.model.FloorInputError: event: table 't2' in a message on the topic of table 't1'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, Final

from tablectl.domain.strictjson import JsonLimits, StrictJsonError, decode_object
from tablectl.floor.model import FloorEvent, FloorInputError, FloorSnapshot, epoch_text

EVENT_LIMITS: Final = JsonLimits(max_bytes=64 * 1024)
"""One event (a ``hand_started`` of ten seats is under 2 KB)."""
SNAPSHOT_LIMITS: Final = JsonLimits(max_bytes=256 * 1024)
"""One retained snapshot (ten seats, their cards, pots, legal actions, errors)."""
REPLY_LIMITS: Final = JsonLimits(max_bytes=4 * 1024 * 1024, max_items=2048)
"""One replay reply: up to 2,000 events (``MAX_REPLAY`` in tablectl/floor/gaps.py)."""

MAX_SEATS: Final = 10
"""Seats are 1..10 (docs/mqtt.md §8)."""
MAX_INT4: Final = 2**31 - 1
"""PostgreSQL ``integer`` (a hand's number, a winner's pot index)."""
MAX_CHIPS: Final = 2**53 - 1
"""Chips: what a browser's Number and PostgreSQL's bigint both hold."""

_TOPIC: Final = re.compile(r"^poker/v1/tables/([A-Za-z0-9][A-Za-z0-9_.\-]{0,63})/(events|state)$")
_CARD: Final = re.compile(r"^[2-9TJQKA][cdhs]$")
_WORD: Final = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
_JOURNAL: Final = re.compile(r"^[A-Za-z0-9_\-]{1,64}$")
_EPOCH: Final = re.compile(r"^[A-Za-z0-9_.\-]{1,64}$")
_HALVES: Final = ("high", "low", "whole")
MAX_RUNS: Final = 3
"""A hand is run at most three times (docs/rules.md, "Run it twice")."""
MAX_BOARDS: Final = 2
"""A double board: two boards (docs/rules.md, "Double board")."""


def topic_table(topic: str) -> str:
    """The table of an ``events`` or ``state`` topic.

    >>> topic_table("poker/v1/tables/t07/events")
    't07'

    Raises:
        FloorInputError: not such a topic.
    """
    match = _TOPIC.fullmatch(topic)
    if match is None:
        raise FloorInputError(f"topic {topic[:120]!r} is not a table's events or state")
    return match.group(1)


def _object(raw: bytes, what: str, limits: JsonLimits) -> dict[str, Any]:
    try:
        return decode_object(raw, limits)
    except StrictJsonError as exc:
        raise FloorInputError(f"{what}: {exc}") from None


def _int(body: Mapping[str, Any], key: str, where: str, *, low: int, high: int = MAX_CHIPS,
         null: bool = False) -> int | None:
    value = body.get(key)
    if value is None and null:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise FloorInputError(f"{where}.{key}: must be an integer {low}..{high}"
                              f"{' or null' if null else ''}, not {_show(value)}")
    return value


def _req(body: Mapping[str, Any], key: str, where: str, *, low: int,
         high: int = MAX_CHIPS) -> int:
    value = _int(body, key, where, low=low, high=high)
    assert value is not None
    return value


def _opt(check: Callable[[Mapping[str, Any], str, str], object]
         ) -> Callable[[Mapping[str, Any], str, str], object]:
    """``check`` of a field that may be absent."""
    def run(body: Mapping[str, Any], key: str, where: str) -> object:
        return None if key not in body else check(body, key, where)
    return run


def _seat(body: Mapping[str, Any], key: str, where: str) -> object:
    return _int(body, key, where, low=1, high=MAX_SEATS)


def _chips(body: Mapping[str, Any], key: str, where: str) -> object:
    return _int(body, key, where, low=0)


def _word(body: Mapping[str, Any], key: str, where: str) -> object:
    value = body.get(key)
    if not isinstance(value, str) or not _WORD.fullmatch(value):
        raise FloorInputError(f"{where}.{key}: must be a lower-case word, not {_show(value)}")
    return value


def _text(body: Mapping[str, Any], key: str, where: str) -> object:
    value = body.get(key)
    if value is not None and not isinstance(value, str):
        raise FloorInputError(f"{where}.{key}: must be a string or null, not {_show(value)}")
    return value


def _bool(body: Mapping[str, Any], key: str, where: str) -> object:
    value = body.get(key)
    if not isinstance(value, bool):
        raise FloorInputError(f"{where}.{key}: must be true or false, not {_show(value)}")
    return value


def _cards(body: Mapping[str, Any], key: str, where: str, *, most: int,
           hidden: bool = False) -> None:
    value = body.get(key)
    if not isinstance(value, list) or len(value) > most:
        raise FloorInputError(f"{where}.{key}: must be a list of at most {most} cards, not "
                              f"{_show(value)}")
    for i, card in enumerate(value):
        if card is None and hidden:
            continue
        if not isinstance(card, str) or not _CARD.fullmatch(card):
            raise FloorInputError(f"{where}.{key}[{i}]: not a card: {_show(card)}")


def _list(body: Mapping[str, Any], key: str, where: str, *, most: int
          ) -> list[dict[str, Any]]:
    value = body.get(key)
    if not isinstance(value, list) or len(value) > most:
        raise FloorInputError(f"{where}.{key}: must be a list of at most {most} objects, "
                              f"not {_show(value)}")
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            raise FloorInputError(f"{where}.{key}[{i}]: must be an object, not {_show(item)}")
    return value


def _hand_ref(data: Mapping[str, Any], where: str) -> None:
    ref = data.get("hand")
    if ref is None:
        return
    if not isinstance(ref, dict):
        raise FloorInputError(f"{where}.hand: must be an object, not {_show(ref)}")
    if "id" in ref and not isinstance(ref["id"], str):
        raise FloorInputError(f"{where}.hand.id: must be a string, not {_show(ref['id'])}")
    if "number" in ref:
        _int(ref, "number", f"{where}.hand", low=0, high=MAX_INT4)


def _boards(data: Mapping[str, Any], where: str) -> None:
    """``run`` (a hand run more than once) and ``board`` (a double board): which board an
    event is about (docs/mqtt.md §8.1)."""
    if "run" in data:
        _int(data, "run", where, low=1, high=MAX_RUNS)
    if "board" in data:
        _int(data, "board", where, low=1, high=MAX_BOARDS)


def _check_data(etype: str, data: Mapping[str, Any], where: str) -> None:
    """The typed check of the fields :mod:`tablectl.floor.fold` reads of each event type."""
    if etype == "hand_started":
        _hand_ref(data, where)
        _int(data, "button", where, low=1, high=MAX_SEATS, null=True)
        for i, seat in enumerate(_list(data, "seats", where, most=MAX_SEATS)):
            _seat(seat, "seat", f"{where}.seats[{i}]")
            _opt(_chips)(seat, "stack", f"{where}.seats[{i}]")
            _opt(_text)(seat, "name", f"{where}.seats[{i}]")
            _opt(_text)(seat, "player", f"{where}.seats[{i}]")
        _opt(_chips)(data, "bomb", where)
        _opt(_bool)(data, "double_board", where)
    elif etype in ("action", "forced_bet", "bet_returned"):
        _seat(data, "seat", where)
        _chips(data, "amount", where)
        if etype != "bet_returned":
            _word(data, "kind", where)
            _opt(_bool)(data, "all_in", where)
        if "to" in data:
            _int(data, "to", where, low=0, null=True)
        _opt(_chips)(data, "stack", where)
    elif etype == "cards_dealt":
        _opt(_seat)(data, "seat", where)
        _opt(_word)(data, "street", where)
        if "up" in data:
            _cards(data, "up", where, most=8)
    elif etype == "board":
        _cards(data, "cards", where, most=8, hidden=True)
        _opt(_word)(data, "street", where)
        _boards(data, where)
    elif etype == "runs":
        _int(data, "count", where, low=2, high=MAX_RUNS)
    elif etype == "pot":
        for i, pot in enumerate(_list(data, "pots", where, most=MAX_SEATS)):
            _chips(pot, "amount", f"{where}.pots[{i}]")
            eligible = pot.get("eligible", [])
            if not isinstance(eligible, list) or len(eligible) > MAX_SEATS or any(
                    isinstance(s, bool) or not isinstance(s, int) or not 1 <= s <= MAX_SEATS
                    for s in eligible):
                raise FloorInputError(f"{where}.pots[{i}].eligible: must be a list of seats, "
                                      f"not {_show(eligible)}")
        _opt(_word)(data, "street", where)
    elif etype in ("showdown", "face_up"):
        _seat(data, "seat", where)
        _cards(data, "cards", where, most=8)
        if etype == "showdown":
            _cards(data, "best", where, most=5)
            _text(data, "high", where)
            _text(data, "low", where)
            _boards(data, where)
    elif etype == "winner":
        _int(data, "pot", where, low=0, high=MAX_INT4)
        _seat(data, "seat", where)
        _chips(data, "amount", where)
        if data.get("half", "whole") not in _HALVES:
            raise FloorInputError(f"{where}.half: must be one of {', '.join(_HALVES)}, not "
                                  f"{_show(data.get('half'))}")
        _text(data, "description", where)
        _boards(data, where)
    elif etype == "hand_ended":
        _hand_ref(data, where)
        _opt(_word)(data, "result", where)
        for i, stack in enumerate(_list(data, "stacks", where, most=MAX_SEATS)):
            _seat(stack, "seat", f"{where}.stacks[{i}]")
            _chips(stack, "stack", f"{where}.stacks[{i}]")
        _opt(_chips)(data, "rake", where)
    elif etype == "correction":
        _word(data, "kind", where)


def _time(body: Mapping[str, Any], what: str) -> datetime:
    value = body.get("ts")
    if not isinstance(value, str) or len(value) > 40:
        raise FloorInputError(f"{what}.ts: must be an ISO time, not {_show(value)}")
    try:
        stamp = datetime.fromisoformat(value)
    except ValueError:
        raise FloorInputError(f"{what}.ts: not an ISO time: {_show(value)}") from None
    if stamp.tzinfo is None:
        raise FloorInputError(f"{what}.ts: has no time zone: {_show(value)}")
    return stamp


def _run(body: Mapping[str, Any], what: str, journal: str | None = None) -> str:
    """The envelope's run as the floor stores it (``journal:epoch``, see ``epoch_text``)."""
    epoch = body.get("epoch")
    if isinstance(epoch, str):
        if not _EPOCH.fullmatch(epoch):
            raise FloorInputError(f"{what}.epoch: must be a number >= 1 or a short word, not "
                                  f"{_show(epoch)}")
    else:
        _int(body, "epoch", what, low=1)
    name = body.get("journal", journal)
    if name is not None and (not isinstance(name, str) or not _JOURNAL.fullmatch(name)):
        raise FloorInputError(f"{what}.journal: must be a journal id (letters, digits), not "
                              f"{_show(name)}")
    return epoch_text(epoch, name)


def _table(body: Mapping[str, Any], table: str, what: str) -> None:
    name = body.get("table", table)
    if name != table:
        raise FloorInputError(f"{what}: table {_show(name)} in a message on the topic of "
                              f"table {table!r}")


def event_from_body(body: Mapping[str, Any], table: str, *, journal: str | None = None,
                    what: str = "event") -> FloorEvent:
    """An event from its envelope, already strictly decoded (``journal`` fills in for a
    replayed event, whose reply names it once).

    Raises:
        FloorInputError: a field the floor uses is missing, of the wrong type or range, or
            the envelope names another table.
    """
    _table(body, table, what)
    etype = body.get("type")
    if not isinstance(etype, str) or not _WORD.fullmatch(etype):
        raise FloorInputError(f"{what}.type: must be an event type, not {_show(etype)}")
    data = body.get("data", {})
    if not isinstance(data, dict):
        raise FloorInputError(f"{what}.data: must be an object, not {_show(data)}")
    _check_data(etype, data, f"{what}.data")
    return FloorEvent(table=table, epoch=_run(body, what, journal),
                      seq=_req(body, "seq", what, low=1), type=etype, ts=_time(body, what),
                      hand=_int(body, "hand", what, low=0, null=True), data=data)


def decode_event(raw: bytes, table: str) -> FloorEvent:
    """An ``events`` message of ``table``'s topic.

    Raises:
        FloorInputError: see :func:`event_from_body`, or not strict JSON.
    """
    return event_from_body(_object(raw, "event", EVENT_LIMITS), table)


def decode_snapshot(raw: bytes, table: str) -> FloorSnapshot:
    """A ``state`` message of ``table``'s topic (its ``data`` is kept as it came, after the
    strict JSON checks; only ``game`` and ``stakes`` are read, and must be objects).

    Raises:
        FloorInputError: not strict JSON, another table, or a field of the wrong type.
    """
    what = "snapshot"
    body = _object(raw, what, SNAPSHOT_LIMITS)
    _table(body, table, what)
    data = body.get("data", {})
    if not isinstance(data, dict):
        raise FloorInputError(f"{what}.data: must be an object, not {_show(data)}")
    for key in ("game", "stakes"):
        if data.get(key) is not None and not isinstance(data[key], dict):
            raise FloorInputError(f"{what}.data.{key}: must be an object, not "
                                  f"{_show(data[key])}")
    return FloorSnapshot(table=table, epoch=_run(body, what),
                         seq=_req(body, "seq", what, low=0), ts=_time(body, what), data=data)


def decode_reply(raw: bytes) -> dict[str, Any]:
    """A replay reply's JSON object (its events are checked by :func:`event_from_body`).

    Raises:
        FloorInputError: not strict JSON or not an object.
    """
    return _object(raw, "reply", REPLY_LIMITS)


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


__all__ = ["EVENT_LIMITS", "MAX_CHIPS", "MAX_INT4", "MAX_SEATS", "REPLY_LIMITS",
           "SNAPSHOT_LIMITS", "decode_event", "decode_reply", "decode_snapshot",
           "event_from_body", "topic_table"]
