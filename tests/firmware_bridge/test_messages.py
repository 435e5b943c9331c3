"""Message payloads: lengths, ranges, forward compatibility, JSON form."""

from __future__ import annotations

import pytest

from firmware_bridge.errors import LengthError, PayloadError
from firmware_bridge.frames import Frame, FrameFlags
from firmware_bridge.messages import (
    MESSAGE_CLASSES,
    AntennaState,
    Button,
    ButtonAction,
    Heartbeat,
    MessageType,
    TagId,
    TagSeen,
    Tech,
    UnknownMessage,
    decode_message,
    encode_message,
    message_from_json,
    message_to_json,
)

UID = bytes.fromhex("045CF01C668417")


def test_every_type_has_a_class() -> None:
    assert set(MESSAGE_CLASSES) == set(MessageType)


def test_short_payload_is_a_length_error_and_longer_is_accepted() -> None:
    msg = TagSeen(1, Tech.ISO14443A, 10, 2, 0, UID)
    payload = msg.payload()
    with pytest.raises(LengthError):
        decode_message(Frame(0x10, 1, payload[:-1], FrameFlags.ACK_REQ))
    # a later minor version appends a field: the known part still decodes
    assert decode_message(Frame(0x10, 1, payload + b"\x99\x98", FrameFlags.ACK_REQ)) == msg


def test_out_of_range_enum_is_a_payload_error() -> None:
    payload = bytearray(Button(0, 5, ButtonAction.PRESS, 1).payload())
    payload[2] = 9
    with pytest.raises(PayloadError):
        decode_message(Frame(0x20, 1, bytes(payload), FrameFlags.ACK_REQ))


def test_unknown_type_is_kept_raw() -> None:
    frame = Frame(0x85, 3, b"\x01\x02", FrameFlags.ACK_REQ)
    assert decode_message(frame) == UnknownMessage(0x85, b"\x01\x02")


def test_reliable_types_need_a_seq_and_others_refuse_one() -> None:
    with pytest.raises(ValueError, match="seq"):
        encode_message(TagSeen(1, Tech.ISO14443A, 10, 2, 0, UID))
    with pytest.raises(ValueError, match="seq"):
        encode_message(Heartbeat(), 3)


def test_bad_values_are_refused_at_construction() -> None:
    with pytest.raises(ValueError, match="UID"):
        TagSeen(1, Tech.ISO14443A, 10, 2, 0, b"")
    with pytest.raises(ValueError, match="u16"):
        TagSeen(1, Tech.ISO14443A, 10, 70000, 0, UID)


def test_json_round_trip_with_tags() -> None:
    msg = AntennaState(3, 2, (TagId(Tech.ISO14443A, UID),))
    obj = message_to_json(msg)
    assert obj["tags"] == [{"tech": "ISO14443A", "uid": "045CF01C668417"}]
    assert message_from_json(obj) == msg


@pytest.mark.parametrize("obj", [
    {"type": "NOPE"},
    {"type": "ACK"},
    {"type": "ACK", "ack_seq": "x"},
    {"type": "ACK", "ack_seq": 1, "colour": "red"},
    {"type": "BUTTON", "keypad": 0, "key": 1, "action": "SQUEEZE", "t_ms": 0},
])
def test_bad_json_is_a_clear_value_error(obj: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        message_from_json(obj)
