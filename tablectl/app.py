"""The composition root: builds the table daemon (``tablectl run``) and the browser display
server (``tablectl web``) from a table config. Every other module receives its collaborators as
arguments; this is the one place that chooses the real ones."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import ssl
import traceback
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Final
from urllib.parse import urlsplit

from tablectl.clock import Clock, SystemClock
from tablectl.config import SourceKind, TableConfig, read_credentials, web_command_user
from tablectl.config_check import ensure_journal_folder
from tablectl.config_games import first_game, rotation_of
from tablectl.controller.table import PERMISSIONS, SeatState, TableSetup, TableState
from tablectl.daemon import TableDaemon, status_payloads
from tablectl.daemon.feeding import keep_feeding
from tablectl.daemon.table import online_elsewhere
from tablectl.domain.errors import ConfigError
from tablectl.game import PRESETS, Stakes
from tablectl.journal import JournalWriteError
from tablectl.journal.sqlite import SqliteJournal
from tablectl.metrics import TableMetrics, WebMetrics
from tablectl.metrics.http import serve_metrics
from tablectl.publish import topics
from tablectl.publish.admission import AccessLimits, RateLimit
from tablectl.publish.base import IncomingMessage, MemoryPublisher, MessageProps
from tablectl.publish.commands import bounded
from tablectl.publish.errors import BirthRefusedError, PublishRefusedError
from tablectl.publish.mqtt import MqttPublisher
from tablectl.publish.mqtt_settings import Availability, MqttSettings
from tablectl.publish.tls import MQTT_TLS_KEYS, TlsKeys, client_tls
from tablectl.sources.base import CardSource, load_antenna_map
from tablectl.sources.keypad import KeypadSource
from tablectl.sources.rfid import RfidShoeSource, RfidTableSource
from tablectl.systemd import SdNotifier
from tablectl.web.auth import Users
from tablectl.web.link import (
    FeedItem,
    LinkChange,
    LinkState,
    Message,
    floor_stats_topic,
    secure_topics,
    web_topics,
)
from tablectl.web.server import WebServer, WebSettings

# --- the browser display server (``tablectl web``) -------------------------------------------
# Lives here because it joins tablectl.publish (the MQTT client) to tablectl.web (which may not
# import it): the web package only knows the small Feed / CommandChannel protocols.


if TYPE_CHECKING:
    from tablectl.odds.feed import OddsFeed

_LOGGER = logging.getLogger(__name__)


def _broker_parts(url: str, *, credentials: Path | None, cafile: Path | None,
                  certfile: Path | None, keyfile: Path | None, keys: TlsKeys = MQTT_TLS_KEYS,
                  ) -> tuple[str, int, str | None, str | None, ssl.SSLContext | None]:
    """Host, port, username, password and TLS context of a broker connection.

    Raises:
        ConfigError: the credentials or (for ``mqtts://``) a TLS file is refused, keyed by
            its setting (``keys`` for the TLS files).
    """
    parts = urlsplit(url)
    user, password = read_credentials(credentials)
    context: ssl.SSLContext | None = None
    if parts.scheme == "mqtts":
        context = client_tls(cafile, certfile, keyfile, keys=keys)
    return parts.hostname or "127.0.0.1", parts.port or 1883, user, password, context


def broker_settings(url: str, *, credentials: Path | None, cafile: Path | None = None,
                    certfile: Path | None = None, keyfile: Path | None = None,
                    role: str = "web", keys: TlsKeys = MQTT_TLS_KEYS) -> MqttSettings:
    """MQTT settings for one of the web server's broker connections (no persistent session:
    displays rebuild their view from the retained snapshot).

    Raises:
        ConfigError: the credentials or a TLS file is refused (see :func:`client_tls`).
    """
    host, port, user, password, context = _broker_parts(
        url, credentials=credentials, cafile=cafile, certfile=certfile, keyfile=keyfile,
        keys=keys)
    client_id = user or f"tablectl-{role}-{secrets.token_hex(4)}"
    return MqttSettings(host=host, port=port, client_id=client_id, username=user,
                        password=password, tls=context, session_expiry=0)


class _QueueFeed:
    """A :class:`~tablectl.web.link.Feed` filled by :func:`_pump`."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[FeedItem] = asyncio.Queue()

    async def __aiter__(self) -> AsyncIterator[FeedItem]:
        while True:
            yield await self.queue.get()


