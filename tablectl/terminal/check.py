"""The display-truth check: does what a display shows equal the snapshot the daemon published?

:func:`differences` compares what a view shows (its run, seq and snapshot body, and whether
it says it is not live) with a snapshot envelope as the daemon published it, field by field:
the run, the hand, phase, street, button, who acts, board, pots, results and every seat. A
view that says it is not live (stale, resyncing, waiting for a snapshot) is not wrong, only
not live: that is reported apart (:attr:`Verdict.live`).

:class:`DisplayCheck` runs it on a :class:`~tablectl.terminal.follow.TableFollower` at every
snapshot of the table (sans-IO: feed it the messages); :func:`check_table` on a live broker is
``tablectl watch --check``. The same :func:`differences` serves the tests that check the web
server's view (``tablectl.web.sync.PublicSync.view``).

>>> snap = {"hand": {"id": "t-1", "number": 1}, "phase": "settled", "to_act": None,
...         "button": 2, "seats": [{"seat": 1, "name": "Ada", "stack": 900}]}
>>> pub = {"journal": "ab", "epoch": 1, "seq": 9, "data": snap}
>>> differences(Shown(Run("ab", 1), 9, snap), pub)
[]
>>> differences(Shown(Run("ab", 1), 9, {**snap, "to_act": {"seat": 1}}), pub)
['to act: shows seat 1, published nobody']
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Final, TextIO

from tablectl.publish import topics
from tablectl.publish.errors import PublishError
from tablectl.publish.mqtt import MqttPublisher
from tablectl.publish.mqtt_settings import MqttSettings
from tablectl.publish.runs import Run
from tablectl.terminal.follow import TableFollower, connect_within, decode_feed
from tablectl.terminal.view import JsonMap

SEAT_FIELDS: Final = ("name", "stack", "bet", "status")


@dataclass(frozen=True, slots=True)
class Shown:
    """What a view shows: its run and seq, the snapshot body it draws, and whether it says
    that it is not live (stale, resyncing or waiting)."""

    run: Run | None
    seq: int | None
    snapshot: JsonMap | None
    not_live: bool = False


def _map(value: object) -> JsonMap:
    return value if isinstance(value, Mapping) else {}


def _list(value: object) -> list[object]:
    return list(value) if isinstance(value, list | tuple) else []


def _seat_of(value: object) -> str:
    seat = _map(value).get("seat")
    return "nobody" if seat is None else f"seat {seat}"


def _cards(seat: JsonMap) -> list[object]:
    return [_map(c).get("card") for c in _list(seat.get("cards"))]


def _table_facts(snap: JsonMap) -> dict[str, object]:
    """What a display must show of a snapshot body, by name."""
    facts: dict[str, object] = {
        "hand": _map(snap.get("hand")).get("number"),
        "phase": snap.get("phase"),
        "street": snap.get("street"),
        "button": snap.get("button"),
        "to act": _seat_of(snap.get("to_act")),
        "board": _list(snap.get("board")),
        "pots": [_map(p).get("amount") for p in _list(snap.get("pots"))],
        "results": sorted((str(_map(r).get("seat")), str(_map(r).get("amount")))
                          for r in _list(snap.get("results"))),
        "errors": [_map(e).get("code") for e in _list(snap.get("errors"))],
    }
    for seat in _list(snap.get("seats")):
        s = _map(seat)
        if s.get("status") == "empty":
            continue
        for name in SEAT_FIELDS:
            facts[f"seat {s.get('seat')} {name}"] = s.get(name)
        facts[f"seat {s.get('seat')} cards"] = _cards(s)
    return facts


def _text(value: object) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"))


def differences(shown: Shown, published: JsonMap) -> list[str]:
    """Each way ``shown`` differs from the ``published`` snapshot envelope, as one line
    (empty: it shows exactly that snapshot)."""
    run = Run.of(published)
    body = _map(published.get("data"))
    out: list[str] = []
    if shown.run != run:
        out.append(f"run: shows {shown.run}, published {run}")
    if shown.seq != published.get("seq"):
        out.append(f"seq: shows {shown.seq}, published {published.get('seq')}")
    if shown.snapshot is None:
        out.append("shows no table, published one")
        return out
    have, want = _table_facts(shown.snapshot), _table_facts(body)
    for name in dict.fromkeys([*want, *have]):
        if have.get(name) != want.get(name):
            out.append(f"{name}: shows {_text(have.get(name))}, "
                       f"published {_text(want.get(name))}")
    return out


@dataclass(frozen=True, slots=True)
class Verdict:
    """The check of one published snapshot.

    Attributes:
        run, seq: the snapshot's.
        live: the view claimed to be live (it did not say stale, resyncing or waiting).
        differences: how it differed (see :func:`differences`); a view that is not live is
            allowed to differ, so :attr:`wrong` counts only a live one.
    """

    run: Run | None
    seq: object
    live: bool
    differences: tuple[str, ...] = field(default_factory=tuple)

    @property
    def wrong(self) -> bool:
        """The view claimed to be live and showed something else than the snapshot."""
        return self.live and bool(self.differences)

    def line(self) -> str:
        """One line for the report."""
        where = f"snapshot {self.run} seq {self.seq}"
        if not self.differences:
            return f"ok {where}"
        head = "DIFFERS" if self.live else "not live (says so)"
        return f"{head} {where}: " + "; ".join(self.differences)


class DisplayCheck:
    """Follows one table like ``tablectl watch`` and checks its view at every snapshot."""

    def __init__(self, table: str) -> None:
        self.follower = TableFollower(table)
        self._state = topics.state(table).value
        self.verdicts: list[Verdict] = []

    @property
    def wrong(self) -> int:
        """How many snapshots a live view showed wrongly."""
        return sum(v.wrong for v in self.verdicts)

    def shown(self) -> Shown:
        """What the follower's view shows now."""
        f = self.follower
        view = f.view
        return Shown(f.run, f.seq if view.snapshot is not None else None, view.snapshot,
                     not_live=view.stale or view.snapshot is None)

    def feed(self, topic: str, payload: bytes, *, now: float) -> Verdict | None:
        """Take one message; after a snapshot of the table, the verdict on the view."""
        self.follower.feed(topic, payload, now=now)
        if topic != self._state:
            return None
        published = decode_feed(topic, payload)
        if published is None:
            return None
        shown = self.shown()
        verdict = Verdict(Run.of(published), published.get("seq"), not shown.not_live,
                          tuple(differences(shown, published)))
        self.verdicts.append(verdict)
        return verdict


