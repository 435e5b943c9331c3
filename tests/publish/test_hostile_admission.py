"""The refusals before the controller (``tablectl.publish.admission``) and the daemon's table
id conflict, as values: bounded tables, shared stranger bucket, counted refusals written as
one record, the conflict on the snapshot with one ERROR."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tablectl.app import initial_state, table_setup
from tablectl.clock import ManualClock
from tablectl.config import load_config
from tablectl.daemon import TableDaemon
from tablectl.journal import MemoryJournal
from tablectl.metrics import TableMetrics
from tablectl.publish import topics
from tablectl.publish.admission import AccessLimits, Admission, RateLimit, Turned
from tablectl.publish.base import IncomingMessage, MemoryPublisher
from tests.reliability.harness import VARIANTS, write_config

AT = datetime(2026, 12, 2, 19, 0, tzinfo=UTC)
PERMS = {"dealer": frozenset({"start_hand"}), "display": frozenset()}


def msg(user: str, name: str = "start_hand", payload: bytes = b'{"id":"x"}') -> IncomingMessage:
    return IncomingMessage(topics.cmd("t1", name, user), payload)


def test_strangers_share_one_bucket_whatever_their_names() -> None:
    gate = Admission("t1", {}, PERMS, AccessLimits(strangers=RateLimit(1.0, 20)))
    codes = [v.code for v in (gate.admit(msg(f"u{i}"), 0.0, AT) for i in range(25))
             if isinstance(v, Turned)]
    assert codes == ["not_authorised"] * 20 + ["rate_limited"] * 5
    assert gate.tracked_users == 1


def test_the_table_of_users_is_bounded() -> None:
    roles = {f"dealer{i}": "dealer" for i in range(5000)}
    gate = Admission("t1", roles, PERMS, AccessLimits(max_users=16))
    for i in range(5000):
        assert not isinstance(gate.admit(msg(f"dealer{i}"), i * 0.001, AT), Turned)
    assert gate.tracked_users == 16


def test_a_run_of_rate_limited_is_answered_once_and_counted_into_one_record() -> None:
    gate = Admission("t1", {"d": "dealer"}, PERMS,
                     AccessLimits(staff=RateLimit(1.0, 2), aggregate_every=60.0))
    verdicts = [gate.admit(msg("d"), 0.0, AT) for _ in range(10)]
    limited = [v for v in verdicts if isinstance(v, Turned)]
    assert [v.reply is not None for v in limited] == [True] + [False] * 7
    assert all(v.record is None for v in limited)
    assert gate.due(1.0, AT) == []                 # not yet a minute
    (record,) = gate.due(61.0, AT)
    assert (record.user, record.code, record.count, record.digest) == ("d", "rate_limited", 8,
                                                                       None)
    assert gate.due(200.0, AT) == []               # counted once
    # the bucket refills: answered again
    assert not isinstance(gate.admit(msg("d"), 300.0, AT), Turned)


def test_a_refusal_record_is_bounded_whatever_the_payload() -> None:
    gate = Admission("t1", {}, PERMS)
    verdict = gate.admit(msg("mallory", payload=b"x" * 5_000_000), 0.0, AT)
    assert isinstance(verdict, Turned) and verdict.record is not None
    record = verdict.record
    assert (record.size, len(record.digest or b""), record.code) == (5_000_000, 32,
                                                                     "bad_request")
    assert len(record.topic) <= 160 and len(record.reason) <= 160


def test_a_table_id_conflict_is_one_error_and_shows_on_the_snapshot(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    variant, structure, stakes = VARIANTS[1]
    config = load_config(write_config(tmp_path, "mqtt://127.0.0.1:1", variant, structure,
                                      stakes))
    clock = ManualClock()
    daemon = TableDaemon(table_setup(config), initial_state(config), MemoryJournal(clock),
                         MemoryPublisher(), clock=clock)
    daemon.recover()
    caplog.set_level(logging.INFO)
    for _ in range(5):
        daemon.table_conflict("00000000000000ff")
    errors = daemon.public_snapshot()["errors"]
    assert isinstance(errors, list)
    assert [e["code"] for e in errors if isinstance(e, dict)] == ["table_id_conflict"]
    assert sum(r.levelno == logging.ERROR for r in caplog.records) == 1
    daemon.table_conflict(None)
    assert daemon.public_snapshot()["errors"] == []


def test_every_refusal_is_counted_in_the_metrics_even_when_only_aggregated(
        tmp_path: Path) -> None:
    variant, structure, stakes = VARIANTS[1]
    config = load_config(write_config(tmp_path, "mqtt://127.0.0.1:1", variant, structure,
                                      stakes))
    clock = ManualClock()
    daemon = TableDaemon(table_setup(config), initial_state(config), MemoryJournal(clock),
                         MemoryPublisher(), clock=clock)
    daemon.recover()
    daemon.metrics = TableMetrics(variant)

    async def send() -> None:
        await daemon.handle_message(IncomingMessage(topics.cmd(daemon.table, "start_hand",
                                                               "mallory"), b"{"))
        for _ in range(40):                 # a stranger past the shared bucket
            await daemon.handle_message(IncomingMessage(
                topics.cmd(daemon.table, "start_hand", "stranger"), b'{"id":"x"}'))

    asyncio.run(send())
    registry = daemon.metrics.registry

    def refused(code: str) -> float:
        return registry.get_sample_value("tablectl_refusals_total", {"code": code}) or 0.0

    assert refused("bad_request") == 1
    assert refused("not_authorised") + refused("rate_limited") == 40
    assert refused("rate_limited") > 0