async def _pump(client: MqttPublisher, filters: tuple[str, ...], feed: _QueueFeed | None,
                clock: Clock, commands: _PublishCommands | None = None, *,
                optional: frozenset[str] = frozenset()) -> None:
    """Subscribe, then route the client's messages: command replies to ``commands``, the rest
    to ``feed``; (re)connections become ``LinkChange(UP)``, and the link is polled once a
    second to report its loss (the adapter has no disconnect stream).

    One client per broker user: with ``use_username_as_clientid`` two connections of the same
    user would take each other's session over, so a web server whose console has no user of
    its own reads replies on its display connection. A filter in ``optional`` that the
    broker refuses is a warning, not a failure.
    """
    for topic_filter in filters:
        try:
            await client.subscribe(topic_filter, qos=1)
        except PublishRefusedError as exc:
            if topic_filter not in optional:
                raise
            _LOGGER.warning("web: the broker refuses %s (%s): the overlay shows no player "
                            "statistics (config/mosquitto/acl grants it)", topic_filter, exc)
    if commands is not None:
        await client.subscribe(commands.reply_topic.value, qos=1)

    def put(item: FeedItem) -> None:
        if feed is not None:
            feed.queue.put_nowait(item)

    async def messages() -> None:
        async for msg in client.messages():
            if commands is not None and msg.topic == commands.reply_topic:
                commands.resolve(msg.props.correlation_data, msg.payload)
            else:
                put(Message(msg.topic.value, msg.payload))

    async def connections() -> None:
        async for _ in client.connections():
            put(LinkChange(LinkState.UP))

    async def watch() -> None:
        up = client.connected
        put(LinkChange(LinkState.UP if up else LinkState.DOWN))
        while True:
            await clock.sleep(1.0)
            if client.connected != up:
                up = client.connected
                put(LinkChange(LinkState.UP if up else LinkState.DOWN))

    async with asyncio.TaskGroup() as tg:
        tg.create_task(messages())
        tg.create_task(connections())
        tg.create_task(watch())


class _PublishCommands:
    """A :class:`~tablectl.web.link.CommandChannel` over the console user's MQTT client:
    publishes to ``cmd/{name}/{user}`` with a response topic in ``user``'s reply area."""

    def __init__(self, client: MqttPublisher, table: str, user: str) -> None:
        self._client = client
        self._table = table
        self._user = user
        self.reply_topic = topics.reply(user, f"web-{secrets.token_hex(4)}")
        self._pending: dict[bytes, asyncio.Future[bytes]] = {}

    def resolve(self, correlation: bytes | None, payload: bytes) -> None:
        """Hand a reply to the request waiting for it (unknown or late replies are dropped)."""
        fut = self._pending.get(correlation) if correlation is not None else None
        if fut is not None and not fut.done():
            fut.set_result(payload)

    async def request(self, name: str, payload: bytes, *, expiry: float) -> bytes:
        corr = secrets.token_bytes(12)
        fut: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._pending[corr] = fut
        try:
            await self._client.publish(
                topics.cmd(self._table, name, self._user), payload, qos=1,
                props=MessageProps(response_topic=self.reply_topic.value,
                                   correlation_data=corr,
                                   message_expiry=max(1, round(expiry)),
                                   content_type="application/json"))
            async with asyncio.timeout(expiry):
                return await fut
        finally:
            self._pending.pop(corr, None)


def _report_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        _LOGGER.error("web: a broker feed stopped: %s", task.exception())


