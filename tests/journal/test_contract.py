"""The Journal contract, run against both SqliteJournal and its MemoryJournal twin."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from tablectl.clock import ManualClock
from tablectl.journal import (
    InputRecord,
    Journal,
    JournalStateError,
    MemoryJournal,
    NewEvent,
    SqliteJournal,
)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture(params=["sqlite", "memory"])
def journal(request: pytest.FixtureRequest, tmp_path: Path,
            clock: ManualClock) -> Iterator[Journal]:
    j: Journal
    if request.param == "sqlite":
        j = SqliteJournal.open(tmp_path / "j.db", clock)
    else:
        j = MemoryJournal(clock)
    with j:
        yield j


def card(i: int, hand_id: int | None = None, actor: str | None = None) -> InputRecord:
    return InputRecord(source="shoe", kind="card_read", payload={"uid": f"{i:04x}"},
                       actor=actor, hand_id=hand_id)


def test_nothing_is_written_before_the_first_epoch(journal: Journal) -> None:
    assert journal.epoch == 0
    with pytest.raises(JournalStateError):
        journal.append_input(card(1))
    with pytest.raises(JournalStateError):
        journal.append_events([NewEvent("t/events", "x", {})])
    assert journal.inputs() == []


def test_epochs_count_up(journal: Journal) -> None:
    assert [journal.start_epoch() for _ in range(3)] == [1, 2, 3]
    assert journal.epoch == 3


def test_inputs_are_stored_in_order_with_time_epoch_and_actor(
        journal: Journal, clock: ManualClock) -> None:
    journal.start_epoch()
    t0 = clock.now()
    a = journal.append_input(card(1))
    clock.advance(2.5)
    b = journal.append_input(InputRecord(source="console", kind="undo", payload={"n": [1, 2]},
                                         actor="dealer-t07"))
    assert (a.seq, b.seq) == (1, 2)
    assert a.at == t0 and b.at == t0 + timedelta(seconds=2.5)
    assert b.actor == "dealer-t07" and b.epoch == 1
    assert journal.inputs() == [a, b]
    assert journal.inputs(after_seq=1) == [b]
    assert b.payload == {"n": [1, 2]}


def test_bad_inputs_are_refused_and_change_nothing(journal: Journal) -> None:
    journal.start_epoch()
    with pytest.raises(JournalStateError):
        InputRecord(source="shoe", kind="x", payload={"f": float("nan")})
    with pytest.raises(JournalStateError):
        InputRecord(source="shoe", kind="x", payload={"o": object()})  # type: ignore[dict-item]
    with pytest.raises(JournalStateError):
        journal.append_input(card(1, hand_id=99))
    with pytest.raises(JournalStateError):
        journal.append_events([NewEvent("t/e", "x", {}), NewEvent("t/e", "y", {}, hand_id=7)])
    assert journal.inputs() == [] and journal.unpublished() == []
    assert journal.append_input(card(2)).seq == 1


def test_payloads_are_copied_not_aliased(journal: Journal) -> None:
    journal.start_epoch()
    payload: dict[str, list[int]] = {"xs": [1]}
    rec = journal.append_input(InputRecord(source="s", kind="k", payload=payload))
    payload["xs"].append(2)
    assert rec.payload == {"xs": [1]}
    assert journal.inputs()[0].payload == {"xs": [1]}


def test_one_hand_at_a_time_and_its_inputs(journal: Journal, clock: ManualClock) -> None:
    journal.start_epoch()
    journal.append_input(card(0))
    h1 = journal.start_hand(summary={"game": "nlhe"})
    assert (h1.id, h1.number, h1.ended_at) == (1, 1, None)
    assert journal.current_hand() == h1
    with pytest.raises(JournalStateError):
        journal.start_hand()
    ins = [journal.append_input(card(i, h1.id)) for i in range(3)]
    assert journal.inputs_of_hand(h1.id) == ins
    clock.advance(60)
    ended = journal.end_hand(h1.id, {"winner": 3})
    assert ended.ended_at == clock.now() and ended.summary == {"winner": 3}
    assert journal.current_hand() is None
    with pytest.raises(JournalStateError):
        journal.end_hand(h1.id, {})
    h2 = journal.start_hand(number=500)
    assert (h2.id, h2.number) == (2, 500)
    journal.end_hand(h2.id, {})
    assert journal.start_hand().number == 501
    with pytest.raises(JournalStateError):
        journal.inputs_of_hand(42)


def test_outbox_seq_is_contiguous_per_topic_and_epoch(journal: Journal) -> None:
    journal.start_epoch()
    evs = journal.append_events([NewEvent("t/events", "a", {}), NewEvent("t/secure", "h", {}),
                                 NewEvent("t/events", "b", {})])
    assert [(e.topic, e.seq) for e in evs] == [("t/events", 1), ("t/secure", 1),
                                                ("t/events", 2)]
    assert [e.id for e in evs] == [1, 2, 3]
    more = journal.append_events([NewEvent("t/events", "c", {})])
    assert more[0].seq == 3 and more[0].id == 4
    journal.start_epoch()
    again = journal.append_events([NewEvent("t/events", "d", {})])
    assert (again[0].epoch, again[0].seq) == (2, 1)
    assert [e.type for e in journal.events_range("t/events", 1, 2, 3)] == ["b", "c"]
    assert journal.events_range("t/events", 2, 1, 100) == again
    with pytest.raises(JournalStateError):
        journal.events_range("t/events", 1, 3, 2)


def test_outbox_unpublished_until_marked(journal: Journal, clock: ManualClock) -> None:
    journal.start_epoch()
    evs = journal.append_events([NewEvent("t/events", str(i), {"i": i}) for i in range(4)])
    assert journal.unpublished() == evs
    clock.advance(1)
    first = journal.mark_published(evs[1].id)
    assert first.published_at == clock.now()
    clock.advance(1)
    assert journal.mark_published(evs[1].id).published_at == first.published_at
    assert [e.id for e in journal.unpublished()] == [evs[0].id, evs[2].id, evs[3].id]
    with pytest.raises(JournalStateError):
        journal.mark_published(999)


def test_empty_append_events_is_a_no_op(journal: Journal) -> None:
    journal.start_epoch()
    assert journal.append_events([]) == []
    assert journal.append_events([NewEvent("t", "x", {})])[0].seq == 1


def test_recall_of_last_hands_newest_first_with_everything(journal: Journal) -> None:
    journal.start_epoch()
    for n in range(12):
        hand = journal.start_hand()
        journal.append_input(card(n, hand.id))
        journal.append_input(card(100 + n, hand.id, actor="dealer"))
        journal.append_events([NewEvent("t/events", "hand_started", {"n": n}, hand.id)])
        journal.append_input(card(999))          # between hands: not part of any recall
        journal.end_hand(hand.id, {"n": n})
    open_hand = journal.start_hand()
    journal.append_input(card(7, open_hand.id))
    recall = journal.last_hands(10)
    assert len(recall) == 10
    assert [r.hand.id for r in recall] == list(range(13, 3, -1))
    assert recall[0].hand.ended_at is None and len(recall[0].inputs) == 1
    third = recall[2]   # hand id 11, n == 10
    assert [i.payload["uid"] for i in third.inputs] == [f"{10:04x}", f"{110:04x}"]
    assert [e.payload for e in third.events] == [{"n": 10}]
    assert third.hand.summary == {"n": 10}
    assert len(journal.last_hands(100)) == 13
    with pytest.raises(JournalStateError):
        journal.last_hands(0)


def test_error_states_raise_clear_and_who(journal: Journal, clock: ManualClock) -> None:
    journal.start_epoch()
    e1 = journal.raise_error("reader_link_lost", {"device": "shoe"})
    assert journal.raise_error("reader_link_lost", {"other": 1}) == e1
    e2 = journal.raise_error("duplicate_card", by="daemon")
    assert journal.active_errors() == [e1, e2]
    clock.advance(5)
    cleared = journal.clear_error("reader_link_lost", by="floor-1")
    assert cleared.cleared_by == "floor-1" and cleared.cleared_at == clock.now()
    assert not cleared.active and cleared.detail == {"device": "shoe"}
    assert journal.active_errors() == [e2]
    with pytest.raises(JournalStateError):
        journal.clear_error("reader_link_lost", by="floor-1")
    again = journal.raise_error("reader_link_lost")
    assert again.id != e1.id and again.active


def test_a_transaction_commits_every_write_of_its_block(journal: Journal) -> None:
    journal.start_epoch()
    with journal.transaction():
        hand = journal.start_hand()
        journal.append_input(card(1, hand.id))
        journal.append_events([NewEvent("t/events", "a", {}, hand.id)])
        journal.raise_error("duplicate_card", {"card": "As"}, hand_id=hand.id)
    assert [r.payload for r in journal.inputs()] == [{"uid": "0001"}]
    assert [e.type for e in journal.unpublished()] == ["a"]
    assert [e.code for e in journal.active_errors()] == ["duplicate_card"]
    assert journal.current_hand() == hand


def test_a_block_that_raises_leaves_the_journal_as_before(journal: Journal) -> None:
    journal.start_epoch()
    hand = journal.start_hand()
    journal.append_input(card(1, hand.id))
    before = (journal.inputs(), journal.unpublished(), journal.active_errors(),
              journal.current_hand(), journal.epoch)
    with pytest.raises(RuntimeError, match="controller broke"), journal.transaction():
        journal.append_input(card(2, hand.id))
        journal.append_events([NewEvent("t/events", "a", {}, hand.id)])
        journal.end_hand(hand.id, {"winner": 3})
        raise RuntimeError("controller broke")
    assert (journal.inputs(), journal.unpublished(), journal.active_errors(),
            journal.current_hand(), journal.epoch) == before
    # numbering goes on from what is there, as if the block never ran
    assert journal.append_input(card(3, hand.id)).seq == 2
    assert [e.seq for e in journal.append_events([NewEvent("t/events", "b", {}, hand.id)])
            ] == [1]


def test_a_refused_write_in_a_block_changes_nothing_of_its_own(journal: Journal) -> None:
    journal.start_epoch()
    with journal.transaction():
        journal.append_input(card(1))
        with pytest.raises(JournalStateError):
            journal.clear_error("duplicate_card", by="dealer")   # none active
        with pytest.raises(JournalStateError):
            journal.append_input(card(2, hand_id=99))            # no such hand
    assert [r.payload for r in journal.inputs()] == [{"uid": "0001"}]


def test_transactions_do_not_nest(journal: Journal) -> None:
    journal.start_epoch()
    with journal.transaction():
        journal.append_input(card(1))
        with pytest.raises(JournalStateError, match="nest"), journal.transaction():
            pass
    assert len(journal.inputs()) == 1


def test_an_input_keeps_its_decision_and_is_found_by_its_seq(journal: Journal) -> None:
    journal.start_epoch()
    refused = journal.append_input(InputRecord(
        source="console", kind="command", payload={"name": "start_hand"}, actor="ann",
        decision={"applied": False, "code": "not_authorised", "reason": "no role"}))
    plain = journal.append_input(InputRecord(source="shoe", kind="card_read", payload={}))
    assert journal.input_at(refused.seq) == refused
    assert journal.input_at(refused.seq).decision == {
        "applied": False, "code": "not_authorised", "reason": "no role"}
    assert journal.input_at(plain.seq).decision is None
    with pytest.raises(JournalStateError, match="no input 3"):
        journal.input_at(3)
    with pytest.raises(JournalStateError, match="input decision"):
        journal.append_input(InputRecord(source="shoe", kind="x", payload={},
                                         decision={"bad": float("nan")}))


def test_marks_are_kept_cleared_and_rolled_back_with_their_block(journal: Journal) -> None:
    assert journal.mark("hand_for_hand_round") is None
    journal.set_mark("hand_for_hand_round", 3)
    assert journal.mark("hand_for_hand_round") == 3
    journal.start_epoch()
    with pytest.raises(RuntimeError), journal.transaction():
        journal.set_mark("hand_for_hand_round", 4)
        journal.append_input(card(1))
        raise RuntimeError("the hand did not start")
    assert journal.mark("hand_for_hand_round") == 3 and journal.inputs() == []
    with journal.transaction():
        journal.set_mark("hand_for_hand_round", 4)
        journal.append_input(card(1))
    assert journal.mark("hand_for_hand_round") == 4
    journal.set_mark("hand_for_hand_round", None)
    assert journal.mark("hand_for_hand_round") is None
    # the journal's own keys are not marks: a mark never shadows the epoch
    journal.set_mark("epoch", 99)
    assert journal.epoch == 1 and journal.mark("epoch") == 99


@pytest.mark.parametrize(("key", "value"), [
    ("", 1), ("x" * 65, 1), ("bad\nkey", 1), ("k", 2**63), ("k", -2**63 - 1), ("k", True),
    ("k", 1.5), ("k", "7"), (7, 1)])
def test_a_mark_that_cannot_be_kept_is_refused_and_changes_nothing(
        journal: Journal, key: object, value: object) -> None:
    journal.set_mark("k", 1)
    with pytest.raises(JournalStateError):
        journal.set_mark(key, value)  # type: ignore[arg-type]
    assert journal.mark("k") == 1
