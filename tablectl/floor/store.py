"""Where the floor keeps its history: the :class:`Store` seam and its in-memory twin.

A store takes a batch of events and snapshots in :meth:`Store.ingest` and, atomically (all or
nothing), records the new events, advances every stream they touch with
:func:`~tablectl.floor.fold.advance` and writes the rows that come out. The shell acknowledges
the batch's MQTT messages only after ``ingest`` returned, so a crash anywhere before leaves
them unacknowledged and the broker delivers them again, and a crash after is harmless because
nothing is applied twice (an event at or below a stream's ``applied`` seq is a duplicate).

:class:`MemoryStore` is production code with the same behaviour as the PostgreSQL store
(``tablectl.floor.pg``), for unit tests and for ``tablectl floor`` runs without a database.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Protocol

from tablectl.floor.fold import StreamState, advance
from tablectl.floor.model import (
    ActionRow,
    BoardRow,
    FlagRow,
    FloorEvent,
    FloorSnapshot,
    Gap,
    HandEndRow,
    HandRow,
    HandSummary,
    PotRow,
    QuarantineRow,
    Row,
    ShowdownRow,
    UndoRow,
    WinnerRow,
    named_winners,
)
from tablectl.floor.rules import HouseRules


class StoreUnavailableError(RuntimeError):
    """The store cannot be reached (the database went away): nothing of the batch was kept."""


class StoreSetupError(StoreUnavailableError):
    """The database is not set up for the floor: it does not exist, or the server refuses
    the login. Waiting does not help: ``floor run`` stops at once with what to do (a worker
    already running keeps trying, as for any database that went away)."""


class StoreRefusedError(ValueError):
    """The store refused the batch for what is in it (a value its columns cannot hold):
    nothing of the batch was kept, and the same batch would be refused again. The service
    splits the batch to store the good messages and quarantine the bad one."""


@dataclass(slots=True)
class IngestResult:
    """What one :meth:`Store.ingest` did.

    Attributes:
        applied: events folded into rows.
        duplicates: events that were already applied (or twice in the batch).
        waiting: events kept until the gap before them is filled.
        rows: rows written.
        flags: jackpot / high-hand flags raised.
        gaps: streams with a missing range after this batch.
    """

    applied: int = 0
    duplicates: int = 0
    waiting: int = 0
    rows: int = 0
    flags: list[FlagRow] = field(default_factory=list)
    gaps: list[Gap] = field(default_factory=list)


class Store(Protocol):
    """The floor's history (see the module docstring)."""

    def ingest(self, events: Sequence[FloorEvent],
               snapshots: Sequence[FloorSnapshot] = ()) -> IngestResult:
        """Record a batch atomically.

        Raises:
            StoreUnavailableError: nothing was recorded; try the same batch again later.
        """
        ...

    def gaps(self) -> list[Gap]:
        """Every stream's first missing range (events beyond it are waiting)."""
        ...

    def quarantine(self, rows: Sequence[QuarantineRow]) -> None:
        """Set messages aside atomically (the same topic and digest again: one row, its
        count and last time go up).

        Raises:
            StoreUnavailableError: nothing was kept; try again later.
        """
        ...

    def quarantined(self, *, table: str | None = None, limit: int = 100
                    ) -> list[QuarantineRow]:
        """Messages set aside, the most recent first, optionally of one table."""
        ...

    def hands(self, *, table: str | None = None, since: datetime | None = None,
              limit: int = 100) -> list[HandSummary]:
        """Hands, oldest first, optionally of one table and started at or after ``since``."""
        ...

    def close(self) -> None:
        """Release the connection."""
        ...


def latest_by_stream(snapshots: Iterable[FloorSnapshot]) -> dict[tuple[str, str], int]:
    """The highest snapshot seq per stream."""
    out: dict[tuple[str, str], int] = {}
    for snap in snapshots:
        out[snap.stream] = max(out.get(snap.stream, 0), snap.seq)
    return out


