"""Drain the journal's outbox through a publisher, marking each event only after its PUBACK.

This is the reliability rule of docs/mqtt.md: an event is journaled before it is published,
and ``published_at`` is set only once the broker acknowledged it. The daemon publishes each
event with :func:`publish_event`; after a (re)connect or a restart it reads the unacknowledged
events from the journal again and they go out once more (consumers drop duplicates by
``seq``). :func:`flush_outbox` does the same for a whole outbox in one call.
"""

from __future__ import annotations

import logging

from tablectl.journal import EventRecord, Journal
from tablectl.publish.base import MessageProps, Publisher
from tablectl.publish.envelope import encode_event
from tablectl.publish.topics import Topic

_LOGGER = logging.getLogger(__name__)

_JSON = MessageProps(content_type="application/json")


async def publish_event(publisher: Publisher, journal: Journal, table: str,
                        record: EventRecord, *, secret: bool = False,
                        topic: Topic | None = None) -> None:
    """Publish one outbox event (QoS 1, not retained) and mark it published after PUBACK.

    ``topic``: ``Topic(record.topic)`` if the caller has it already.

    Raises:
        PublishError: not sent or not acknowledged; the event stays unpublished.
        JournalWriteError: acknowledged, but the mark could not be written (it will be sent
            again later, which consumers tolerate).
    """
    if topic is None:
        topic = Topic(record.topic)
    await publisher.publish(topic, encode_event(table, record, journal.journal_id), qos=1,
                            secret=secret, props=_JSON)
    journal.mark_published(record.id)


async def flush_outbox(publisher: Publisher, journal: Journal, table: str) -> int:
    """Publish every unpublished event in outbox order; stop at the first failure.

    Returns:
        How many events were published and marked.

    Raises:
        PublishError: the first failure; the events before it are marked, it and the rest
            are not.
    """
    done = 0
    for record in journal.unpublished():
        await publish_event(publisher, journal, table, record)
        done += 1
    if done:
        _LOGGER.info("table %s: outbox flushed %d events", table, done)
    return done