async def run_web(config: TableConfig, *, host: str | None = None,
                  port: int | None = None, clock: Clock | None = None) -> None:
    """Run the browser display server of ``config``'s ``[web]`` section until cancelled.

    Raises:
        ConfigError: no ``[web]`` section, or its users / credentials files are invalid.
        NotConnectedError: the broker refused or could not be reached.
    """
    web = config.web
    if web is None:
        raise ConfigError([("web", "the config has no [web] section")])
    clock = clock or SystemClock()
    users = Users.load(web.users) if web.users is not None else Users({})
    mq = config.mqtt
    public_settings = broker_settings(mq.url, credentials=web.credentials, cafile=mq.cafile,
                                      role="web")
    own_console = web.console_credentials is not None \
        and web.console_credentials != web.credentials
    console_settings = (broker_settings(mq.url, credentials=web.console_credentials,
                                        cafile=mq.cafile, role="console")
                        if own_console else public_settings)
    # named, never random: the daemon's [access.roles] must be able to give it a role
    console_user = web_command_user(config)
    role = config.access.roles.get(console_user)
    if role is None:
        _LOGGER.warning("web: the console sends commands as %r, which has no role in "
                        "[access.roles]: the table will refuse them (add %s = \"dealer\" or "
                        "\"floor\")", console_user, console_user)
    settings = WebSettings(table=config.table.id, table_name=config.table.name,
                           broadcast_delay=web.broadcast_delay, four_colour=web.four_colour,
                           secure_cookie=web.secure_cookie, command_user=console_user,
                           table_commands=frozenset() if role is None
                           else PERMISSIONS.get(role, frozenset()) | {"recall"})
    public_feed = _QueueFeed()
    secure_feed = _QueueFeed() if web.secure_url else None
    async with contextlib.AsyncExitStack() as stack:
        public_client = await stack.enter_async_context(MqttPublisher(public_settings))
        console_client = (await stack.enter_async_context(MqttPublisher(console_settings))
                          if own_console else public_client)
        commands = _PublishCommands(console_client, config.table.id, console_user)
        tasks = [asyncio.create_task(_pump(public_client, web_topics(config.table.id),
                                           public_feed, clock,
                                           None if own_console else commands,
                                           optional=frozenset({floor_stats_topic(config.table.id)})))]
        if own_console:
            tasks.append(asyncio.create_task(_pump(console_client, (), None, clock, commands)))
        if web.secure_url and secure_feed is not None:
            secure_settings = broker_settings(web.secure_url, credentials=None,
                                              cafile=mq.cafile, certfile=web.secure_certfile,
                                              keyfile=web.secure_keyfile, role="overlay",
                                              keys=SECURE_TLS_KEYS)
            secure_client = await stack.enter_async_context(MqttPublisher(secure_settings))
            tasks.append(asyncio.create_task(_pump(secure_client,
                                                   secure_topics(config.table.id),
                                                   secure_feed, clock)))
        for task in tasks:
            task.add_done_callback(_report_failure)
        server = WebServer(settings, users=users, public_feed=public_feed,
                           secure_feed=secure_feed, commands=commands, clock=clock)
        if config.metrics.web_port is not None:
            links = {"public": public_client, "console": console_client}
            metrics = WebMetrics(links, {"public": lambda: server.public_hub.subscribers,
                                         "overlay": lambda: server.overlay_hub.subscribers})
            await stack.enter_async_context(serve_metrics(
                metrics.registry, config.metrics.host, config.metrics.web_port,
                key="metrics.web_port"))
        _LOGGER.info("web: serving table %s on http://%s:%s/%s", config.table.id,
                     host or web.host, port or web.port,
                     "" if secure_feed else " (no overlay: no secure_url)")
        try:
            await server.run(host=host or web.host, port=port or web.port,
                             handle_signals=True)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


# --- the table daemon (``tablectl run``) ------------------------------------------------------


