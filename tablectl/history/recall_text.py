"""``tablectl recall`` for a person: each step one line in words, cards by name, not UIDs.

The JSON view (``--json``) keeps everything as journaled; this one says what happened:

    #12 18:04:05.120 dealer-t01 action: p2 raise to 400 -> ok
          action: seat 2 raise 400 (to 400, stack 1600)
    #13 18:04:06.002 shoe card_read: 04A1B2C3 = As

A tag UID is shown with the card it is in the registered decks (when the config's decks are
at hand); a refused command shows its code and reason from the journaled decision.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from tablectl.domain.jsonvalue import JsonValue
from tablectl.history.recall import RecalledHand, Step
from tablectl.journal import ErrorRecord

_HIDDEN = frozenset({"type", "at", "name", "user", "id", "sent_at", "read_id", "uid"})


_DEFAULTS: Mapping[str, object] = {"status": "accepted", "confidence": 1.0, "all_in": False}
"""field values not worth a word (what nearly every read and action says)"""


def _value(value: object) -> str:
    if isinstance(value, list):
        sep = "; " if any(isinstance(v, Mapping) for v in value) else " "
        return "[" + sep.join(_value(v) for v in value) + "]" if value else "-"
    if isinstance(value, Mapping):
        if set(value) == {"id", "number"}:                 # a hand reference
            return str(value["id"])
        return ", ".join(f"{k.replace('_', ' ')} {_value(v)}" for k, v in value.items())
    if value is None:
        return "-"
    return str(value).replace("_", " ") if isinstance(value, str) else str(value)


def _fields(data: Mapping[str, JsonValue], hidden: Iterable[str] = _HIDDEN) -> str:
    skip = set(hidden)
    return ", ".join(f"{k.replace('_', ' ')} {_value(v)}" for k, v in data.items()
                     if k not in skip and v not in (None, "", [], {})
                     and not (k in _DEFAULTS and _DEFAULTS[k] == v))


def step_lines(step: Step, cards: Mapping[str, str]) -> list[str]:
    """One step: the input's line, then one indented line per event."""
    rec = step.input
    head = f"#{rec.seq} {rec.at:%H:%M:%S.%f}"[:-3] + f" {rec.actor or rec.source} {step.what}"
    payload = rec.payload
    uid = payload.get("uid")
    args = payload.get("args")
    what = _fields(args if rec.kind == "command" and isinstance(args, Mapping) else
                   {k: v for k, v in payload.items() if k != "source"})
    if isinstance(uid, str):
        card = cards.get(uid.upper(), payload.get("card"))
        what = f"{uid} = {card or 'unknown tag'}" + (f", {what}" if what else "")
    if rec.kind == "config":
        what = "the config in force from here on"
    line = f"{head}: {what}" if what else head
    decision = rec.decision
    if decision is not None and decision.get("applied") is False:
        if decision.get("repeat"):
            line += " -> repeated id: the first reply again"
        else:
            line += f" -> refused {decision.get('code')}: {decision.get('reason')}"
    elif decision is not None and rec.kind == "command":
        line += " -> ok"
    out = [line]
    out += [f"      -> {event.type}: {_fields(event.payload, ('hand',))}"
            for event in step.events]
    return out


def recall_lines(hands: Iterable[RecalledHand], errors: Iterable[ErrorRecord],
                 cards: Mapping[str, str]) -> list[str]:
    """The whole readable view: active errors, then each hand and its steps."""
    out = []
    for err in errors:
        message = err.detail.get("message", "")
        out.append(f"ACTIVE ERROR {err.code} since {err.raised_at:%Y-%m-%d %H:%M:%S}: "
                   f"{message}")
    for hand in hands:
        ended = f"{hand.ended_at:%H:%M:%S}" if hand.ended_at else "in progress"
        out.append(f"hand {hand.name or hand.id} (#{hand.number}, journal hand {hand.id}, "
                   f"epoch {hand.epoch}): {hand.started_at:%Y-%m-%d %H:%M:%S} - {ended}"
                   + (f", {hand.result}" if hand.result else ""))
        for step in hand.steps:
            out += ["  " + line for line in step_lines(step, cards)]
    return out
