"""Judging a recorded session: hole-card leaks on ``poker/``, payloads against the JSON Schemas,
and the journal's finished hands exported as PHH and read back by PokerKit.

Each check returns a list of findings (empty: all good), so a worker process can run it and
hand back something small.
"""

from __future__ import annotations

import functools
import json
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from tablectl.app import table_setup
from tablectl.controller import payloads
from tablectl.domain.cards import Card
from tablectl.history.export import export_hand, finished_hands, open_readonly
from tablectl.odds import payload as odds_payload
from tablectl.publish import envelope
from tests.daemon_extra.session import Endpoint, PlayedHand, Session, run_session

CARD_TOKEN = re.compile(r"(?<![0-9A-Za-z])([2-9TJQKA][cdhs])(?![0-9A-Za-z])")
"""A card as it can appear in any text: rank and suit, not inside a longer word."""


# --- hole cards on poker/ ----------------------------------------------------------------------


@dataclass(frozen=True)
class Leak:
    """A hole card found in a public payload while it was still secret."""

    index: int
    topic: str
    card: str
    hand: int
    excerpt: str


def _never_shown(hand: PlayedHand) -> set[Card]:
    return {h.card for h in hand.holes if not h.up and h.seat not in hand.shown_at}


def scan_leaks(raw: list[tuple[str, bytes]], hands: Iterable[PlayedHand]) -> list[Leak]:
    """Every public payload that carries a secret hole card, in the order received.

    Each payload is judged for the hand it belongs to: an event by its envelope's hand (named
    by that hand's ``hand_started``), a snapshot by its ``data.hand.number``, anything else
    (replies, commands, status) by the hand the dealer is playing (the last ``start_hand``
    reply). Wire order alone does not say which hand a snapshot shows: when a dealer plays this
    fast the daemon's outbox lags the table by hands, while its snapshot shows the table now.

    Secret are the hand's down cards until the dealer's own engine showed their seat at the
    showdown (payload index ``shown_at[seat]`` and later: the daemon cannot have learned of the
    showdown earlier), and the never-shown down cards (folded, mucked, won uncontested) of the
    earlier hands of the same shoe. Up cards are public (nothing can publish a card before the
    shoe reads it).
    """
    by_number = {h.number: h for h in hands}
    carried: dict[int, set[str]] = {}
    per_shoe: dict[int, set[str]] = {}
    for n in sorted(by_number):
        hand = by_number[n]
        carried[n] = set(per_shoe.get(hand.shoe, set()))
        per_shoe.setdefault(hand.shoe, set()).update(str(c) for c in _never_shown(hand))
    journal_ids: dict[int, int] = {}
    live: int | None = None
    leaks = []
    for i, (topic, payload) in enumerate(raw):
        if not topic.startswith("poker/"):
            continue
        doc = json.loads(payload)
        number: int | None = live
        data = doc.get("data") if isinstance(doc.get("data"), dict) else {}
        if topic.endswith("/events"):
            if doc["type"] == "hand_started":
                journal_ids[doc["hand"]] = data["hand"]["number"]
            number = journal_ids.get(doc.get("hand"), live)
        elif topic.endswith("/state"):
            shown = data.get("hand")
            number = shown["number"] if isinstance(shown, dict) else live
        elif "/replies/" in topic:
            started = data.get("hand")
            if isinstance(started, dict) and isinstance(started.get("number"), int):
                live = number = started["number"]
        if number is None:
            continue
        played = by_number[number]
        secret = {str(h.card) for h in played.holes
                  if not h.up and i < played.shown_at.get(h.seat, len(raw))}
        secret |= carried[number]
        text = payload.decode("utf-8")
        for match in CARD_TOKEN.finditer(text):
            if match.group(1) in secret:
                at = match.start()
                leaks.append(Leak(i, topic, match.group(1), number,
                                  text[max(0, at - 60):at + 20]))
    return leaks


# --- JSON Schemas ------------------------------------------------------------------------------


@functools.cache
def _validators() -> dict[str, Draft202012Validator]:
    """A validator per checked-in schema file; for ``PublicEvent`` also one per event type
    (``PublicEvent:board``...): the ``oneOf`` branch its discriminator names, so an event is
    checked against its own type's schema without trying the thirteen others."""
    out = {}
    for directory in (payloads.SCHEMA_DIR, envelope.SCHEMA_DIR, odds_payload.SCHEMA_DIR):
        for path in sorted(directory.glob("*.json")):
            schema = json.loads(path.read_text())
            Draft202012Validator.check_schema(schema)
            out[path.stem] = Draft202012Validator(schema)
            mapping = schema.get("discriminator", {}).get("mapping", {})
            for type_, ref in mapping.items():
                assert {"$ref": ref} in schema["oneOf"], (path.name, type_)
                out[f"{path.stem}:{type_}"] = Draft202012Validator(
                    {"$defs": schema["$defs"], "$ref": ref})
            out.update(_part_validators(path.stem, schema))
    return out