async def serve_commands(daemon: TableDaemon, messages: AsyncIterator[IncomingMessage]
                         ) -> None:
    """Hand every command message to ``daemon``, one at a time, until ``messages`` ends.

    No message ends this loop: whatever one raises is logged (its topic, its size and where
    it failed; never its payload) and answered ``internal_error`` where a sender can be
    answered, and the next message is taken (docs/mqtt.md §8.4).
    """
    link = daemon.tournament
    async for msg in messages:
        try:
            if link is not None and msg.topic.value == link.topic:
                link.on_status(msg.payload)     # the tournament's status, never a command
                continue
            await daemon.handle_message(msg)
        except Exception as exc:
            where = "".join(traceback.format_tb(exc.__traceback__, limit=-4)).rstrip()
            _LOGGER.error("table %s: a command on %s (%d bytes) failed: %s: %s; going on\n%s",
                          daemon.table, bounded(msg.topic.value), len(msg.payload),
                          type(exc).__name__, bounded(str(exc)), where,
                          extra={"table": daemon.table})
            await daemon.answer_internal_error(msg)


def table_setup(config: TableConfig) -> TableSetup:
    """The controller's fixed setup from a config (decks loaded and checked).

    Raises:
        ConfigError: a deck file is invalid.
    """
    st = config.game.stakes
    stakes = Stakes(small_blind=st.small_blind, big_blind=st.big_blind, straddle=st.straddle,
                    ante=st.ante, bring_in=st.bring_in, small_bet=st.small_bet,
                    big_bet=st.big_bet)
    roles = dict(config.access.roles)
    roles.setdefault(config.access.keypad_user, "dealer")
    deck = config.load_deck()
    rotation = rotation_of(config.game)
    game, structure = first_game(config.game)
    if rotation is not None:
        stakes = rotation.games[0].stakes
    rules = PRESETS[config.game.preset]
    if config.game.run_it is not None:
        rules = replace(rules, run_it=config.game.run_it.rule())
    return TableSetup(table=config.table.id, name=config.table.name, game=game,
                      rotation=rotation, structure=structure, stakes=stakes,
                      deck_id=deck.deck_id, rules=rules,
                      decks=config.load_decks(), roles=roles, preset=config.game.preset,
                      max_command_age=config.access.max_command_age,
                      max_bomb_pot=config.game.max_bomb_pot,
                      double_board=config.game.double_board,
                      # a tournament plays chips, not money (docs/tournament.md)
                      currency="chips" if config.tournament else st.currency,
                      units_per_currency=1 if config.tournament else st.units_per_currency)


def access_limits(config: TableConfig) -> AccessLimits:
    """The command rate limits of ``config``'s ``[access.rate_limit]``."""
    r = config.access.rate_limit
    return AccessLimits(staff=RateLimit(r.staff_rate, r.staff_burst),
                        user=RateLimit(r.user_rate, r.user_burst),
                        strangers=RateLimit(r.stranger_rate, r.stranger_burst),
                        records=RateLimit(r.refusals_rate, r.refusals_burst),
                        max_users=r.max_users)


def initial_state(config: TableConfig) -> TableState:
    """The table before its first hand: the configured seats and button."""
    seats = [SeatState(s.number, s.name, s.stack, s.player_id) for s in config.seats]
    rotation = rotation_of(config.game)
    stud = (all(g.game.is_stud for g in rotation.games) if rotation is not None
            else first_game(config.game)[0].is_stud)      # a rotation's button games need a button
    button = config.button or (0 if stud else config.seats[0].number)
    return TableState.initial(seats, button)


