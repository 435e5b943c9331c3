"""Fuzzing the command decoder (issue 25): arbitrary bytes and arbitrary JSON on a command
topic, from users with and without a role, through the daemon's whole reading of a command
(:mod:`tablectl.publish.admission`, :mod:`tablectl.publish.commands`, the controller's
argument reader). No exception escapes, every message gets at most one reply, and a refusal
changes nothing: the controller's snapshots and the journal's inputs are exactly as before."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablectl.app import initial_state, table_setup
from tablectl.clock import ManualClock
from tablectl.config import load_config
from tablectl.daemon import TableDaemon
from tablectl.journal import MemoryJournal
from tablectl.publish import topics
from tablectl.publish.admission import AccessLimits, RateLimit
from tablectl.publish.base import IncomingMessage, MemoryPublisher, MessageProps
from tests.reliability.harness import DEALER, TABLE, VARIANTS, write_config

FUZZ = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])

NAMES = ["start_hand", "action", "seat_player", "adjust_stack", "manual_card", "recall",
         "replay", "clear_error", "undo", "nonsense"]
USERS = [DEALER, "mallory", "display-x"]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40),
    lambda kids: st.lists(kids, max_size=5) | st.dictionaries(st.text(max_size=10), kids,
                                                              max_size=5),
    max_leaves=20)
arg_keys = st.sampled_from(["seat", "kind", "amount", "name", "stack", "reason", "card",
                            "cards", "code", "read", "hands", "epoch", "from_seq", "to_seq"])
payloads = (
    st.binary(max_size=300)
    | st.builds(lambda v: json.dumps(v).encode(), json_values)
    | st.builds(lambda cid, args: json.dumps({"v": 1, "id": cid, "args": args}).encode(),
                st.text(max_size=20) | st.integers(), st.dictionaries(arg_keys, json_values,
                                                                      max_size=4))
    | st.sampled_from([b'{"v":1,"id":"a","args":{"amount":NaN}}',
                       b'{"id":"a","args":{"x":' + b"[" * 1100 + b"]" * 1100 + b"}}",
                       b'{"id":"a","args":{"epoch":9223372036854775808}}',
                       b'{"id":"\xff"}', b'{"id":"a","args":{"name":"\\u202e"}}']))


def make_daemon(tmp: Path) -> tuple[TableDaemon, MemoryPublisher]:
    variant, structure, stakes = VARIANTS[1]
    config = load_config(write_config(tmp, "mqtt://127.0.0.1:1", variant, structure,
                                      stakes))
    clock = ManualClock()
    publisher = MemoryPublisher()
    # limits high enough that hypothesis meets every other refusal, not only rate_limited
    limits = AccessLimits(staff=RateLimit(1e6, 1_000_000), strangers=RateLimit(1e6, 1_000_000),
                          user=RateLimit(1e6, 1_000_000))
    daemon = TableDaemon(table_setup(config), initial_state(config), MemoryJournal(clock),
                         publisher, clock=clock, limits=limits)
    daemon.recover()
    return daemon, publisher


def snapshots(daemon: TableDaemon) -> str:
    return json.dumps([daemon.controller.public_snapshot(),
                       daemon.controller.secure_snapshot()], sort_keys=True, default=str)


PRE_CONTROLLER = {"bad_request", "bad_topic", "rate_limited", "unknown_command",
                  "stale_command"}
"""Refused by the decoder and admission: never journaled as an input."""


@FUZZ
@given(name=st.sampled_from(NAMES), user=st.sampled_from(USERS), payload=payloads,
       retain=st.booleans())
def test_no_exception_escapes_and_a_refusal_changes_nothing(tmp_path: Path, name: str,
                                                            user: str, payload: bytes,
                                                            retain: bool) -> None:
    daemon, publisher = make_daemon(tmp_path)
    shown = snapshots(daemon)
    inputs = daemon.journal.inputs()
    reply_topic = f"poker/v1/replies/{user}/c"
    msg = IncomingMessage(topics.cmd(TABLE, name, user), payload, retain=retain,
                          props=MessageProps(response_topic=reply_topic))
    asyncio.run(daemon.handle_message(msg))
    replies = [json.loads(m.payload) for m in publisher.sent if m.topic.value == reply_topic]
    assert len(replies) == 1
    reply = replies[0]
    assert len(json.dumps(reply)) < 1200                  # never a payload echoed
    added = daemon.journal.inputs()[len(inputs):]
    if reply["status"] == "ok":
        assert user == DEALER or name in ("recall", "replay")
        return
    code = reply["error"]["code"]
    assert code and reply["error"]["message"]
    assert snapshots(daemon) == shown                     # a refusal changes nothing shown
    if code in PRE_CONTROLLER or user != DEALER:
        assert added == []                                # nor the journal's inputs
    else:   # the envelope's bad_args is not journaled; the controller's refusal is, as such
        assert [(r.actor, r.decision and r.decision.get("code")) for r in added] in (
            [], [(DEALER, code)])
