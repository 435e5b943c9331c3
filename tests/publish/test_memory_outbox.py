"""MemoryPublisher as a loopback broker, and the outbox marking events only on acknowledgement."""

from __future__ import annotations

import pytest

from tablectl.clock import ManualClock
from tablectl.journal import MemoryJournal, NewEvent
from tablectl.publish import (
    EventEnvelope,
    IncomingMessage,
    MemoryPublisher,
    MessageProps,
    NotConnectedError,
    PublishRefusedError,
    SecretTopicError,
    decode,
    flush_outbox,
    send_reply,
)
from tablectl.publish import topics as tp
from tablectl.publish.topics import TopicError


async def test_retained_map_and_clearing() -> None:
    pub = MemoryPublisher()
    await pub.publish(tp.state("t1"), b"s1", retain=True)
    await pub.publish(tp.state("t1"), b"s2", retain=True)
    assert pub.retained[tp.state("t1").value].payload == b"s2"
    await pub.subscribe("poker/v1/tables/+/state")
    async with pub:
        await pub.publish(tp.state("t1"), b"", retain=True)
        await pub.publish(tp.events("t1"), b"not subscribed")
    got = [m async for m in pub.messages()]
    assert [(m.payload, m.retain) for m in got] == [(b"s2", True), (b"", False)]
    assert tp.state("t1").value not in pub.retained
    with pytest.raises(SecretTopicError):
        await pub.publish(tp.events("t1"), b"As Kd", secret=True)
    assert pub.on(tp.events("t1")) == [b"not subscribed"]


def journal_with_events(n: int) -> MemoryJournal:
    journal = MemoryJournal(ManualClock())
    journal.start_epoch()
    journal.append_events([NewEvent(tp.events("t1").value, "e", {"i": i}) for i in range(n)])
    return journal


async def test_flush_marks_each_event_after_its_publish_and_stops_at_a_failure() -> None:
    pub = MemoryPublisher()
    journal = journal_with_events(3)
    pub.online = False
    with pytest.raises(NotConnectedError):
        await flush_outbox(pub, journal, "t1")
    assert len(journal.unpublished()) == 3
    pub.online = True
    assert await flush_outbox(pub, journal, "t1") == 3
    assert journal.unpublished() == []
    sent = [decode(EventEnvelope, p) for p in pub.on(tp.events("t1"))]
    assert [(e.seq, e.data) for e in sent] == [(1, {"i": 0}), (2, {"i": 1}), (3, {"i": 2})]
    assert await flush_outbox(pub, journal, "t1") == 0


async def test_a_refused_event_stays_in_the_outbox() -> None:
    pub = MemoryPublisher()
    journal = journal_with_events(1)
    journal.append_events([NewEvent(tp.secure_holecards("t1").value, "holecards", {"s": 1})])
    pub.refuse("secure/#")
    with pytest.raises(PublishRefusedError) as info:
        await flush_outbox(pub, journal, "t1")
    assert info.value.reason_code == 0x87
    assert [e.topic for e in journal.unpublished()] == [tp.secure_holecards("t1").value]


async def test_reply_goes_to_the_senders_response_topic_with_correlation() -> None:
    pub = MemoryPublisher()
    request = IncomingMessage(tp.cmd("t1", "undo", "dealer"), b"{}", props=MessageProps(
        response_topic="poker/v1/replies/dealer/c1", correlation_data=b"\x00\x07"))
    topic = await send_reply(pub, request, b'{"status":"ok"}')
    assert topic.value == "poker/v1/replies/dealer/c1"
    assert pub.sent[-1].props.correlation_data == b"\x00\x07"
    forged = IncomingMessage(tp.cmd("t1", "undo", "dealer"), b"{}", props=MessageProps(
        response_topic="poker/v1/replies/floor/c1"))
    with pytest.raises(TopicError):
        await send_reply(pub, forged, b"{}")
    with pytest.raises(TopicError):
        await send_reply(pub, IncomingMessage(tp.cmd("t1", "undo", "dealer"), b"{}"), b"{}")
    assert len(pub.sent) == 1