def build_sources(config: TableConfig, clock: Clock) -> list[CardSource]:
    """One source per configured device (manual entry needs none: it comes as commands).

    Raises:
        ConfigError: an antenna map cannot be read.
    """
    out: list[CardSource] = []
    for i, src in enumerate(config.sources):
        name = src.name or f"{src.kind.value}-{i}"
        match src.kind:
            case SourceKind.RFID_SHOE:
                out.append(RfidShoeSource(name, src.url, clock=clock))
            case SourceKind.RFID_TABLE:
                assert src.antenna_map is not None
                out.append(RfidTableSource(name, src.url, roles=load_antenna_map(src.antenna_map),
                                           clock=clock))
            case SourceKind.KEYPAD:
                out.append(KeypadSource(name, src.url, clock=clock,
                                        user=config.access.keypad_user))
            case SourceKind.CAMERA:
                # imported here: the camera pulls in OpenCV and numpy, which a table reading
                # RFID never needs (the daemon stays small and starts fast)
                from tablectl.sources.camera import CameraSource, camera_factory

                assert src.profile is not None
                make = camera_factory(src.url, str(src.profile), mode=src.mode, name=name,
                                      clock=clock)
                out.append(CameraSource(name, make, clock=clock, mode=src.mode))
            case SourceKind.MANUAL:
                pass
    return out


SECURE_TLS_KEYS: Final = TlsKeys("mqtt.cafile", "web.secure_certfile", "web.secure_keyfile")
"""The settings that name the web server's hole-card connection's TLS files."""


def daemon_mqtt_settings(config: TableConfig) -> MqttSettings:
    """The controller's broker connection: a fixed client id (its persistent session) equal to
    its username, as ``use_username_as_clientid`` requires.

    Raises:
        ConfigError: the credentials or a TLS file is refused.
    """
    mq = config.mqtt
    host, port, user, password, context = _broker_parts(
        mq.url, credentials=mq.credentials, cafile=mq.cafile, certfile=mq.certfile,
        keyfile=mq.keyfile)
    return MqttSettings(host=host, port=port, client_id=user or f"controller-{config.table.id}",
                        username=user, password=password, tls=context, reconnect_min=1,
                        reconnect_max=4)


def live_odds(daemon: TableDaemon, precision: float) -> OddsFeed:
    """The daemon's live odds (docs/odds.md): a worker process fed its secure snapshots.
    Imported here, not at the top: the evaluator's NumPy tables cost a daemon that has the
    odds off about 15 MB."""
    from tablectl.odds.feed import OddsFeed
    from tablectl.odds.worker import ProcessWorker, ResultCallback

    loop = asyncio.get_running_loop()
    worker: list[ProcessWorker] = []

    def make(on_result: ResultCallback) -> ProcessWorker:
        worker.append(ProcessWorker(on_result, loop))
        return worker[0]

    feed = OddsFeed(daemon.table, lambda: daemon.publisher, make, precision=precision)
    worker[0].start()   # the child's start-up (NumPy, its tables) now, not at a card read
    daemon.on_secure_snapshot = feed.update
    return feed