def table_info(snapshot: FloorSnapshot) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The game and stakes a snapshot names (None when it does not)."""
    game, stakes = snapshot.data.get("game"), snapshot.data.get("stakes")
    return (dict(game) if isinstance(game, dict) else None,
            dict(stakes) if isinstance(stakes, dict) else None)


@dataclass
class _Stream:
    state: StreamState
    max_seen: int = 0
    order: int = 0


@dataclass
class _Hand:
    row: HandRow
    end: HandEndRow | None = None


class MemoryStore:
    """A :class:`Store` in memory (see the module docstring).

    Attributes:
        events: every event recorded, by ``(table, epoch, seq)``.
        rows: every row written, by kind (``"actions"``, ``"boards"``, ...), in order.
        undone: keys of actions a correction took back.
        tables: per table, its latest snapshot's game, stakes and data.
        fail_next: when set, the next :meth:`ingest` raises :class:`StoreUnavailableError`
            (and keeps nothing), as a database that went away does.
        refuse: when set, :meth:`ingest` raises :class:`StoreRefusedError` (and keeps
            nothing) for a batch holding an event it returns a reason for, as a database
            refuses a value its column cannot hold.
        held: the messages set aside, by ``(topic, digest)``.
    """

    def __init__(self, rules: HouseRules | None = None) -> None:
        self.rules = rules
        self.events: dict[tuple[str, str, int], FloorEvent] = {}
        self.streams: dict[tuple[str, str], _Stream] = {}
        self.hands_by_id: dict[str, _Hand] = {}
        self.rows: dict[str, list[Row]] = {k: [] for k in (
            "actions", "boards", "pots", "showdowns", "winners", "flags")}
        self.undone: set[tuple[str, str, int]] = set()
        self.tables: dict[str, dict[str, Any]] = {}
        self.fail_next = False
        self.refuse: Callable[[FloorEvent], str | None] | None = None
        self.held: dict[tuple[str, str], QuarantineRow] = {}

    def ingest(self, events: Sequence[FloorEvent],
               snapshots: Sequence[FloorSnapshot] = ()) -> IngestResult:
        """See :meth:`Store.ingest`."""
        if self.fail_next:
            self.fail_next = False
            raise StoreUnavailableError("memory store told to fail")
        if self.refuse is not None:
            for ev in events:
                if (why := self.refuse(ev)) is not None:
                    raise StoreRefusedError(why)
        result = IngestResult()
        for snap in snapshots:
            game, stakes = table_info(snap)
            info = self.tables.setdefault(snap.table, {})
            info.update(epoch=snap.epoch, data=dict(snap.data), seq=snap.seq)
            if game is not None:
                info["game"] = game
            if stakes is not None:
                info["stakes"] = stakes
        seen = latest_by_stream(snapshots)
        by_stream: dict[tuple[str, str], dict[int, FloorEvent]] = {}
        for ev in events:
            by_stream.setdefault(ev.stream, {})
            self.tables.setdefault(ev.table, {})
        for key in sorted({*by_stream, *seen}):
            stream = self._stream(key)
            batch = by_stream.get(key, {})
            for ev in [e for e in events if e.stream == key]:
                if ev.seq <= stream.state.applied or ev.key in self.events:
                    result.duplicates += 1
                    continue
                self.events[ev.key] = ev
                batch[ev.seq] = ev
            pending = {k[2]: e for k, e in self.events.items()
                       if k[:2] == key and k[2] > stream.state.applied}
            info = self.tables.get(key[0], {})
            step = advance(key, stream.state, pending,
                           max_seen=max(stream.max_seen, seen.get(key, 0)), rules=self.rules,
                           game=info.get("game"), stakes=info.get("stakes"))
            stream.state = step.state
            stream.max_seen = max(stream.max_seen, seen.get(key, 0), *pending, 0)
            self._write(step.rows, result)
            result.applied += len(step.applied)
            result.waiting += len(pending) - len(step.applied)
        result.gaps = self.gaps()
        return result

    def _stream(self, key: tuple[str, str]) -> _Stream:
        stream = self.streams.get(key)
        if stream is None:
            previous = max((s for k, s in self.streams.items() if k[0] == key[0]),
                           key=lambda s: s.order, default=None)
            stream = _Stream(StreamState.carried(previous.state if previous else None),
                             order=len(self.streams) + 1)
            self.streams[key] = stream
        return stream

    def _write(self, rows: Sequence[Row], result: IngestResult) -> None:
        for row in rows:
            result.rows += 1
            if isinstance(row, HandRow):
                self.hands_by_id.setdefault(row.id, _Hand(row))
            elif isinstance(row, HandEndRow):
                hand = self.hands_by_id.get(row.hand_id)
                if hand is not None and hand.end is None:
                    hand.end = row
            elif isinstance(row, UndoRow):
                self.undone.add((row.table, row.epoch, row.seq))
            else:
                kind = _KIND[type(row)]
                self.rows[kind].append(row)
                if isinstance(row, FlagRow):
                    result.flags.append(row)

    def gaps(self) -> list[Gap]:
        """See :meth:`Store.gaps`."""
        out = []
        for key, stream in sorted(self.streams.items()):
            if stream.max_seen <= stream.state.applied:
                continue
            waiting = [k[2] for k in self.events if k[:2] == key and k[2] > stream.state.applied]
            end = min(waiting) - 1 if waiting else stream.max_seen
            out.append(Gap(key[0], key[1], stream.state.applied + 1, end))
        return out

    def quarantine(self, rows: Sequence[QuarantineRow]) -> None:
        """See :meth:`Store.quarantine`."""
        for row in rows:
            key = (row.topic, row.digest)
            old = self.held.get(key)
            self.held[key] = replace(row, last_at=row.received_at) if old is None else replace(
                old, count=old.count + 1, last_at=row.received_at)

    def quarantined(self, *, table: str | None = None, limit: int = 100
                    ) -> list[QuarantineRow]:
        """See :meth:`Store.quarantined`."""
        rows = [r for r in self.held.values() if table is None or r.table == table]
        rows.sort(key=lambda r: r.last_at or r.received_at, reverse=True)
        return rows[:limit]

    def hands(self, *, table: str | None = None, since: datetime | None = None,
              limit: int = 100) -> list[HandSummary]:
        """See :meth:`Store.hands`."""
        chosen = [h for h in self.hands_by_id.values()
                  if (table is None or h.row.table == table)
                  and (since is None or h.row.started_at >= since)]
        chosen.sort(key=lambda h: (h.row.started_at, h.row.id))
        return [self._summary(h) for h in chosen[:limit]]

    def _summary(self, hand: _Hand) -> HandSummary:
        row, end = hand.row, hand.end
        runs = end.runs if end else 1
        winners = tuple({"seat": w.seat, "amount": w.amount, "half": w.half, "pot": w.pot,
                         **({"run": w.run} if runs > 1 else {}),
                         **({"board": w.board} if row.boards > 1 else {})}
                        for w in self.rows["winners"]
                        if isinstance(w, WinnerRow) and w.hand_id == row.id)
        last: dict[tuple[int, int], BoardRow] = {}
        for b in self.rows["boards"]:
            if isinstance(b, BoardRow) and b.hand_id == row.id:
                last[(b.run, b.board)] = b
        boards = tuple({"run": r, "board": n, "cards": list(last[(r, n)].cards)}
                       for r, n in sorted(last))
        flags = tuple(f.rule for f in self.rows["flags"]
                      if isinstance(f, FlagRow) and f.hand_id == row.id)
        game = row.game.get("label") if row.game else None
        data = self.tables.get(row.table, {}).get("data", {})
        table_name = data.get("table_name") if isinstance(data, dict) else None
        return HandSummary(id=row.id, table=row.table, name=row.name, number=row.number,
                           game=str(game) if game is not None else None,
                           started_at=row.started_at, ended_at=end.ended_at if end else None,
                           result=end.result if end else None, pot=end.pot if end else None,
                           winners=named_winners(winners, row.seats), flags=flags,
                           stakes=row.stakes,
                           table_name=table_name if isinstance(table_name, str) else None,
                           runs=runs, boards=boards, double_board=row.boards > 1,
                           bomb=row.bomb)

    def actions_of(self, hand: str) -> list[ActionRow]:
        """The standing actions of a hand, in order (undone ones left out)."""
        return [r for r in self.rows["actions"] if isinstance(r, ActionRow)
                and r.hand_id == hand and (r.table, r.epoch, r.seq) not in self.undone]

    def counts(self) -> Mapping[str, int]:
        """Rows per kind (hands included), for tests and ``floor`` status lines."""
        return {"hands": len(self.hands_by_id), **{k: len(v) for k, v in self.rows.items()}}

    def close(self) -> None:
        """Nothing to release."""


_KIND: dict[type, str] = {ActionRow: "actions", BoardRow: "boards", PotRow: "pots",
                          ShowdownRow: "showdowns", WinnerRow: "winners", FlagRow: "flags"}

__all__ = ["IngestResult", "MemoryStore", "Store", "StoreRefusedError", "StoreUnavailableError",
           "latest_by_stream", "table_info"]

