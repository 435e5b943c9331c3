"""Bad input of every kind: each gets a clear error (or is dropped by the link, for line noise)
and changes nothing the table shows.

* fuzzed serial bytes into the host's session (hypothesis): never a delivered read;
* malformed, oversized, unauthorised, retained and replayed commands into the daemon
  (hypothesis for the malformed ones): exactly one reply each, an error with a code, the
  controller's snapshots unchanged (a replayed id gets the first reply and applies nothing);
* bad config files: ``load_config`` names the problem; ``tablectl run`` exits 2 with it and
  creates no journal.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_bridge.session import Session
from firmware_bridge.session_config import LinkEnd
from firmware_bridge.session_events import Received
from tablectl.app import initial_state, table_setup
from tablectl.clock import ManualClock
from tablectl.config import load_config
from tablectl.daemon import TableDaemon
from tablectl.domain.errors import ConfigError
from tablectl.journal.sqlite import SqliteJournal
from tablectl.publish import topics
from tablectl.publish.base import IncomingMessage, MemoryPublisher, MessageProps
from tests.reliability.harness import DEALER, ROOT, TABLE, VARIANTS, write_config

SLOW = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[TableDaemon, MemoryPublisher]]:
    variant, structure, stakes = VARIANTS[1]
    config = load_config(write_config(tmp_path, "mqtt://127.0.0.1:1", variant, structure,
                                      stakes))
    clock = ManualClock()
    publisher = MemoryPublisher()
    with SqliteJournal.open(config.journal.path, clock) as journal:
        daemon = TableDaemon(table_setup(config), initial_state(config), journal, publisher,
                             clock=clock)
        daemon.recover()
        yield daemon, publisher


def shown(daemon: TableDaemon) -> str:
    return json.dumps([daemon.controller.public_snapshot(),
                       daemon.controller.secure_snapshot()], sort_keys=True, default=str)


def send(daemon: TableDaemon, publisher: MemoryPublisher, name: str, payload: bytes, *,
         user: str = DEALER, retain: bool = False, topic: str | None = None
         ) -> list[dict[str, Any]]:
    """One command message; the replies it got."""
    before = len(publisher.sent)
    reply = f"poker/v1/replies/{user}/console"
    msg = IncomingMessage(topics.Topic(topic) if topic else topics.cmd(TABLE, name, user),
                          payload, retain=retain,
                          props=MessageProps(response_topic=reply, correlation_data=b"c"))
    asyncio.run(daemon.handle_message(msg))
    return [json.loads(m.payload) for m in publisher.sent[before:] if m.topic.value == reply]


def command(cid: str, args: dict[str, object] | None = None) -> bytes:
    return json.dumps({"id": cid, "args": args or {}}).encode()


def in_hand(daemon: TableDaemon, publisher: MemoryPublisher) -> None:
    replies = send(daemon, publisher, "start_hand", command("start"))
    assert replies[0]["status"] == "ok", replies


# ---- commands ----------------------------------------------------------------------------

json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                           lambda kids: st.lists(kids, max_size=4)
                           | st.dictionaries(st.text(max_size=8), kids, max_size=4),
                           max_leaves=12)


@SLOW
@given(payload=st.binary(max_size=200)
       | st.builds(lambda v: json.dumps(v).encode(), json_values)
       | st.builds(lambda d: json.dumps(d).encode(),
                   st.fixed_dictionaries({"id": json_values, "args": json_values})))
def test_malformed_commands_get_one_error_reply_and_change_nothing(
        table: tuple[TableDaemon, MemoryPublisher], payload: bytes) -> None:
    daemon, publisher = table
    before = shown(daemon)
    replies = send(daemon, publisher, "action", payload)
    assert len(replies) == 1
    reply = replies[0]
    if reply["status"] == "ok":         # hypothesis found a valid empty action: still legal?
        pytest.fail(f"accepted {payload!r}: {reply}")
    assert reply["error"]["code"] and reply["error"]["message"]
    assert shown(daemon) == before


@SLOW
@given(name=st.sampled_from(["action", "manual_card", "undo", "clear_error", "kill_hand",
                             "adjust_stack", "confirm_read", "next_hand", "nonsense"]),
       args=st.dictionaries(st.sampled_from(["seat", "kind", "amount", "card", "code", "to"]),
                            json_values, max_size=4))
def test_commands_with_random_args_mid_hand_never_corrupt_the_hand(
        table: tuple[TableDaemon, MemoryPublisher], name: str, args: dict[str, Any]) -> None:
    daemon, publisher = table
    if daemon.controller.public_snapshot().get("phase") in (None, "idle", "between_hands"):
        in_hand(daemon, publisher)
    before = shown(daemon)
    replies = send(daemon, publisher, name, command(f"r{len(publisher.sent)}", args))
    assert len(replies) == 1
    if replies[0]["status"] == "error":
        assert replies[0]["error"]["code"]
        assert shown(daemon) == before


def test_unauthorised_retained_oversized_and_replayed_commands(
        table: tuple[TableDaemon, MemoryPublisher]) -> None:
    daemon, publisher = table
    in_hand(daemon, publisher)
    before = shown(daemon)

    # a user with no role, and a display: not authorised
    for user in ("mallory", "display-rel"):
        replies = send(daemon, publisher, "misdeal", command("m1"), user=user)
        assert [r["error"]["code"] for r in replies] == ["not_authorised"]
    # recall and replay too
    replies = send(daemon, publisher, "replay", command("p1", {"epoch": 1, "from_seq": 1,
                                                                "to_seq": 5}), user="mallory")
    assert [r["error"]["code"] for r in replies] == ["not_authorised"]
    # a retained command is never executed
    replies = send(daemon, publisher, "misdeal", command("m2"), retain=True)
    assert [r["error"]["code"] for r in replies] == ["stale_command"]
    # a command on a malformed topic names no sender to answer: dropped
    sent = len(publisher.sent)
    replies = send(daemon, publisher, "", command("m3"),
                   topic=f"poker/v1/tables/{TABLE}/cmd/misdeal")
    assert replies == [] and len(publisher.sent) == sent
    # an oversized command (an id beyond 128 characters; args of 200 kB)
    replies = send(daemon, publisher, "misdeal", json.dumps({"id": "x" * 129}).encode())
    assert [r["error"]["code"] for r in replies] == ["bad_args"]
    replies = send(daemon, publisher, "action",
                   command("big", {"seat": 1, "kind": "fold", "note": "x" * 200_000}))
    assert replies[0]["status"] == "error" and replies[0]["error"]["code"]
    assert shown(daemon) == before

    # replayed: the same id again gets the first reply and applies nothing more
    first = send(daemon, publisher, "misdeal", command("kill-1"))
    assert first[0]["status"] == "ok"
    after = shown(daemon)
    assert after != before
    again = send(daemon, publisher, "misdeal", command("kill-1"))
    assert again == first and shown(daemon) == after


# ---- serial line noise ---------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(noise=st.lists(st.binary(min_size=1, max_size=64), max_size=8))
def test_line_noise_never_becomes_a_read(noise: list[bytes]) -> None:
    host = Session(LinkEnd.HOST, now=0.0, nonce=lambda: 7)
    host.connect(0.0)
    host.data_to_send()
    delivered = []
    for i, chunk in enumerate(noise):
        delivered += [e for e in host.receive_data(chunk, 0.01 * i) if isinstance(e, Received)]
        delivered += [e for e in host.receive_data(chunk + b"\x00", 0.01 * i)
                      if isinstance(e, Received)]
    assert delivered == []


# ---- config files ----------------------------------------------------------------------------

BAD_CONFIGS = {
    "not-toml": ("[table\nid = 1", "toml"),
    "unknown-variant": ('deck = "{deck}"\n[table]\nid = "t"\n[game]\nvariant = "canasta"\n'
                        'structure = "no-limit"\n[game.stakes]\nsmall_blind = 1\n'
                        'big_blind = 2\n[[seats]]\nnumber = 1\nstack = 10\n[[seats]]\n'
                        'number = 2\nstack = 10\n[[sources]]\nkind = "manual"\n', "variant"),
    "missing-deck": ('deck = "/nonexistent/deck.csv"\n[table]\nid = "t"\n[game]\n'
                     'variant = "holdem"\nstructure = "no-limit"\n[game.stakes]\n'
                     'small_blind = 1\nbig_blind = 2\n[[seats]]\nnumber = 1\nstack = 10\n'
                     '[[seats]]\nnumber = 2\nstack = 10\n[[sources]]\nkind = "manual"\n',
                     "deck"),
    "negative-stack": ('deck = "{deck}"\n[table]\nid = "t"\n[game]\nvariant = "holdem"\n'
                       'structure = "no-limit"\n[game.stakes]\nsmall_blind = 1\n'
                       'big_blind = 2\n[[seats]]\nnumber = 1\nstack = -10\n[[seats]]\n'
                       'number = 2\nstack = 10\n[[sources]]\nkind = "manual"\n', "stack"),
}


@pytest.mark.parametrize("name", sorted(BAD_CONFIGS))
def test_bad_config_files_are_named_and_refused(tmp_path: Path, name: str) -> None:
    text, word = BAD_CONFIGS[name]
    path = tmp_path / "table.toml"
    path.write_text(text.replace("{deck}", str(ROOT / "config/decks/demo-red.csv"))
                    + f'[journal]\npath = "{tmp_path}/j.sqlite"\n')
    with pytest.raises(ConfigError) as info:
        load_config(path).load_decks()
    assert word.lower() in str(info.value).lower()


def test_tablectl_run_with_a_bad_config_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    text, _word = BAD_CONFIGS["unknown-variant"]
    path.write_text(text.replace("{deck}", str(ROOT / "config/decks/demo-red.csv"))
                    + f'[journal]\npath = "{tmp_path}/j.sqlite"\n')
    proc = subprocess.run([sys.executable, "-m", "tablectl", "run", "--config", str(path)],
                          capture_output=True, text=True, timeout=60, cwd=ROOT, check=False)
    assert proc.returncode == 2, proc.stderr
    assert "variant" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "j.sqlite").exists()