def _part_validators(stem: str, schema: dict[str, Any]) -> dict[str, Draft202012Validator]:
    """For a snapshot schema, validators of its parts: ``PublicSnapshot:shell`` (the object's
    own keywords, every property allowed anything), ``PublicSnapshot:.hand`` (one property's
    value), and for a top-level array without length limits (``seats``, ``log``...) one item:
    ``PublicSnapshot:seats:``, and for items told apart by ``type`` (the action log) one per
    type (``PublicSnapshot:log:board``). An object is valid when its own keywords hold and each
    property's value is valid (an array when each item is), so checking the parts gives the
    whole document's verdict; but a part that repeats in snapshot after snapshot (a seat, a log
    entry, the stakes) is checked once, and no log entry tries the thirteen ``oneOf`` branches
    of the log again."""
    props = schema.get("properties")
    if not isinstance(props, dict) or "patternProperties" in schema:
        return {}
    defs = schema.get("$defs", {})
    out = {f"{stem}:shell": Draft202012Validator(
        {**schema, "properties": {key: {} for key in props}})}
    for prop, sub in props.items():
        out[f"{stem}:.{prop}"] = Draft202012Validator({"$defs": defs, **sub})
        array = sub if sub.get("type") == "array" else next(
            (a for a in sub.get("anyOf", ()) if a.get("type") == "array"), None)
        if array is None or "items" not in array or set(array) - {"type", "items", "title"}:
            continue
        items = array["items"]
        out[f"{stem}:{prop}:"] = Draft202012Validator({"$defs": defs, **items})
        for type_, ref in items.get("discriminator", {}).get("mapping", {}).items():
            out[f"{stem}:{prop}:{type_}"] = Draft202012Validator({"$defs": defs, "$ref": ref})
    return out


def _snapshot_errors(inner: str, data: dict[str, Any], validators: Mapping[str, Any],
                     errors: Callable[[str, object], list[Any]]) -> list[Any]:
    """The errors of snapshot ``data`` under schema ``inner``, checked part by part
    (:func:`_part_validators`)."""
    if f"{inner}:shell" not in validators:
        return errors(inner, data)
    found = list(errors(f"{inner}:shell", data))
    for prop, value in data.items():
        if f"{inner}:.{prop}" not in validators:
            continue                                 # the shell reports an unknown property
        if isinstance(value, list) and f"{inner}:{prop}:" in validators:
            for item in value:
                typed = f"{inner}:{prop}:{item.get('type')}" if isinstance(item, dict) else ""
                found += errors(typed if typed in validators else f"{inner}:{prop}:", item)
        else:
            found += errors(f"{inner}:.{prop}", value)
    return found


class PartChecker:
    """Bodies checked against the checked-in schemas the way :func:`check_schemas` does: a
    snapshot part by part (:func:`_snapshot_errors`), an event against its own type's branch,
    and each distinct part once (many repeat exactly from one snapshot to the next)."""

    def __init__(self) -> None:
        self.validators = _validators()
        self._seen: dict[tuple[str, str], list[Any]] = {}

    def errors(self, name: str, instance: object) -> list[Any]:
        """The errors of ``instance`` under validator ``name`` (memoised by its JSON)."""
        key = (name, json.dumps(instance, sort_keys=True))
        if key not in self._seen:
            self._seen[key] = list(self.validators[name].iter_errors(instance))
        return self._seen[key]

    def snapshot_errors(self, inner: str, data: dict[str, Any]) -> list[Any]:
        """The errors of snapshot ``data`` under schema ``inner`` (``PublicSnapshot``...)."""
        return _snapshot_errors(inner, data, self.validators, self.errors)

    def event_errors(self, inner: str, data: dict[str, Any]) -> list[Any]:
        """The errors of event body ``data`` (with its ``type``) under schema ``inner``."""
        name = f"{inner}:{data.get('type')}"
        return self.errors(name if name in self.validators else inner, data)


def checked_in_schemas_match_the_code() -> list[str]:
    """Names of checked-in schema files that differ from what the code generates."""
    stale = []
    for directory, files in ((payloads.SCHEMA_DIR, payloads.schema_files()),
                             (envelope.SCHEMA_DIR, envelope.schema_files()),
                             (odds_payload.SCHEMA_DIR, odds_payload.schema_files())):
        for name, text in files.items():
            if (directory / name).read_text() != text:
                stale.append(str(Path(directory.name) / name))
    return stale


def _route(topic: str) -> tuple[str, str | None] | None:
    """(envelope schema, body schema) of a topic."""
    parts = topic.split("/")
    if parts[:3] == ["poker", "v1", "replies"]:
        return "ReplyPayload", None
    if parts[2:3] != ["tables"] or len(parts) < 5:
        return None
    root, leaf = parts[0], parts[4]
    if root == "poker":
        return {"events": ("EventEnvelope", "PublicEvent"),
                "state": ("SnapshotEnvelope", "PublicSnapshot"),
                "status": ("StatusPayload", None),
                "cmd": ("CommandPayload", None)}.get(leaf)
    if root == "secure":
        return {"holecards": ("EventEnvelope", "HoleCardsEvent"),
                "state": ("SnapshotEnvelope", "SecureSnapshot"),
                "odds": ("OddsEnvelope", None)}.get(leaf)
    return None


