"""The public view of a recalled hand: what any role may see of it (docs/security.md §6).

The journal keeps every input as it came: a shoe read with its tag UID and card, a
``manual_card`` with the card the dealer typed, a refused ``action show`` with the cards it
named. A role (display, dealer, floor, keypad, the web console) gets a recall through this
module only, and sees of a hand:

* the cards its public events showed: the board, up cards, hands turned face up and hands
  shown down (:func:`public_cards`); every other card of the hand, hole cards, burns, folded
  and mucked hands, cards typed or read and then refused, is ``"hidden"`` for ever;
* no tag UID, ever (a read keeps its kind, source, antenna, place and read id);
* of a ``config`` input only that the config changed (its decks map every UID to a card);
* of an input kind this module does not know, only its type.

:func:`public_input` is the one place a journaled input becomes what a role sees: a pure
function of the input and the cards public at that point. The operator's ``tablectl recall``
on the table computer reads the journal itself and shows it whole (it can read every card in
the journal file anyway).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Set
from typing import Final

from tablectl.domain.cards import Card, CardParseError
from tablectl.domain.jsonvalue import JsonValue
from tablectl.history.recall import SECURE_ROOT, RecalledHand, Step
from tablectl.journal import EventRecord

HIDDEN: Final = "hidden"
"""What a card nobody may see yet (or ever) reads as in the public view."""

TAG: Final = "(tag)"
"""What a tag UID inside a text reads as in the public view."""

_SHOWN_BY: Final[Mapping[str, tuple[str, ...]]] = {
    "board": ("cards",), "cards_dealt": ("up",), "face_up": ("cards",),
    "showdown": ("cards", "best"), "runs": ("board",)}
"""Public event types and the fields with which they show cards on purpose."""

_KEEP: Final[Mapping[str, frozenset[str]]] = {
    "card_read": frozenset({"type", "source", "antenna", "location", "read_id", "status",
                            "confidence", "at"}),
    "tag_left": frozenset({"type", "source", "antenna", "location", "at"}),
    "command": frozenset({"type", "name", "user", "id", "at", "sent_at"}),
    "device_status": frozenset({"type", "source", "online", "kind", "at"}),
    "read_missed": frozenset({"type", "source", "antenna", "at"}),
    "config": frozenset({"type", "at"}),
}
"""Input kind -> the payload fields shown as journaled (everything else is dropped or, for
the fields named below, shown redacted)."""

_CARD_IN_TEXT: Final = re.compile(r"(?<![A-Za-z0-9])(?:10|[2-9TJQKA])[cdhs](?![A-Za-z0-9])")
_UID_IN_TEXT: Final = re.compile(
    r"(?i)(?<=tag )[0-9a-f]{8,}|(?<![0-9A-Za-z])(?:[0-9A-Fa-f]{14}|[0-9A-Fa-f]{20})"
    r"(?![0-9A-Za-z])")


def public_cards(events: Iterable[EventRecord]) -> frozenset[str]:
    """The cards a hand's public events showed (``"As"``): its board, its up cards, the hands
    turned face up and the hands shown down. Events on the secure root show nothing here."""
    shown: set[str] = set()
    for event in events:
        if event.topic.startswith(SECURE_ROOT):
            continue
        for key in _SHOWN_BY.get(event.type, ()):
            value = event.payload.get(key)
            if isinstance(value, list):
                shown.update(_card_text(v) or "" for v in value if isinstance(v, str))
    shown.discard("")
    return frozenset(shown)


def public_card(value: JsonValue, public: Set[str]) -> JsonValue:
    """A journaled card as the public view shows it: the card if public, else ``"hidden"``
    (None stays None: a card nobody read).

    >>> public_card("As", {"As"}), public_card("as", set()), public_card(None, set())
    ('As', 'hidden', None)
    """
    if value is None:
        return None
    text = _card_text(value) if isinstance(value, str) else None
    return text if text is not None and text in public else HIDDEN


def public_text(text: str, public: Set[str]) -> str:
    """``text`` with every tag UID and every card it names that is not public replaced: a
    whole string that is a card (in any spelling), cards spelt as the controller spells them
    inside a text (``"As"``, ``"10h"``), UIDs after ``tag`` or of an NFC length (14 or 20 hex
    digits).

    >>> public_text("tag 04A1B2C3D4E5F6 is As", {"Kd"})
    'tag (tag) is hidden'
    >>> public_text("kd", {"Kd"}), public_text("as agreed", set())
    ('Kd', 'as agreed')
    """
    whole = _card_text(text)
    if whole is not None:
        return whole if whole in public else HIDDEN
    text = _UID_IN_TEXT.sub(TAG, text)
    return _CARD_IN_TEXT.sub(lambda m: m.group(0) if _card_text(m.group(0)) in public
                             else HIDDEN, text)


def public_json(value: JsonValue, public: Set[str]) -> JsonValue:
    """A JSON value with :func:`public_text` applied to every string in it (keys too)."""
    if isinstance(value, str):
        return public_text(value, public)
    if isinstance(value, list):
        return [public_json(v, public) for v in value]
    if isinstance(value, dict):
        return {public_text(k, public): public_json(v, public) for k, v in value.items()}
    return value


def without_uids(value: JsonValue) -> JsonValue:
    """A JSON value with every tag UID in its strings replaced (cards left as they are: for
    public events, which show only public cards but may name a tag in an error message
    journaled by an older version).

    >>> without_uids({"message": "tag 04a1b2c3 is in no registered deck", "cards": ["As"]})
    {'message': 'tag (tag) is in no registered deck', 'cards': ['As']}
    """
    if isinstance(value, str):
        return _UID_IN_TEXT.sub(TAG, value)
    if isinstance(value, list):
        return [without_uids(v) for v in value]
    if isinstance(value, dict):
        return {_UID_IN_TEXT.sub(TAG, k): without_uids(v) for k, v in value.items()}
    return value


def public_input(kind: str, payload: Mapping[str, JsonValue],
                 public: Set[str]) -> dict[str, JsonValue]:
    """What a role sees of one journaled input (the module docstring says what).

    Args:
        kind: the input's kind as journaled (``card_read``, ``command``...).
        payload: the input as journaled.
        public: the cards public at this point (:func:`public_cards` of the hand's events).

    >>> public_input("card_read", {"type": "card_read", "uid": "04A1", "card": "As",
    ...                            "source": "shoe", "antenna": 0}, set())
    {'type': 'card_read', 'source': 'shoe', 'antenna': 0, 'card': 'hidden'}
    >>> public_input("command", {"type": "command", "name": "manual_card",
    ...     "args": {"card": "As", "seat": 3}}, set())["args"]
    {'card': 'hidden', 'seat': 3}
    """
    keep = _KEEP.get(kind, frozenset({"type"}))
    out: dict[str, JsonValue] = {k: v for k, v in payload.items() if k in keep}
    if kind == "card_read" and "card" in payload:
        out["card"] = public_card(payload["card"], public)
    elif kind == "command":
        args = payload.get("args")
        out["args"] = public_json(args, public) if isinstance(args, dict) else {}
    elif kind == "read_missed":
        reason = payload.get("reason")
        out["reason"] = public_text(reason, public) if isinstance(reason, str) else None
    return out


def public_event(event: EventRecord, public: Set[str]) -> dict[str, JsonValue]:
    """A public event of a recalled hand as the public view shows it: as published, but for
    any tag UID or hidden card in a text (an error message journaled by an older version)."""
    data = public_json(dict(event.payload), public)
    return {"topic": event.topic, "seq": event.seq, "type": event.type,
            "at": event.created_at.isoformat(),
            "data": data if isinstance(data, dict) else {}}


def public_step(step: Step, public: Set[str]) -> dict[str, JsonValue]:
    """One step of :meth:`Step.to_json` in its public view (secure events left out)."""
    rec = step.input
    events: list[JsonValue] = [public_event(e, public) for e in step.events
                               if not e.topic.startswith(SECURE_ROOT)]
    return {"seq": rec.seq, "at": rec.at.isoformat(), "source": rec.source,
            "actor": rec.actor, "kind": rec.kind, "what": step.what,
            "input": public_input(rec.kind, rec.payload, public), "events": events,
            "decision": public_decision(rec.decision, public)}


def public_decision(decision: Mapping[str, JsonValue] | None,
                    public: Set[str]) -> dict[str, JsonValue] | None:
    """What was decided about an input, as a role sees it: whether it was applied, or refused
    with which code and reason (the reason through :func:`public_text`), or answered as a
    repeat; None when nothing was journaled (a decision states no card a reason does not).

    >>> public_decision({"applied": False, "code": "duplicate_card", "reason": "As twice",
    ...                  "reply": {"x": 1}}, set())
    {'applied': False, 'code': 'duplicate_card', 'reason': 'hidden twice'}
    """
    if decision is None:
        return None
    out: dict[str, JsonValue] = {}
    for key in ("applied", "repeat", "code"):
        value = decision.get(key)
        if isinstance(value, bool | str):
            out[key] = value
    reason = decision.get("reason")
    if isinstance(reason, str):
        out["reason"] = public_text(reason, public)
    return out


def public_hand(hand: RecalledHand) -> dict[str, JsonValue]:
    """A recalled hand as any role may see it: :meth:`RecalledHand.to_json`'s shape, each
    step in its public view against the cards the hand's public events showed."""
    public = public_cards(e for s in hand.steps for e in s.events)
    return {"hand": hand.id, "number": hand.number, "name": hand.name, "epoch": hand.epoch,
            "started_at": hand.started_at.isoformat(),
            "ended_at": hand.ended_at.isoformat() if hand.ended_at else None,
            "result": hand.result, "steps": [public_step(s, public) for s in hand.steps]}


def _card_text(text: str) -> str | None:
    try:
        return str(Card.parse(text))
    except CardParseError:
        return None


__all__ = ["HIDDEN", "TAG", "public_card", "public_cards", "public_event", "public_hand",
           "public_input", "public_json", "public_step", "public_text", "without_uids"]
