"""The world of the display-truth model test: a real mosquitto, the real table daemon (in
process, restartable on its journal or on a fresh one), the real web server (``WebServer`` on
a paho feed, on one port across its restarts) read over HTTP by a page that stays open (its
event stream reconnects like the browser's ``EventSource``, and can be reloaded) and by a page
loading afresh, and the terminal follower, each display behind its own fault relay that drops,
duplicates and delays what the broker delivers.

Everything asynchronous runs on one event loop in a thread of its own; the hypothesis state
machine calls into it and waits. Nothing here asserts: the test decides.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import random
import secrets
import socket
import threading
import time
import urllib.request
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from tablectl.app import run_daemon
from tablectl.clock import SystemClock
from tablectl.config import TableConfig
from tablectl.daemon import TableDaemon
from tablectl.publish.runs import Run
from tablectl.terminal.check import Shown
from tablectl.terminal.follow import TableFollower
from tablectl.web.auth import Users
from tablectl.web.link import FeedItem, LinkChange, LinkState, Message, table_topics
from tablectl.web.server import WebServer, WebSettings
from tests.conftest import Broker
from tests.controller.helpers import Dealer
from tests.web.test_fresh_journal import DaemonDriver, write_config

TABLE = "dt"
TOPICS = table_topics(TABLE)
STATE, EVENTS, STATUS = TOPICS
R = TypeVar("R")



def snapshot_key(snapshot: dict[str, Any]) -> tuple[Any, ...]:
    """Which snapshot of which run: (journal, epoch, seq)."""
    return (snapshot.get("journal"), snapshot.get("epoch"), snapshot.get("seq"))


def _client(prefix: str) -> mqtt.Client:
    client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5,
                         client_id=f"{prefix}-{secrets.token_hex(4)}")
    client.reconnect_delay_set(min_delay=0.05, max_delay=0.5)
    return client


@dataclass
class Faults:
    """What a relay does to the next messages it passes on."""

    drop_events: int = 0
    drop_state: bool = False
    duplicate: int = 0
    hold_state: bool = False


class Relay:
    """A subscriber to the table's topics that hands each message on to ``deliver`` through
    the faults asked for: drops, duplicates, and snapshots held back and delivered late."""

    def __init__(self, port: int, deliver: Callable[[str, bytes], None], name: str,
                 on_link: Callable[[bool], None] | None = None) -> None:
        self._deliver = deliver
        self._on_link = on_link or (lambda _up: None)
        self._lock = threading.Lock()
        self.faults = Faults()
        self._held: list[tuple[str, bytes]] = []
        self._delivered: set[tuple[Any, ...]] = set()
        self.last_delivery = self.last_arrival = time.monotonic()
        self.up = threading.Event()
        self._client = _client(f"relay-{name}")
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_message = self._on_message
        self._client.connect("127.0.0.1", port)
        self._client.loop_start()

    def _on_connect(self, client: mqtt.Client, *_a: Any) -> None:
        with self._lock:
            self._delivered.clear()     # what counts now is what this connection hands on
        client.subscribe([(t, 1) for t in TOPICS])
        self.up.set()
        self._on_link(True)

    def _on_disconnect(self, *_a: Any) -> None:
        self.up.clear()
        self._on_link(False)

    def _on_message(self, _c: mqtt.Client, _u: object, msg: mqtt.MQTTMessage) -> None:
        topic, payload = msg.topic, bytes(msg.payload)
        with self._lock:
            self.last_arrival = time.monotonic()
            f = self.faults
            if topic == EVENTS and f.drop_events > 0:
                f.drop_events -= 1
                return
            if topic == STATE and f.drop_state:
                f.drop_state = False
                return
            if topic == STATE and f.hold_state:
                f.hold_state = False
                self._held.append((topic, payload))
                return
            copies = 1
            if f.duplicate > 0:
                f.duplicate -= 1
                copies = 2
            for _ in range(copies):
                self._pass(topic, payload)

    def _pass(self, topic: str, payload: bytes) -> None:
        self.last_delivery = time.monotonic()
        self._deliver(topic, payload)
        if topic == STATE:
            self._delivered.add(snapshot_key(json.loads(payload)))

    def delivered(self, key: tuple[Any, ...]) -> bool:
        """Whether the snapshot ``key`` (:func:`snapshot_key`) has been handed on (the
        terminal has then taken it; the web server has it queued)."""
        with self._lock:
            return key in self._delivered

    def release_held(self) -> None:
        """Deliver the held snapshots now: late, after everything that followed them."""
        with self._lock:
            held, self._held = self._held, []
            for topic, payload in held:
                self._pass(topic, payload)

    def close(self) -> None:
        self._client.disconnect()
        self._client.loop_stop()


class RelayFeed:
    """A web server ``Feed`` fed by a :class:`Relay` (link changes follow the relay's)."""

    def __init__(self, port: int, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._queue: asyncio.Queue[FeedItem | None] = asyncio.Queue()
        self.relay = Relay(port, self._message, "web", on_link=lambda up: self._put(
            LinkChange(LinkState.UP if up else LinkState.DOWN)))

    def _put(self, item: FeedItem | None) -> None:
        self._loop.call_soon_threadsafe(self._queue.put_nowait, item)

    def _message(self, topic: str, payload: bytes) -> None:
        self._put(Message(topic, payload))

    async def __aiter__(self) -> Any:
        while (item := await self._queue.get()) is not None:
            yield item

    def close(self) -> None:
        self.relay.close()
        self._put(None)


class Auditor:
    """A clean subscriber (no faults): the latest snapshot the daemon published."""

    def __init__(self, port: int) -> None:
        self._lock = threading.Lock()
        self.latest: dict[str, Any] | None = None
        self._client = _client("auditor")
        self._client.on_connect = lambda c, *a: c.subscribe(STATE, qos=1)
        self._client.on_message = self._on_message
        self._client.connect("127.0.0.1", port)
        self._client.loop_start()

    def _on_message(self, _c: mqtt.Client, _u: object, msg: mqtt.MQTTMessage) -> None:
        with self._lock:
            self.latest = json.loads(msg.payload)

    def snapshot(self) -> dict[str, Any] | None:
        with self._lock:
            return self.latest

    def close(self) -> None:
        self._client.disconnect()
        self._client.loop_stop()


class Terminal:
    """The terminal follower behind its own relay."""

    def __init__(self, port: int) -> None:
        self._lock = threading.Lock()
        self.follower = TableFollower(TABLE)
        self.relay = Relay(port, self._feed, "terminal", on_link=self._link)

    def _link(self, up: bool) -> None:
        with self._lock:
            self.follower.link(up)

    def _feed(self, topic: str, payload: bytes) -> None:
        with self._lock:
            self.follower.feed(topic, payload, now=time.monotonic())

    def shown(self) -> Shown:
        with self._lock:
            f = self.follower
            view = f.view
            return Shown(f.run, f.seq if view.snapshot is not None else None, view.snapshot,
                         not_live=view.stale or view.snapshot is None)


class OpenPage:
    """A display page left open on ``/events/public``: the last view its stream sent. When
    the stream ends (the web server restarted) it reconnects, as the browser's
    ``EventSource`` does, and shows "no server" (not live) until it is back."""

    def __init__(self, port: int) -> None:
        self._port = port
        self._lock = threading.Lock()
        self._generation = 0
        self._conn: http.client.HTTPConnection | None = None
        self.view: dict[str, Any] | None = None
        self.connected = False
        self._closed = False
        self._start()

    def _start(self) -> None:
        with self._lock:
            self._generation += 1
            self.view, self.connected = None, False
            generation = self._generation
        threading.Thread(target=self._follow, args=(generation,), daemon=True).start()

    def _current(self, generation: int) -> bool:
        return not self._closed and generation == self._generation

    def _follow(self, generation: int) -> None:
        while self._current(generation):
            conn = http.client.HTTPConnection("127.0.0.1", self._port, timeout=30)
            try:
                with self._lock:
                    if not self._current(generation):
                        return
                    self._conn = conn
                conn.request("GET", "/events/public")
                for raw in conn.getresponse():
                    line = raw.decode().strip()
                    if not line.startswith("data: "):
                        continue
                    with self._lock:
                        if not self._current(generation):
                            return
                        self.view, self.connected = json.loads(line[6:]), True
            except (OSError, ValueError, http.client.HTTPException):
                pass
            finally:
                conn.close()
            with self._lock:
                if self._current(generation):
                    self.connected = False
            time.sleep(0.1)

    def _drop_stream(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None and conn.sock is not None:
            with contextlib.suppress(OSError):
                conn.sock.shutdown(socket.SHUT_RDWR)

    def reload(self) -> None:
        """The page reloaded: a new stream, nothing kept from the old one."""
        with self._lock:
            self._drop_stream()
        self._start()

    def shown(self) -> Shown:
        with self._lock:
            if self.view is None or not self.connected:
                return Shown(None, None, None, not_live=True)
            return World.page_shown(self.view)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._drop_stream()


@dataclass
class World:
    """Everything running for one example of the state machine."""

    broker: Broker
    tmp: Path
    loop: asyncio.AbstractEventLoop = field(default_factory=asyncio.new_event_loop)
    daemon_task: asyncio.Task[None] | None = None
    daemon: TableDaemon | None = None
    dealer: Dealer | None = None
    config: TableConfig | None = None
    journals: int = 0
    web: WebServer | None = None
    web_task: asyncio.Task[None] | None = None
    web_feed: RelayFeed | None = None
    web_url: str = ""
    web_port: int = 0
    page: OpenPage | None = None
    terminal: Terminal | None = None
    auditor: Auditor | None = None
    rng: random.Random = field(default_factory=lambda: random.Random(7))

    def __post_init__(self) -> None:
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()

    def call(self, make: Callable[[], Coroutine[Any, Any, R]], timeout: float = 30) -> R:
        return asyncio.run_coroutine_threadsafe(make(), self.loop).result(timeout)

    # ---- the daemon --------------------------------------------------------------------

    def start_daemon(self, *, fresh: bool) -> None:
        if fresh or self.config is None:
            self.journals += 1
            n = self.journals
            self.config = write_config(self.tmp, self.broker.port, f"j{n}",
                                       {1: 4000 + 100 * n, 2: 3000, 3: 2000 + 50 * n},
                                       table=TABLE, web=False)
            self.dealer = None
        config = self.config

        async def start() -> TableDaemon:
            ready: asyncio.Future[TableDaemon] = self.loop.create_future()
            self.daemon_task = asyncio.create_task(run_daemon(
                config, clock=SystemClock(), sources=[], ready=ready.set_result))
            return await asyncio.wait_for(ready, 20)

        self.daemon = self.call(start)
        if self.dealer is None:
            self.dealer = Dealer(DaemonDriver(self.daemon.controller, daemon=self.daemon),
                                 self.rng)
        else:        # the same journal: the controller was rebuilt, the hand goes on
            driver = self.dealer.d
            assert isinstance(driver, DaemonDriver)
            driver.daemon, driver.ctl = self.daemon, self.daemon.controller

    def stop_daemon(self) -> None:
        task = self.daemon_task

        async def stop() -> None:
            if task is not None and not task.done():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)

        self.call(stop)
        self.daemon_task = self.daemon = None

    def play(self, steps: int) -> None:
        """``steps`` dealer steps: cards, decisions, and between hands next_hand and
        start_hand."""
        dealer = self.dealer
        assert dealer is not None

        async def go() -> None:
            for _ in range(steps):
                if dealer.mirror is None or not dealer.step():
                    if dealer.mirror is not None:
                        dealer.d.cmd("next_hand")
                    dealer.start()

        self.call(go)

    # ---- the displays ------------------------------------------------------------------

    def start_web(self) -> None:
        """Start the web server, on the port of the last one (an open page reconnects)."""
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", self.web_port))
        sock.listen(16)
        port = self.web_port = sock.getsockname()[1]

        async def start() -> None:
            self.web_feed = RelayFeed(self.broker.port, self.loop)
            self.web = WebServer(WebSettings(table=TABLE), users=Users({}),
                                 public_feed=self.web_feed)
            self.web_task = asyncio.create_task(self.web.run(sock=sock))

        self.call(start)
        self.web_url = f"http://127.0.0.1:{port}"
        if self.page is None:
            self.page = OpenPage(port)

    def stop_web(self) -> None:
        web, task, feed = self.web, self.web_task, self.web_feed

        async def stop() -> None:
            if web is not None:
                web.stop()
            if feed is not None:
                feed.close()
            if task is not None:
                await asyncio.wait_for(asyncio.gather(task, return_exceptions=True), 10)

        self.call(stop)

    def relays(self) -> list[Relay]:
        out = [] if self.terminal is None else [self.terminal.relay]
        return out + ([] if self.web_feed is None else [self.web_feed.relay])

    def page_view(self) -> dict[str, Any]:
        """The first view a page loading ``/`` gets from ``/events/public``."""
        with urllib.request.urlopen(self.web_url + "/events/public", timeout=10) as resp:
            for raw in resp:
                line = raw.decode().strip()
                if line.startswith("data: "):
                    view: dict[str, Any] = json.loads(line[6:])
                    return view
        raise AssertionError("no view from the web server")

    @staticmethod
    def page_shown(view: dict[str, Any]) -> Shown:
        run = view.get("run") or None
        return Shown(None if run is None else Run(run["journal"], run["epoch"]),
                     None if run is None or view.get("snapshot") is None else run["seq"],
                     view.get("snapshot"),
                     not_live=bool(view.get("stale") or view.get("resyncing")
                                   or view.get("snapshot") is None))

    # ---- settling ----------------------------------------------------------------------

    def published_now(self) -> dict[str, Any] | None:
        """The auditor's latest snapshot, if it is the daemon's current one."""
        daemon, auditor = self.daemon, self.auditor
        assert auditor is not None
        latest = auditor.snapshot()
        if daemon is None or latest is None:
            return latest if daemon is None else None

        async def current() -> tuple[Any, ...]:
            return (daemon.journal.journal_id, daemon.journal.epoch,
                    json.loads(json.dumps(daemon.public_snapshot())))

        journal, epoch, body = self.call(current)
        if (latest.get("journal"), latest.get("epoch")) != (journal, epoch):
            return None
        if latest.get("data") != body:
            return None
        return latest

    def _wait_published(self, deadline: float) -> dict[str, Any] | None:
        published = None
        while time.monotonic() < deadline:
            published = self.published_now()
            if published is not None or self.daemon is None:
                break
            time.sleep(0.05)
        return published

    def _wait_quiet(self, deadline: float, last: Callable[[Relay], float],
                    quiet: float) -> None:
        while time.monotonic() < deadline:
            if min((time.monotonic() - last(r) for r in self.relays()), default=1.0) >= quiet:
                return
            time.sleep(0.05)

    def flush(self, timeout: float = 30.0) -> None:
        """Wait until the daemon's current snapshot is out and has reached the relays, whose
        faults have then acted on everything played so far (the daemon publishes after the
        dealer's steps, and one snapshot for the steps of one call: a fault turned off before
        that would have done nothing)."""
        deadline = time.monotonic() + timeout
        self._wait_published(deadline)
        self._wait_quiet(deadline, lambda r: r.last_arrival, 0.2)

    def _wait_delivered(self, key: tuple[Any, ...], deadline: float) -> None:
        """Wait until every relay has handed on the snapshot ``key`` and the open page shows
        it (its stream runs behind the web server's relay). A relay's faults never keep the
        daemon's current snapshot from its display for good (held ones are released first,
        one is dropped only where play follows), so this is how long the stream takes, not a
        verdict: a display still short of it at the deadline is judged as it stands."""
        def page_there() -> bool:
            if self.page is None:
                return True
            shown = self.page.shown()
            run = shown.run
            return run is not None and (run.journal, run.epoch, shown.seq) == key
        while time.monotonic() < deadline:
            if all(r.delivered(key) for r in self.relays()) and page_there():
                return
            time.sleep(0.02)

    def settle(self, timeout: float = 30.0) -> dict[str, Any] | None:
        """Wait until the daemon's current snapshot is out and has reached every display
        (held snapshots delivered late first), and the streams have been quiet a moment;
        return that snapshot. Waiting on the snapshot itself, not on quiet alone: on a
        loaded machine a relay may take it well after the auditor did."""
        deadline = time.monotonic() + timeout
        published = self._wait_published(deadline)
        for relay in self.relays():
            relay.release_held()
        waited: tuple[Any, ...] | None = None
        while (published is not None and self.daemon is not None
               and snapshot_key(published) != waited):
            waited = snapshot_key(published)
            self._wait_delivered(waited, deadline)
            self._wait_quiet(deadline, lambda r: r.last_delivery, 0.4)
            # read it again: a snapshot with a later seq and the same data may have been on
            # its way to the auditor when it first matched (then wait for that one)
            published = self._wait_published(deadline)
        if waited is None:
            self._wait_quiet(deadline, lambda r: r.last_delivery, 0.4)
        return published

    def close(self) -> None:
        if self.page is not None:
            self.page.close()
        self.stop_web()
        self.stop_daemon()
        for closer in (self.auditor, self.terminal.relay if self.terminal else None):
            if closer is not None:
                closer.close()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        self.loop.close()