@dataclass
class SchemaReport:
    """What the schema check saw."""

    failures: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)


def check_schemas(raw: list[tuple[str, bytes]]) -> SchemaReport:
    """Validate every recorded payload against the schema of its topic (and the body of
    events and snapshots against the controller's schema of its type)."""
    checker = PartChecker()
    validators = checker.validators
    report = SchemaReport()

    def fail(i: int, topic: str, errors: Iterable[Any]) -> None:
        for err in list(errors)[:3]:
            report.failures.append(f"#{i} {topic}: {err.message} at {list(err.absolute_path)}")

    for i, (topic, payload) in enumerate(raw):
        route = _route(topic)
        if route is None:
            report.failures.append(f"#{i} {topic}: a topic outside the API")
            continue
        outer, inner = route
        doc = json.loads(payload)
        data = doc.get("data")
        # ``data`` is ``dict[str, JsonValue]`` in the envelopes: any parsed JSON object is
        # one, so the envelope is checked with an empty object in its place (the recursive
        # JsonValue schema is slow) and the body against its own schema below
        shell = {**doc, "data": {}} if isinstance(data, dict) and outer != "OddsEnvelope" \
            else doc
        fail(i, topic, validators[outer].iter_errors(shell))
        kind = outer if inner is None else f"{inner}:{doc.get('type')}"
        report.counts[kind] = report.counts.get(kind, 0) + 1
        if inner is not None and isinstance(data, dict):
            if outer == "SnapshotEnvelope":
                fail(i, topic, checker.snapshot_errors(inner, data))
                continue
            fail(i, topic, checker.event_errors(inner, {"type": doc.get("type"), **data}))
    return report


# --- PHH export, read back by PokerKit ---------------------------------------------------------


@dataclass
class ExportReport:
    """Finished hands exported and what PokerKit made of them."""

    exported: int = 0
    problems: list[str] = field(default_factory=list)


def check_export(session: Session, out: Path,
                 pokerkit_stacks: Callable[[str], list[int]]) -> ExportReport:
    """Export every settled hand of the session's journal (read-only, as the CLI does), write
    it, read it back with ``pokerkit_stacks`` and compare PokerKit's finishing stacks with the
    journal's and with the dealer's own engine."""
    report = ExportReport()
    setup = table_setup(session.config)
    dealt = {h.number: h for h in session.hands}
    out.mkdir(parents=True, exist_ok=True)
    with open_readonly(session.config.journal.path) as journal:
        recalls = finished_hands(journal)
    for recall in recalls:
        exported = export_hand(setup, recall)
        text = exported.phh()
        path = out / f"{exported.journal_id}.phh"
        path.write_text(text)
        seats = exported.hand.position_seats
        try:
            got = dict(zip(seats, pokerkit_stacks(path.read_text()), strict=True))
        except ValueError as exc:
            report.problems.append(f"hand {exported.number}: PokerKit cannot read {path}: "
                                   f"{exc}")
            continue
        want = {seat: exported.stacks[seat] for seat in seats}
        if got != want:
            report.problems.append(f"hand {exported.number}: PokerKit {got} != journal {want}")
        mine = dealt[exported.number].final_stacks
        if want != {seat: mine[seat] for seat in seats}:
            report.problems.append(f"hand {exported.number}: journal {want} != dealer {mine}")
        report.exported += 1
    return report


def pokerkit_stacks(text: str) -> list[int]:
    """PokerKit's finishing stacks of a PHH text, in position order."""
    from pokerkit import HandHistory

    states = list(HandHistory.loads(text))
    return [int(s) for s in states[-1].stacks]


@dataclass
class Verdict:
    """Everything a worker found about one session."""

    code: str
    hands: int
    showdowns: int
    up_cards: int
    messages: int
    seconds: tuple[float, float]
    """(playing, judging) wall time in the worker."""
    leaks: list[Leak]
    schemas: SchemaReport
    export: ExportReport


def judge(session: Session, code: str, phh_dir: Path, played_in: float = 0.0) -> Verdict:
    """Run every check on a session."""
    start = time.perf_counter()
    leaks = scan_leaks(session.raw, session.hands)
    schemas = check_schemas(session.raw)
    export = check_export(session, phh_dir, pokerkit_stacks)
    return Verdict(
        code=code, hands=len(session.hands),
        showdowns=sum(bool(h.shown_at) for h in session.hands),
        up_cards=sum(hole.up for h in session.hands for hole in h.holes),
        messages=len(session.raw), seconds=(played_in, time.perf_counter() - start),
        leaks=leaks, schemas=schemas, export=export)


def session_verdict(tmp_path: Path, broker: Endpoint, code: str, hands: int, seed: int,
                    journal_dir: Path | None = None, undo_every: int = 0) -> Verdict:
    """Play a session and judge it (both in the calling process: a worker's entry point)."""
    start = time.perf_counter()
    session = run_session(tmp_path, broker, code, hands, seed, journal_dir,
                          undo_every=undo_every)
    return judge(session, code, tmp_path / "phh", time.perf_counter() - start)