async def run_daemon(config: TableConfig, *, clock: Clock | None = None,
                     sources: list[CardSource] | None = None,
                     ready: Callable[[TableDaemon], None] | None = None) -> None:
    """Run the table daemon until cancelled (see :mod:`tablectl.daemon`).

    Args:
        config: the table config.
        clock: injected clock (default: the system clock).
        sources: override the configured sources (tests, the demo).
        ready: called once the daemon recovered and its tasks are running.

    Raises:
        ConfigError: decks, antenna maps or credentials are invalid.
        JournalError: the journal cannot be opened.
    """
    clock = clock or SystemClock()
    setup = table_setup(config)
    srcs = build_sources(config, clock) if sources is None else sources
    # before the journal: a refused credentials or certificate file changes nothing on disk
    mqtt_settings = daemon_mqtt_settings(config)
    ensure_journal_folder(config.journal.path)
    try:
        journal = SqliteJournal.open(config.journal.path, clock)
    except JournalWriteError as exc:
        raise ConfigError([("journal.path", f"cannot open the journal {config.journal.path}: "
                            f"{exc.reason}")]) from exc
    with journal:
        placeholder = MemoryPublisher()
        daemon = TableDaemon(setup, initial_state(config), journal, placeholder, clock=clock,
                             limits=access_limits(config))
        if config.tournament is not None:
            daemon.follow(config.tournament.id, config.tournament.table,
                          config.tournament.stale_after)
        replayed = daemon.recover()
        online, offline = status_payloads(config.table.id, journal.epoch, journal.journal_id)
        mqtt_client = MqttPublisher(
            mqtt_settings,
            availability=Availability(topics.status(config.table.id), online, offline,
                                      guard=_one_daemon_per_table(daemon, journal.journal_id)),
            wait_connected=False)
        daemon.publisher = mqtt_client
        async with mqtt_client, contextlib.AsyncExitStack() as stack:
            stack.callback(daemon.flush_refusals, force=True)   # the counts, at any exit
            await mqtt_client.subscribe(topics.cmd_filter(config.table.id))
            if daemon.tournament is not None:
                await mqtt_client.subscribe(daemon.tournament.topic)
            for src in srcs:
                await stack.enter_async_context(src)
            if config.metrics.port is not None:
                game = config.game.variant
                daemon.metrics = TableMetrics(game.value if game is not None
                                              else config.game.rotation or "mixed")
                daemon.metrics.watch(mqtt=mqtt_client, outbox=daemon.outbox_depth, sources=srcs)
                await stack.enter_async_context(serve_metrics(
                    daemon.metrics.registry, config.metrics.host, config.metrics.port))
            notifier = SdNotifier()
            stack.callback(notifier.notify, "STOPPING=1")
            _LOGGER.info("table %s: running (epoch %d, %d inputs replayed, %d sources)",
                         config.table.id, journal.epoch, replayed, len(srcs),
                         extra={"table": config.table.id})
            try:
                await _run_tasks(config, daemon, mqtt_client, srcs, notifier, ready=ready)
            except* BirthRefusedError as refused:
                raise ConfigError([("table.id", str(refused.exceptions[0]))]) from None


def _one_daemon_per_table(daemon: TableDaemon, journal_id: str
                          ) -> Callable[[bytes | None], None]:
    """The birth guard (docs/reliability.md, "Two daemons with one table id"): before its
    first birth the daemon refuses to go online where another journal's daemon says it is
    online (exit 2); later, it shows the conflict on its snapshot instead."""
    born = False

    def guard(retained: bytes | None) -> None:
        nonlocal born
        other = online_elsewhere(retained, journal_id)
        if other is not None and not born:
            raise BirthRefusedError(
                f"table {daemon.table} is online from another journal ({other}): another "
                "table computer runs this table; stop it, or give this table another id "
                "([table] id). If that computer is gone for good, clear its status first: "
                f"mosquitto_pub -r -n -t {topics.status(daemon.table).value}")
        daemon.table_conflict(other)
        born = True

    return guard


async def _run_tasks(config: TableConfig, daemon: TableDaemon, mqtt_client: MqttPublisher,
                     srcs: list[CardSource], notifier: SdNotifier, *,
                     ready: Callable[[TableDaemon], None] | None) -> None:
    """The daemon's tasks in one ``TaskGroup`` (see :func:`run_daemon`)."""

    async def connections() -> None:
        async for _info in mqtt_client.connections():
            daemon.on_connected()

    async with asyncio.TaskGroup() as tasks:
        tasks.create_task(serve_commands(daemon, mqtt_client.messages()))
        tasks.create_task(daemon.run_refusal_flusher())
        tasks.create_task(connections())
        tasks.create_task(daemon.run_publisher(lambda: mqtt_client.connected))
        if daemon.tournament is not None:
            tasks.create_task(daemon.tournament.run(lambda: mqtt_client.connected))
        if config.odds.enabled:
            tasks.create_task(live_odds(daemon, config.odds.precision / 100)
                              .run(lambda: mqtt_client.connected))
        for src in srcs:
            tasks.create_task(keep_feeding(daemon, src))
        tasks.create_task(notifier.keep_alive(
            lambda: f"fault: {daemon.faulted}" if daemon.faulted else None))
        notifier.notify("READY=1", f"STATUS=table {config.table.id} running")
        if ready is not None:
            ready(daemon)
