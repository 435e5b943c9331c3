"""Fuzzing the floor's event decoder (issue 25): whatever comes on a table's topic, nothing but
:class:`FloorInputError` escapes the decoder; what it accepts folds without an exception and
PostgreSQL stores it; what it refuses changes nothing.

Inputs are good envelopes of every event type (``tests/floor/streams.py``) with one field
replaced by a hostile value (huge integers, NaN, Infinity, control characters, wrong types,
deep nesting), or cut, or raw bytes.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import itertools
import json
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablectl.floor.decode import decode_event, decode_snapshot
from tablectl.floor.model import FloorEvent, FloorInputError, QuarantineRow
from tablectl.floor.pg import PgStore
from tablectl.floor.service import FloorService, FloorSettings
from tablectl.floor.store import MemoryStore
from tablectl.publish.base import IncomingMessage
from tablectl.publish.topics import Topic
from tests.floor.conftest import create_database, database_url, drop_database
from tests.floor.stack import db_rows
from tests.floor.streams import stream

GOOD = stream("t1", 1, 1)
"""Every public event type of one hand."""

_SCALARS = (st.none() | st.booleans()
            | st.integers(min_value=-(2**70), max_value=2**70)
            | st.sampled_from([2**53, 2**63, -(2**63) - 1, 2**31, -1, 0, 11])
            | st.floats(allow_nan=True, allow_infinity=True)
            | st.text(max_size=12)
            | st.sampled_from(["\u0000", "x\u0000y", "\ud800", "Zz", "Ah", "\n", "é" * 40]))
JSON = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=10)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, sub in value.items():
            out += _paths(sub, (*prefix, key))
    elif isinstance(value, list):
        for i, sub in enumerate(value):
            out += _paths(sub, (*prefix, i))
    return out


@st.composite
def hostile(draw: st.DrawFn) -> bytes:
    """A good envelope with one hostile change, or raw bytes."""
    kind = draw(st.sampled_from(["field", "field", "field", "drop", "cut", "bytes", "deep"]))
    if kind == "bytes":
        return draw(st.binary(max_size=300))
    envelope = copy.deepcopy(draw(st.sampled_from(GOOD)))
    if kind == "deep":
        depth = draw(st.integers(min_value=1, max_value=3000))
        envelope["data"]["x"] = "@"
        return json.dumps(envelope).replace('"@"', "[" * depth + "]" * depth).encode()
    path = draw(st.sampled_from(_paths(envelope)))
    parent = envelope
    for key in path[:-1]:
        parent = parent[key]
    if kind == "drop" and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = draw(JSON)
    text = json.dumps(envelope, allow_nan=True)
    if kind == "cut":
        text = text[:draw(st.integers(min_value=0, max_value=len(text)))]
    return text.encode("utf-8", "surrogatepass")


def decoded(raw: bytes) -> FloorEvent | None:
    """The event, or None when refused (any other exception fails the test)."""
    try:
        return decode_event(raw, "t1")
    except FloorInputError:
        return None


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=hostile())
def test_only_floor_input_errors_escape_and_what_is_accepted_folds(raw: bytes) -> None:
    event = decoded(raw)
    with contextlib.suppress(FloorInputError):
        decode_snapshot(raw, "t1")
    if event is None:
        return
    store = MemoryStore()
    store.ingest([decode_event(json.dumps(e).encode(), "t1") for e in GOOD if e["seq"] < 6])
    store.ingest([replace(event, seq=6)])       # folds without an exception
    json.dumps(store.streams[event.stream].state.to_json(), allow_nan=False)


class _Idle:
    """A worker's broker client that is never used: the test hands messages over itself."""

    async def publish(self, *_: object, **__: object) -> None:
        raise AssertionError("nothing is published")

    async def subscribe(self, *_: object, **__: object) -> None:
        raise AssertionError("nothing is subscribed")

    def messages(self) -> Any:
        raise AssertionError("nothing is read")

    def ack(self, msg: IncomingMessage) -> None:
        raise AssertionError("nothing is acknowledged")


@pytest.fixture(scope="module")
def pg_store() -> Iterator[PgStore]:
    name = create_database("floor_fuzz")
    store = PgStore(database_url(name))
    try:
        yield store
    finally:
        store.close()
        drop_database(name)


_RUNS = itertools.count(1000)


def _history(store: PgStore) -> dict[str, int]:
    return {k: v for k, v in store.counts().items() if k != "quarantine"}


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(raw=hostile())
def test_the_worker_stores_what_it_accepts_and_a_refusal_changes_no_history(
        pg_store: PgStore, raw: bytes) -> None:
    """The worker's own decode-and-store path into a real PostgreSQL: an accepted message
    is stored (PostgreSQL never refuses what the decoder accepted: before it, NUL, 2^63 or
    NaN did, and the batch was retried for ever); a refused one is quarantined and leaves
    the history as it was."""
    run = next(_RUNS)       # a stream per example (unless the example changed the epoch)
    raw = raw.replace(b'"epoch": 1,', f'"epoch": {run},'.encode())
    service = FloorService(FloorSettings(user="fuzz"), pg_store, _Idle())
    msg = IncomingMessage(Topic("poker/v1/tables/t1/events"), raw)

    async def one() -> list[QuarantineRow]:
        rejected: list[QuarantineRow] = []
        part = service._decode(msg, rejected)
        await service._store_parts([part] if part is not None else [], rejected)
        await service._set_aside(rejected)
        return rejected

    before, held = _history(pg_store), pg_store.counts()["quarantine"]
    try:
        rejected = asyncio.run(one())
    finally:
        service._executor.shutdown(wait=True)
    after = _history(pg_store)
    if rejected:
        assert after == before
        assert rejected[0].reason and pg_store.counts()["quarantine"] <= held + 1
        assert service.stats.quarantined == 1
    else:
        event = decoded(raw)
        assert event is not None
        assert db_rows(pg_store.url, "SELECT count(*) FROM events WHERE table_id = %s AND "
                       "epoch = %s AND seq = %s", event.key) == [(1,)]
