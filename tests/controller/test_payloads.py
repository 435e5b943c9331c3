"""The controller's JSON Schemas: generated from the code, checked in, and everything the
controller emits validates against the checked-in files (with an independent validator)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tablectl.controller import HandController, Outcome
from tablectl.controller.payloads import SCHEMA_DIR, schema_files
from tests.daemon_extra.checks import PartChecker

from .helpers import FLOOR, VARIANTS, Dealer, fresh
from .test_replay import chaos


def validator(name: str) -> Draft202012Validator:
    schema = json.loads((SCHEMA_DIR / f"{name}.json").read_text())
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


PUBLIC_EVENT = validator("PublicEvent")
HOLECARDS = validator("HoleCardsEvent")
PUBLIC_SNAPSHOT = validator("PublicSnapshot")
SECURE_SNAPSHOT = validator("SecureSnapshot")


def test_checked_in_schemas_match_the_code() -> None:
    for name, text in schema_files().items():
        assert (SCHEMA_DIR / name).read_text() == text, f"regenerate {name}: write_schemas()"


CHECKER = PartChecker()
"""The same checked-in files, checked part by part with each distinct part once (the whole
snapshot after every step, through the thirteen ``oneOf`` branches of its log, took most of
this file's time; the part-by-part check gives the same verdict: tests/daemon_extra)."""


def check(outcomes: list[Outcome], ctl: HandController, seen: set[str]) -> None:
    for out in outcomes:
        for ev in out.events:
            body = ev.to_json()
            assert not CHECKER.event_errors("PublicEvent", body), body
            if ev.type == "hand_started":
                # optional in the schema (older daemons), always sent now: the floor and the
                # history read a hand's game from it
                assert body.get("game") and body.get("stakes"), body
            seen.add(ev.type)
        for ev in out.secure_events:
            assert not CHECKER.event_errors("HoleCardsEvent", ev.to_json()), ev.to_json()
    for inner, snap in (("PublicSnapshot", ctl.public_snapshot()),
                        ("SecureSnapshot", ctl.secure_snapshot())):
        assert not CHECKER.snapshot_errors(inner, snap), CHECKER.snapshot_errors(inner, snap)


def test_everything_emitted_validates() -> None:
    seen: set[str] = set()
    for i, (game, structure) in enumerate(VARIANTS):
        rng = random.Random(f"schema-{i}")
        d = fresh(game, structure, stacks=(400, 3000, 3000, 900))
        dealer = Dealer(d, rng, table=i % 2 == 0)
        dealer.start()
        while dealer.step():
            check(d.outcomes[-3:], d.ctl, seen)
        d.cmd("next_hand")
        d.cmd("adjust_stack", user=FLOOR, seat=1, amount=100, reason="add-on")
        chaos(d, rng, 120)
        check(d.outcomes, d.ctl, seen)
    expected = {"hand_started", "forced_bet", "cards_dealt", "board", "action", "pot",
                "winner", "hand_ended", "error", "device", "correction", "seat", "showdown",
                "bet_returned", "face_up"}
    assert expected <= seen, f"not exercised: {expected - seen}"


@pytest.mark.parametrize(("schema", "payload"), [
    ("PublicEvent", {"type": "cards_dealt", "seat": 1, "count": 1, "up": ["Ah"],
                     "street": "third", "cards": ["Kd"]}),
    ("PublicEvent", {"type": "board", "cards": ["1h"], "street": "flop"}),
    ("PublicEvent", {"type": "teleport"}),
    ("HoleCardsEvent", {"type": "holecards", "hand": {"id": "t", "number": 0}, "seat": 1,
                        "cards": []}),
])
def test_schemas_refuse_what_the_contract_forbids(schema: str, payload: Any) -> None:
    assert not validator(schema).is_valid(payload)


def test_public_snapshot_schema_refuses_a_secure_snapshot() -> None:
    d = fresh()
    d.cmd("start_hand")
    assert not PUBLIC_SNAPSHOT.is_valid(d.ctl.secure_snapshot())