async def check_table(settings: MqttSettings, check: DisplayCheck, *,
                      on_verdict: Callable[[DisplayCheck, Verdict], Awaitable[bool]],
                      monotonic: Callable[[], float],
                      on_subscribed: Callable[[], None] = lambda: None,
                      done: Callable[[DisplayCheck], bool] = lambda _check: False,
                      grace: float = 2.0, seconds: float | None = None) -> None:
    """Subscribe to the check's table and call ``on_verdict`` at every snapshot; stop when it
    returns False, or at most ``grace`` seconds after ``done`` (asked after every message)
    first said True: the snapshot that follows the last hand's end is still checked, and a
    table that stops publishing right then does not keep the check waiting; or ``seconds``
    after the start. Raises what :class:`MqttPublisher` raises on connect (a broker not
    reached within ``seconds``, at least ``MIN_CONNECT_WAIT``, too: never a quiet table)."""
    start = monotonic()
    async with MqttPublisher(connect_within(settings, seconds)) as client:
        left = None if seconds is None else max(0.0, seconds - (monotonic() - start))
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(left):
                await _check_messages(client, check, on_verdict=on_verdict,
                                      monotonic=monotonic, on_subscribed=on_subscribed,
                                      done=done, grace=grace)


async def _check_messages(client: MqttPublisher, check: DisplayCheck, *,
                          on_verdict: Callable[[DisplayCheck, Verdict], Awaitable[bool]],
                          monotonic: Callable[[], float], on_subscribed: Callable[[], None],
                          done: Callable[[DisplayCheck], bool], grace: float) -> None:
    for flt in check.follower.filters:
        await client.subscribe(flt)
    on_subscribed()
    messages = aiter(client.messages())
    deadline: float | None = None
    while True:
        try:
            async with asyncio.timeout_at(deadline):
                msg = await anext(messages)
        except (TimeoutError, StopAsyncIteration):
            return
        verdict = check.feed(msg.topic.value, msg.payload, now=monotonic())
        if verdict is not None and not await on_verdict(check, verdict):
            return
        if deadline is None and done(check):
            deadline = asyncio.get_running_loop().time() + grace


async def watch_check(settings: MqttSettings, table: str, *, hands: int | None,
                      seconds: float | None, emit: Callable[[str], None],
                      monotonic: Callable[[], float]) -> int:
    """``tablectl watch --check``: one line per snapshot checked and per difference; stop
    once ``hands`` hands ended or after ``seconds`` (never, when both are None).

    Returns:
        The exit status: 1 if a live view differed from a snapshot, or if no snapshot came;
        0 otherwise.
    """
    def enough(check: DisplayCheck) -> bool:
        return hands is not None and check.follower.hands_ended >= hands

    async def on_verdict(check: DisplayCheck, verdict: Verdict) -> bool:
        emit(verdict.line())
        return not enough(check)

    check = DisplayCheck(table)
    await check_table(settings, check, on_verdict=on_verdict, monotonic=monotonic,
                      on_subscribed=lambda: emit(f"checking table {table}: the view "
                                                 "against every snapshot"),
                      done=enough, seconds=seconds)
    verdicts = check.verdicts
    wrong = sum(v.wrong for v in verdicts)
    emit(f"checked {len(verdicts)} snapshots of table {table}: "
         + (f"{wrong} differed" if wrong else "no difference" if verdicts else "none came"))
    return 1 if wrong or not verdicts else 0


def run_watch_check(settings: MqttSettings, table: str, *, hands: int | None,
                    seconds: float | None, out: TextIO, err: TextIO) -> int:
    """``tablectl watch --check`` from the command line (``hands`` and ``seconds`` bounded by
    its parser): lines on ``out``, errors on ``err``, and the exit status."""

    def emit(line: str) -> None:
        out.write(line + "\n")
        out.flush()

    async def main() -> int:
        loop = asyncio.get_running_loop()
        return await watch_check(settings, table, hands=hands, seconds=seconds, emit=emit,
                                 monotonic=loop.time)

    try:
        return asyncio.run(main())
    except PublishError as exc:
        err.write(f"tablectl watch --check: {exc}\n")
        return 1
    except KeyboardInterrupt:
        return 130
