"""The MQTT API: topic tree, payload envelopes and schemas, publishers, outbox, display resync.

``tablectl.publish.mqtt`` (the paho adapter, ``MqttPublisher``) is imported on its own so that
nothing here pulls in paho until a real connection is made.
"""

from tablectl.publish.base import (
    IncomingMessage,
    MemoryPublisher,
    MessageProps,
    Publisher,
    SentMessage,
    Subscriber,
    send_reply,
)
from tablectl.publish.envelope import (
    CommandPayload,
    EnvelopeError,
    EventEnvelope,
    ReplyError,
    ReplyPayload,
    SnapshotEnvelope,
    StatusPayload,
    decode,
    encode,
    encode_event,
    event_from_record,
)
from tablectl.publish.errors import (
    ConnectionLostError,
    NotConnectedError,
    PublishError,
    PublishRefusedError,
)
from tablectl.publish.outbox import flush_outbox, publish_event
from tablectl.publish.resync import Resync, ResyncResult
from tablectl.publish.topics import SecretTopicError, Topic, TopicError

__all__ = [
    "CommandPayload",
    "ConnectionLostError",
    "EnvelopeError",
    "EventEnvelope",
    "IncomingMessage",
    "MemoryPublisher",
    "MessageProps",
    "NotConnectedError",
    "PublishError",
    "PublishRefusedError",
    "Publisher",
    "ReplyError",
    "ReplyPayload",
    "Resync",
    "ResyncResult",
    "SecretTopicError",
    "SentMessage",
    "SnapshotEnvelope",
    "StatusPayload",
    "Subscriber",
    "Topic",
    "TopicError",
    "decode",
    "encode",
    "encode_event",
    "event_from_record",
    "flush_outbox",
    "publish_event",
    "send_reply",
]
