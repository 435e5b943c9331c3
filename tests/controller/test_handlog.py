"""The public action log in the snapshot (tablectl/controller/handlog.py): whole from the hand's
start, public only, bounded, the same after a restore as live."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tablectl.controller import HandController
from tablectl.controller.handlog import HEAD, TAIL, HandLog
from tablectl.controller.outcome import Event
from tablectl.controller.payloads import SCHEMA_DIR
from tablectl.game import Act

from .helpers import Dealer, fresh


def _public_validator() -> Draft202012Validator:
    return Draft202012Validator(json.loads((SCHEMA_DIR / "PublicSnapshot.json").read_text()))


def _action(n: int) -> Event:
    return Event("action", {"seat": 1 + n % 3, "kind": "call", "amount": 100, "to": 100,
                            "all_in": False, "stack": 1000})


def test_a_whole_hand_is_logged_from_its_start_and_only_what_is_public() -> None:
    validator = _public_validator()
    for seed in range(12):
        d = fresh()
        dealer = Dealer(d, random.Random(f"log-{seed}"))
        dealer.start()
        while dealer.step():
            pub = d.ctl.public_snapshot()
            sec = d.ctl.secure_snapshot()
            validator.validate(pub)
            log = pub["log"]
            assert log[0]["type"] == "hand_started" and log[0]["n"] == 1
            assert pub["log_omitted"] == 0
            assert [e["n"] for e in log] == sorted({e["n"] for e in log})   # unique, in order
            if isinstance(d.ctl.expected(), Act) and pub["street"] == "preflop":
                # the blinds come right after the start, before any decision
                assert [e.get("kind") for e in log[1:3]] == ["small_blind", "big_blind"]
            # no hole card in the log that the public snapshot does not show
            public_cards = set(pub["board"]) | {
                c["card"] for s in pub["seats"] for c in s["cards"] if c["card"]}
            hole = {c["card"] for s in sec["seats"] for c in s["cards"]} - set(pub["board"])
            text = json.dumps(log)
            for card in hole - public_cards:
                assert f'"{card}"' not in text, (seed, card)
        kinds = [e["type"] for e in d.ctl.public_snapshot()["log"]]
        assert kinds[-1] == "hand_ended" and "winner" in kinds
        assert "cards_dealt" not in kinds and "pot" not in kinds


def test_a_flop_is_one_line_and_a_new_hand_starts_a_new_log() -> None:
    d = fresh()
    dealer = Dealer(d, random.Random("flop"))
    dealer.start()
    while dealer.step():
        pass
    boards = [e for e in d.ctl.public_snapshot()["log"] if e["type"] == "board"]
    assert len({e["street"] for e in boards}) == len(boards)
    if boards:
        assert len(boards[0]["cards"]) == 3 and boards[0]["street"] == "flop"
    assert d.cmd("next_hand").reply.ok  # type: ignore[union-attr]
    kept = d.ctl.public_snapshot()["log"]
    assert kept[-1]["type"] == "hand_ended"          # the last hand's log stays between hands
    dealer.start()
    log = d.ctl.public_snapshot()["log"]
    assert log[0]["type"] == "hand_started" and log[0]["hand"]["number"] == 2
    assert all(e["type"] != "hand_ended" for e in log)


def test_a_restored_controller_shows_the_same_log_as_the_live_one() -> None:
    d = fresh()
    dealer = Dealer(d, random.Random("restore"))
    started = dealer.start().hand_started
    assert started is not None
    first = len(d.inputs) - 1
    for _ in range(9):
        dealer.step()
    restored = HandController.restore(d.ctl.setup, started.checkpoint)
    for inp in d.inputs[first:]:
        restored.handle(inp)
    assert restored.public_snapshot()["log"] == d.ctl.public_snapshot()["log"]
    assert len(d.ctl.public_snapshot()["log"]) >= 4


def test_the_log_keeps_its_head_and_tail_and_counts_what_it_leaves_out() -> None:
    log = HandLog()
    log.feed([Event("hand_started", {"hand": {"id": "t-000001", "number": 1}})])
    log.feed(_action(i) for i in range(300))
    entries: list[Any] = log.entries()
    assert len(entries) == HEAD + TAIL
    assert log.omitted == 301 - HEAD - TAIL and log.total == 301
    assert entries[0]["type"] == "hand_started"
    assert [e["n"] for e in entries] == [*range(1, HEAD + 1), *range(302 - TAIL, 302)]
    # a snapshot's list is the caller's; the entries are shared and never changed
    entries.clear()
    assert len(log.entries()) == HEAD + TAIL


def test_a_short_log_is_whole_and_types_not_shown_are_not_entries() -> None:
    log = HandLog(head=2, tail=3)
    assert not log.feed([Event("pot", {"pots": [], "street": "flop"}),
                         Event("cards_dealt", {"seat": 1, "count": 2, "up": [],
                                               "street": "preflop"})])
    assert log.entries() == [] and log.omitted == 0
    log.feed(_action(i) for i in range(5))
    assert [e["n"] for e in log.entries()] == [1, 2, 3, 4, 5] and log.omitted == 0
    log.feed([_action(5)])
    assert [e["n"] for e in log.entries()] == [1, 2, 4, 5, 6] and log.omitted == 1


def test_board_cards_of_a_street_merge_even_across_the_head() -> None:
    log = HandLog(head=1, tail=1)
    log.feed([Event("board", {"cards": ["Ah"], "street": "flop"})])
    log.feed([Event("board", {"cards": ["Ah", "Kd"], "street": "flop"})])
    assert log.entries() == [{"type": "board", "cards": ["Ah", "Kd"], "street": "flop", "n": 1}]
    log.feed([Event("board", {"cards": ["Ah", "Kd", "2c", "3c"], "street": "turn"})])
    assert [e["street"] for e in log.entries()] == ["flop", "turn"]


@pytest.mark.parametrize(("head", "tail"), [(-1, 5), (3, 0)])
def test_bounds_must_make_sense(head: int, tail: int) -> None:
    with pytest.raises(ValueError, match="head must be"):
        HandLog(head, tail)


def test_the_snapshot_schema_refuses_a_log_entry_that_is_not_an_event() -> None:
    d = fresh()
    d.cmd("start_hand")
    pub = d.ctl.public_snapshot()
    validator = _public_validator()
    assert validator.is_valid(pub)
    assert pub["table_name"] == pub["table"]         # no name configured: the id
    bad = {**pub, "log": [{"type": "holecards", "seat": 1, "cards": ["Ah", "Kd"], "n": 2}]}
    assert not validator.is_valid(bad)
    assert not validator.is_valid({**pub, "log": [{**pub["log"][0], "n": 0}]})
