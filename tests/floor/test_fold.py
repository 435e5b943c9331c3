"""The floor's core on the in-memory store: every event once, in seq order, whatever the
delivery did (duplicates, reordering, losses filled later by a replay, a new epoch)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from tablectl.floor.decode import event_from_body
from tablectl.floor.model import FlagRow, FloorEvent, Gap
from tablectl.floor.rules import HouseRules
from tablectl.floor.store import MemoryStore
from tests.floor.streams import events_of, snapshot, stream

BAD_BEAT = HouseRules.parse('''
[[rule]]
name = "bad-beat"
kind = "bad_beat"
minimum = "Ah Ad Ac Th Td"
both_hole_cards_play = true
min_dealt_in = 4
variants = ["holdem"]
''')


def rows_of(store: MemoryStore) -> dict[str, list[object]]:
    hands = sorted(repr((h.row, h.end)) for h in store.hands_by_id.values())
    return {"hands": hands, **{k: sorted(map(repr, v)) for k, v in store.rows.items()},
            "undone": sorted(store.undone)}


def test_a_stream_in_order_writes_every_row_once() -> None:
    store = MemoryStore()
    events = events_of(stream("t01", 1, 2))
    result = store.ingest(events, [snapshot("t01", 1, 0)])
    assert result.applied == len(events) and result.duplicates == 0 and not result.gaps
    hands = store.hands()
    assert [(h.name, h.result, h.pot, h.game) for h in hands] == [
        ("t-000001", "settled", 400, "No-Limit Hold'em"),
        ("t-000002", "settled", 400, "No-Limit Hold'em")]
    assert hands[0].winners == ({"seat": 2, "amount": 400, "half": "whole", "pot": 0,
                                 "name": "P2"},)
    counts = store.counts()
    assert counts == {"hands": 2, "actions": 2 * 8, "boards": 6, "pots": 4, "showdowns": 4,
                      "winners": 2, "flags": 0}
    again = store.ingest(events)
    assert again.applied == 0 and again.duplicates == len(events)
    assert store.counts() == counts


def test_a_gap_is_reported_and_filled_by_a_replay() -> None:
    store = MemoryStore()
    events = events_of(stream("t01", 1, 1))
    lost = events[4:9]
    first = store.ingest(events[:4] + events[9:12])
    assert first.applied == 4 and first.waiting == 3
    assert first.gaps == [Gap("t01", "1", 5, 9)] == store.gaps()
    # a replay reply's events carry no table and no hand
    replayed = [event_from_body({k: v for k, v in _body(e).items() if k != "table"},
                                "t01") for e in lost]
    second = store.ingest(replayed)
    assert second.applied == 8 and not second.gaps
    tail = store.ingest([], [snapshot("t01", 1, len(events))])
    assert tail.gaps == [Gap("t01", "1", 13, len(events))]
    store.ingest(events[12:])
    assert not store.gaps()
    assert store.hands()[0].result == "settled"


def _body(ev: FloorEvent) -> dict[str, object]:
    return {"table": ev.table, "epoch": ev.epoch, "seq": ev.seq, "type": ev.type,
            "ts": ev.ts.isoformat(), "data": dict(ev.data)}


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), batches=st.integers(1, 12), dup=st.floats(0, 0.5),
       lose=st.floats(0, 0.3))
def test_any_delivery_gives_the_rows_of_the_stream_in_order(seed: int, batches: int,
                                                            dup: float, lose: float) -> None:
    events = events_of(stream("t01", 1, 2) + stream("t02", "j9-1", 1))
    assert len(events) == 44 + 22
    first = [snapshot("t01", 1, 0), snapshot("t02", "j9-1", 0)]
    expected = MemoryStore()
    expected.ingest(events, first)
    rnd = random.Random(seed)
    delivered = [e for e in events for _ in range(1 + (rnd.random() < dup))]
    rnd.shuffle(delivered)
    kept = [e for e in delivered if rnd.random() >= lose]
    store = MemoryStore()
    store.ingest([], first)
    size = max(1, len(kept) // batches)
    for i in range(0, len(kept), size):
        store.ingest(kept[i:i + size])
    # the tables' latest snapshots reveal a lost tail; then the replay: every gap the store
    # reports, served from the daemon's journal
    store.ingest([], [snapshot("t01", 1, 44), snapshot("t02", "j9-1", 22)])
    by_key = {e.key: e for e in events}
    while gaps := store.gaps():
        for gap in gaps:
            store.ingest([by_key[(gap.table, gap.epoch, s)]
                          for s in range(gap.from_seq, gap.to_seq + 1)])
    assert rows_of(store) == rows_of(expected)


def test_a_new_epoch_continues_the_hand_under_way() -> None:
    store = MemoryStore()
    events = events_of(stream("t01", 1, 1))
    store.ingest(events[:10])
    rest = events_of([{**_body(e), "epoch": 2, "seq": i + 1, "hand": 1}
                      for i, e in enumerate(events[10:])])
    result = store.ingest(rest)
    assert result.applied == len(rest) and not result.gaps
    (hand,) = store.hands()
    assert hand.result == "settled" and hand.pot == 400
    assert len(store.actions_of(hand.id)) == 8


def test_an_undo_marks_the_action_taken_back() -> None:
    store = MemoryStore()
    events = stream("t01", 1, 1)
    undo = {**events[8], "type": "correction", "data": {"kind": "undo", "by": "dealer-t01"}}
    redo = events[8]
    bodies = [{**b, "seq": i + 1} for i, b in enumerate([*events[:9], undo, redo, *events[9:]])]
    store.ingest(events_of(bodies))
    (hand,) = store.hands()
    standing = store.actions_of(hand.id)
    assert len(standing) == 8 and len(store.undone) == 1


def test_a_bad_beat_is_flagged_only_when_the_rules_say_so() -> None:
    store = MemoryStore(rules=BAD_BEAT)
    store.ingest([], [snapshot("t01", 1, 0)])
    store.ingest(events_of(stream("t01", 1, 1)))
    (flag,) = store.rows["flags"]
    assert isinstance(flag, FlagRow) and (flag.rule, flag.seat) == ("bad-beat", 1)
    assert store.hands()[0].flags == ("bad-beat",)
    three = MemoryStore(rules=BAD_BEAT)
    three.ingest([], [snapshot("t01", 1, 0)])
    three.ingest(events_of(stream("t01", 1, 1, players=3)))
    assert three.rows["flags"] == []
    omaha = MemoryStore(rules=BAD_BEAT)
    omaha.ingest([], [snapshot("t01", 1, 0, game="omaha")])
    omaha.ingest(events_of(stream("t01", 1, 1)))
    assert omaha.rows["flags"] == []
    weak = MemoryStore(rules=BAD_BEAT)
    weak.ingest([], [snapshot("t01", 1, 0)])
    weak.ingest(events_of(stream("t01", 1, 1, a=("Ah", "2c"))))   # one hole card plays
    assert weak.rows["flags"] == []


def test_two_journals_of_one_table_are_two_histories() -> None:
    """A fresh journal (a spare computer) starts its epochs at 1 again: the envelopes' journal
    id keeps its events apart from the old journal's (docs/mqtt.md)."""
    old = [{**b, "journal": "aaaa"} for b in stream("t01", 1, 1)]
    new = [{**b, "journal": "bbbb"} for b in stream("t01", 1, 1)]
    store = MemoryStore()
    result = store.ingest(events_of(old + new))
    assert result.applied == len(old) + len(new) and result.duplicates == 0
    assert sorted(h.id for h in store.hands()) == ["t01:aaaa:1:1", "t01:bbbb:1:1"]


def test_a_rotations_hand_is_recorded_as_the_game_it_dealt() -> None:
    # a mixed-game table's hand_started names its game and stakes (docs/mqtt.md §8.1): they
    # win over the table's latest snapshot, which may already show the next game
    bodies = stream("t01", 1, 2)
    razz = {"variant": "razz", "structure": "fixed-limit", "preset": "casino",
            "label": "Razz"}
    started = [b for b in bodies if b["type"] == "hand_started"]
    started[1]["data"] = {**started[1]["data"], "game": razz, "stakes": {
        "small_blind": 0, "big_blind": 0, "ante": 25, "bring_in": 50, "small_bet": 100,
        "big_bet": 200, "currency": "USD", "units_per_currency": 100}}
    store = MemoryStore()
    store.ingest(events_of(bodies), [snapshot("t01", 1, 0)])
    assert [h.game for h in store.hands()] == ["No-Limit Hold'em", "Razz"]
    assert store.hands()[1].stakes["ante"] == 25      # type: ignore[index]
