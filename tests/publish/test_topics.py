"""The topic tree: builders, validation, command parsing, reply areas, the secret guard."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablectl.publish import topics as tp
from tablectl.publish.topics import SecretTopicError, Topic, TopicError

ALL_PUBLIC = [tp.state("t07"), tp.events("t07"), tp.status("t07"), tp.cmd("t07", "undo", "d1"),
              tp.reply("d1", "s"), tp.client_status("web-01")]
ALL_SECURE = [tp.secure_holecards("t07"), tp.secure_state("t07")]


def test_the_tree_matches_the_design_table() -> None:
    assert [t.value for t in ALL_PUBLIC + ALL_SECURE] == [
        "poker/v1/tables/t07/state", "poker/v1/tables/t07/events",
        "poker/v1/tables/t07/status", "poker/v1/tables/t07/cmd/undo/d1",
        "poker/v1/replies/d1/s", "poker/v1/clients/web-01/status",
        "secure/v1/tables/t07/holecards", "secure/v1/tables/t07/state"]


@pytest.mark.parametrize("bad", ["", "a/+/b", "a/#", "a//b", "/a", "a/", "$SYS/x", "a\x00b"])
def test_malformed_topics_are_refused(bad: str) -> None:
    with pytest.raises(TopicError):
        Topic(bad)


@pytest.mark.parametrize("bad", ["", "t/07", "+", "#", "t 07", "-x", "é", "x" * 65])
def test_data_segments_are_refused_when_unsafe(bad: str) -> None:
    with pytest.raises(TopicError):
        tp.state(bad)
    with pytest.raises(TopicError):
        tp.cmd("t07", "undo", bad)


def test_no_public_wildcard_reaches_the_secure_root() -> None:
    for flt in ["poker/#", "poker/v1/#", "poker/v1/tables/+/#", "poker/v1/tables/+/state"]:
        for topic in ALL_SECURE:
            assert not tp.topic_matches(flt, topic)
    assert tp.topic_matches("secure/v1/#", tp.secure_holecards("t07"))


@pytest.mark.parametrize(("flt", "topic", "expected"), [
    ("a/b", "a/b", True), ("a/+", "a/b", True), ("a/+", "a/b/c", False), ("a/#", "a", True),
    ("a/#", "a/b/c", True), ("+/+", "a/b", True), ("+", "a/b", False), ("a/b/#", "a/c", False),
])
def test_filter_matching_follows_mqtt(flt: str, topic: str, expected: bool) -> None:
    assert tp.topic_matches(flt, Topic(topic)) is expected


def test_secret_payloads_only_under_secure() -> None:
    for topic in ALL_PUBLIC:
        with pytest.raises(SecretTopicError) as info:
            tp.check_publishable(topic, secret=True)
        assert info.value.topic == topic.value
        tp.check_publishable(topic, secret=False)
    for topic in ALL_SECURE:
        tp.check_publishable(topic, secret=True)


def test_commands_parse_back_and_others_do_not() -> None:
    assert tp.parse_command(tp.cmd("t1", "void_hand", "floor.2")) == tp.CommandTopic(
        "t1", "void_hand", "floor.2")
    for topic in [*ALL_SECURE, tp.state("t1"), Topic("poker/v1/tables/t1/cmd/x"),
                               Topic("poker/v1/tables/t1/cmd/x/u/extra"),
                               Topic("poker/v2/tables/t1/cmd/x/u")]:
        with pytest.raises(TopicError):
            tp.parse_command(topic)
    assert tp.topic_matches(tp.cmd_filter("t1"), tp.cmd("t1", "a", "u"))
    assert not tp.topic_matches(tp.cmd_filter("t1"), tp.cmd("t2", "a", "u"))


def test_reply_topics_must_stay_in_the_senders_area() -> None:
    assert tp.check_reply_topic("d1", "poker/v1/replies/d1/s/x") == Topic(
        "poker/v1/replies/d1/s/x")
    for bad in ["poker/v1/replies/d2/s", "poker/v1/replies/d1", "poker/v1/replies/d10/s",
                "poker/v1/tables/t07/state", "secure/v1/tables/t07/state", "poker/v1/replies/+"]:
        with pytest.raises(TopicError):
            tp.check_reply_topic("d1", bad)


@given(st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,20}", fullmatch=True),
       st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,20}", fullmatch=True),
       st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,20}", fullmatch=True))
def test_command_round_trip(t: str, name: str, user: str) -> None:
    parsed = tp.parse_command(tp.cmd(t, name, user))
    assert (parsed.table, parsed.name, parsed.user) == (t, name, user)
