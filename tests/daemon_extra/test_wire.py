"""Hundreds of hands through the real daemon and a real mosquitto, judged on the wire.

Five sessions (no-limit and fixed-limit hold'em, pot-limit Omaha, stud, razz; ``WIRE_HANDS``
each, four players: 20, 100 in all, in ``.ci/test``; ``WIRE_HANDS=100``, the 500-hand run, in
``.ci/test --all``) run
in parallel worker processes, each with its own daemon, broker, simulated shoe and dealer
console. An independent paho subscriber on ``poker/#`` and ``secure/#`` records every
payload's bytes. Then, per session:

* no hole card appears in any public payload before the showdown event of its seat (stud up
  cards once dealt; folded and mucked hands never);
* every payload validates against the generated JSON Schema of its topic and type;
* every settled hand is rebuilt from the journal (opened read-only), written as PHH, read back
  by PokerKit, and PokerKit's finishing stacks equal the journal's and the dealer's engine's.

Where the time goes (measured while writing this, 20 NL hold'em hands in one process): with a
console without TCP_NODELAY every command took ~45 ms (Nagle against the broker's delayed ACK);
with it ~7 ms, and the daemon then spends ~60 ms CPU per hand (about 80 PUBACK-awaited publishes
each journaled as published, and a snapshot per batch). A journal on disk adds one fsync per
journal write (3 ms here), so the journals live on /dev/shm when it exists. One process at a time
took ~0.25 s a hand; five worker processes share the two cores.

Found on the way: at this pace the outbox (one PUBACK-awaited publish at a time) falls hands
behind the table, and each snapshot shows the table now while its ``seq`` is the last event
published, so a snapshot can contain events of a later ``seq`` (or a later hand) than it says.
The leak scan therefore judges each payload for the hand it names (see ``scan_leaks``).
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import random
import tempfile
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tablectl.controller import payloads
from tablectl.domain.cards import Card
from tablectl.publish.envelope import SnapshotEnvelope, encode
from tests.conftest import BrokerFactory
from tests.controller.helpers import Dealer, fresh
from tests.daemon_extra.checks import (
    Verdict,
    check_schemas,
    checked_in_schemas_match_the_code,
    scan_leaks,
    session_verdict,
)
from tests.daemon_extra.session import VARIANTS, Endpoint, HoleCard, PlayedHand

HANDS_PER_VARIANT = int(os.environ.get("WIRE_HANDS", "20"))
UNDO_EVERY = 40
"""Every 40th decision the dealer takes back with ``undo`` and enters again."""
ROOT = Path(__file__).resolve().parents[2]


def _shm() -> str | None:
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() else None


@pytest.mark.timeout(300)  # 40 hands each: ~60 s on two idle cores (100 each: ~125 s)
async def test_no_hole_card_on_poker_before_showdown_over_hundreds_of_hands(
        tmp_path: Path, mosquitto_factory: BrokerFactory,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(ROOT))  # spawned workers import tests.daemon_extra
    loop = asyncio.get_running_loop()
    with tempfile.TemporaryDirectory(dir=_shm()) as journals, ProcessPoolExecutor(
            len(VARIANTS), mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = []
        for seed, code in enumerate(VARIANTS, start=1):
            work = tmp_path / code.replace("/", "")
            journal_dir = Path(journals) / work.name
            work.mkdir()
            journal_dir.mkdir()
            broker = mosquitto_factory()
            futures.append(loop.run_in_executor(
                pool, session_verdict, work, Endpoint(broker.host, broker.port), code,
                HANDS_PER_VARIANT, seed, journal_dir, UNDO_EVERY))
        verdicts: list[Verdict] = await asyncio.gather(*futures)

    for v in verdicts:
        print(f"{v.code}: {v.hands} hands, {v.messages} payloads, {v.showdowns} showdowns; "
              f"played in {v.seconds[0]:.1f} s, judged in {v.seconds[1]:.1f} s")
    assert sum(v.hands for v in verdicts) == len(VARIANTS) * HANDS_PER_VARIANT
    for v in verdicts:
        assert v.leaks == [], (v.code, v.leaks[:5])
        assert v.schemas.failures == [], (v.code, v.schemas.failures[:10])
        assert v.export.problems == [], (v.code, v.export.problems[:5])
        assert v.export.exported == v.hands, v.code
        # the session really went where leaks could happen
        assert v.showdowns >= 10, v.code
        assert v.schemas.counts.get("PublicEvent:showdown", 0) >= v.showdowns, v.code
        assert v.schemas.counts.get("HoleCardsEvent:holecards", 0) > 0, v.code
    studs = [v for v in verdicts if v.code in ("F7S", "FR")]
    assert all(v.up_cards > 4 * v.hands for v in studs)
    seen = {kind for v in verdicts for kind in v.schemas.counts}
    for kind in ("PublicEvent:hand_started", "PublicEvent:forced_bet", "PublicEvent:cards_dealt",
                 "PublicEvent:board", "PublicEvent:action", "PublicEvent:pot",
                 "PublicEvent:winner", "PublicEvent:hand_ended", "PublicEvent:seat",
                 "PublicEvent:correction", "PublicEvent:bet_returned",
                 "PublicSnapshot:snapshot", "SecureSnapshot:snapshot", "StatusPayload",
                 "CommandPayload", "ReplyPayload"):
        assert kind in seen, kind


def test_checked_in_schemas_are_the_generated_ones() -> None:
    assert checked_in_schemas_match_the_code() == []


def _event(seq: int, journal_hand: int, type_: str,
           data: dict[str, object]) -> tuple[str, bytes]:
    return ("poker/v1/tables/w/events", json.dumps(
        {"v": 1, "seq": seq, "hand": journal_hand, "type": type_, "data": data}).encode())


def _state(number: int | None, body: str) -> tuple[str, bytes]:
    hand = "null" if number is None else f'{{"id":"w-{number}","number":{number}}}'
    return "poker/v1/tables/w/state", f'{{"data":{{"hand":{hand},{body}}}}}'.encode()


def _started(number: int) -> list[tuple[str, bytes]]:
    reply = f'{{"status":"ok","data":{{"hand":{{"id":"w-{number}","number":{number}}}}}}}'
    return [("poker/v1/replies/floor/console", reply.encode()),
            _event(number * 10, 100 + number, "hand_started",
                   {"hand": {"id": f"w-{number}", "number": number}})]


def test_the_scan_finds_down_cards_published_early_and_allows_shown_and_up_cards() -> None:
    """The leak scan itself: planted down cards are found; shown and up cards are not."""
    c = Card.parse
    first = PlayedHand(number=1, shoe=0, holes=(
        HoleCard(1, c("Ah"), up=False), HoleCard(1, c("Kd"), up=True),
        HoleCard(2, c("2c"), up=False), HoleCard(3, c("7s"), up=False)),
        shown_at={1: 6}, final_stacks={})
    second = PlayedHand(number=2, shoe=0, holes=(HoleCard(1, c("9h"), up=False),),
                        shown_at={1: 16}, final_stacks={})
    third = PlayedHand(number=3, shoe=1, holes=(), shown_at={}, final_stacks={})
    raw = [
        *_started(1),
        _state(1, '"seats":[{"cards":[{"card":"Kd","up":true}]}]'),
        _state(1, '"seats":[{"cards":[{"card":"Ah","up":false}]}]'),  # 3: before the show
        ("poker/v1/replies/floor/console", b'{"message":"seat 2 holds 2c"}'),  # 4
        ("secure/v1/tables/w/holecards", b'{"data":{"cards":["7s"]}}'),
        _state(1, '"seats":[{"cards":[{"card":"Ah","up":true}]}]'),  # 6: seat 1 shown
        _event(3, 101, "showdown", {"seat": 3, "cards": ["7s"]}),  # 7: 3 was never shown
        _state(1, '"results":[{"description":"Aces","cards":["Ah"]}]'),
        *_started(2),
        _state(2, '"board":["2c"]'),  # 11: seat 2's folded card of hand 1, same shoe
        _state(None, '"board":[]'),
        # the outbox lags: hand 1's late event is judged for hand 1 (9h is hand 2's card)
        _event(4, 101, "pot", {"note": "9h"}),
        _state(2, '"seats":[{"cards":[{"card":"9h","up":false}]}]'),  # 14: not shown yet
        ("poker/v1/tables/w/status", b'{"note":"9h"}'),  # 15: judged for hand 2
        _state(2, '"seats":[{"cards":[{"card":"9h","up":true}]}]'),  # 16: shown
        *_started(3),
        _state(3, '"board":["2c"]'),  # a new shoe: 2c is just a card again
    ]
    leaks = scan_leaks(raw, [first, second, third])
    assert [(leak.index, leak.card) for leak in leaks] == [
        (3, "Ah"), (4, "2c"), (7, "7s"), (11, "2c"), (14, "9h"), (15, "9h")]


def _snapshot_payload(data: dict[str, object], secure: bool = False) -> tuple[str, bytes]:
    env = SnapshotEnvelope(table="w", epoch=1, seq=3, ts=datetime(2026, 1, 1, tzinfo=UTC),
                           data=data)  # type: ignore[arg-type]
    return ("secure" if secure else "poker") + "/v1/tables/w/state", encode(env)


def test_the_schema_check_part_by_part_judges_as_the_whole_document() -> None:
    """The schema check validates a snapshot part by part (each seat, each log entry, each
    other property, then the object's own keywords) to check each repeated part once: it must
    refuse what the whole snapshot's schema refuses, and accept what it accepts."""
    d = fresh()
    dealer = Dealer(d, random.Random(5))
    dealer.start()
    for _ in range(12):
        dealer.step()
    public, secure = d.ctl.public_snapshot(), d.ctl.secure_snapshot()
    assert public["log"] and public["seats"]
    whole = {name: Draft202012Validator(json.loads(
        (payloads.SCHEMA_DIR / f"{name}.json").read_text()))
        for name in ("PublicSnapshot", "SecureSnapshot")}

    def spoiled() -> list[tuple[str, dict[str, object]]]:
        out: list[tuple[str, dict[str, object]]] = []
        for name, snap in (("PublicSnapshot", public), ("SecureSnapshot", secure)):
            def copy(s: dict[str, object] = snap) -> dict[str, Any]:
                return json.loads(json.dumps(s))
            bad = copy()
            bad["seats"][1]["stack"] = -1
            out.append((name, bad))
            bad = copy()
            bad["log"][0]["n"] = 0
            out.append((name, bad))
            bad = copy()
            bad["log"][-1]["type"] = "no_such_type"
            out.append((name, bad))
            bad = copy()
            bad["log"] = [{"type": "board", "cards": ["Zz"], "street": "flop", "n": 1}]
            out.append((name, bad))
            bad = copy()
            bad["hidden"] = 1                        # an unknown property
            out.append((name, bad))
            bad = copy()
            del bad["seats"]                         # a required one missing
            out.append((name, bad))
            bad = copy()
            bad["board"] = "Ah"                      # an array that is not one
            out.append((name, bad))
            bad = copy()
            bad["stakes"]["big_blind"] = "200"
            out.append((name, bad))
        return out

    assert check_schemas([_snapshot_payload(public),
                          _snapshot_payload(secure, secure=True)]).failures == []
    for name, bad in spoiled():
        assert list(whole[name].iter_errors(bad)), ("the whole schema must refuse it", bad)
        report = check_schemas([_snapshot_payload(bad, secure=name == "SecureSnapshot")])
        assert report.failures, (name, bad)
