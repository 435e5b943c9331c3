"""``tablectl floor ...``: the floor service and the history it keeps (the CLI group).

:mod:`tablectl.cli` only registers :func:`add_floor`. Exit codes as everywhere: 0 success,
1 the work failed (database or broker unreachable), 2 bad usage (one line, no traceback).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import signal
import sys
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias
from urllib.parse import urlsplit

from tablectl.config_urls import db_url_option, service_broker_url_option
from tablectl.domain.errors import ConfigError
from tablectl.domain.numbers import number, whole
from tablectl.domain.strictjson import brief
from tablectl.floor.money import currency, money_format
from tablectl.floor.pg_setup import where
from tablectl.floor.rules import HouseRules
from tablectl.floor.service import FloorFailedError, FloorService, FloorSettings
from tablectl.floor.store import StoreSetupError, StoreUnavailableError
from tablectl.publish.errors import PublishError

if TYPE_CHECKING:
    from tablectl.publish.mqtt_settings import MqttSettings

_LOGGER = logging.getLogger(__name__)
_Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def _say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def _fail(text: str, code: int) -> int:
    sys.stderr.write(f"tablectl floor: {text}\n")
    return code


def _store_code(exc: StoreUnavailableError) -> int:
    """Exit 2 for a database that is not set up (bad configuration), else 1."""
    return 2 if isinstance(exc, StoreSetupError) else 1


def _since(text: str) -> datetime:
    try:
        stamp = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an ISO time such as 2026-12-01T20:00, "
                                         f"got {brief(text)}") from None
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)


def _game(text: str) -> str:
    from tablectl.domain.games import GameKind

    known = sorted(g.value for g in GameKind)
    if text not in known:
        raise argparse.ArgumentTypeError(f"expected one of {', '.join(known)}, got {brief(text)}")
    return text


def mqtt_settings(url: str, *, user: str, credentials: Path | None,
                  cafile: Path | None, batch_max: int | None = None) -> MqttSettings:
    """A worker's connection: its username is its client id, the session persists a day
    (QoS 1 messages wait for it while it restarts).

    A worker acknowledges a batch only after its commit, so the broker must let it hold more
    than a batch unacknowledged: its Receive Maximum is two batches (the next one arrives
    while the last one commits). Left to the broker's limit (mosquitto's
    ``max_inflight_messages``, 20), every batch held at most 20 messages.
    """
    from tablectl.config import read_credentials
    from tablectl.publish.mqtt_settings import MqttSettings
    from tablectl.publish.tls import TlsKeys, client_tls

    parts = urlsplit(url)
    name, password = read_credentials(credentials)
    context = None
    if parts.scheme == "mqtts":
        context = client_tls(cafile, keys=TlsKeys(cafile="--cafile"))
    return MqttSettings(host=parts.hostname or "127.0.0.1",
                        port=parts.port or (8883 if context else 1883),
                        client_id=name or user, username=name or None, password=password,
                        tls=context, session_expiry=86400, reconnect_min=1, reconnect_max=5,
                        receive_maximum=(None if batch_max is None
                                         else min(65535, 2 * batch_max)))


# ---- floor run ----------------------------------------------------------------------------

def _run(args: argparse.Namespace) -> int:
    from tablectl.config import read_credentials
    from tablectl.floor.pg import PgStore
    from tablectl.publish.mqtt import MqttPublisher

    rules = HouseRules.load(Path(args.rules)) if args.rules else None
    user = args.user
    if args.credentials:
        user = read_credentials(Path(args.credentials))[0] or user
    settings = FloorSettings(user=user, group=args.group, batch_max=args.batch_max,
                             batch_wait=args.batch_wait / 1000, shared=not args.no_share)
    store = PgStore(args.db, rules=rules)
    stats_store = None if args.no_stats else PgStore(args.db)   # its own connection and thread
    deadline = time.monotonic() + args.db_wait
    waiting = False
    while True:                  # migrations first; a database restarting is waited for
        try:
            store.connect()
            break
        except StoreSetupError as exc:        # no database, or no login: waiting won't help
            return _fail(str(exc), 2)
        except StoreUnavailableError as exc:
            if time.monotonic() >= deadline:
                return _fail(f"{exc} (waited {args.db_wait:g} s, --db-wait)", 1)
            _LOGGER.log(logging.DEBUG if waiting else logging.WARNING,
                        "floor: waiting up to %g s (--db-wait) for PostgreSQL at %s: %s",
                        args.db_wait, where(args.db), exc)
            waiting = True
            time.sleep(1.0)
    if waiting:
        _LOGGER.info("floor: PostgreSQL at %s is there", where(args.db))
    broker = mqtt_settings(args.broker, user=user,
                           credentials=Path(args.credentials) if args.credentials else None,
                           cafile=Path(args.cafile) if args.cafile else None,
                           batch_max=settings.batch_max)

    async def main() -> None:
        async with contextlib.AsyncExitStack() as stack:
            client = await stack.enter_async_context(
                MqttPublisher(broker, wait_connected=False, manual_ack=True))
            service = FloorService(settings, store, client, table_stats=stats_store)
            if args.metrics_port is not None:
                from tablectl.floor.metrics import FloorMetrics
                from tablectl.metrics.http import serve_metrics
                await stack.enter_async_context(serve_metrics(
                    FloorMetrics(lambda: service.stats).registry, args.metrics_host,
                    args.metrics_port, key="--metrics-port"))
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, service.stop)
            _LOGGER.info("floor: worker %s following %s into %s", user, args.broker,
                         urlsplit(args.db).path.lstrip("/"))
            await service.run()
            s = service.stats
            _LOGGER.info("floor: stopped after %d batches of %d messages, %d events applied, "
                         "%d duplicates, %d quarantined, %d replay requests", s.batches,
                         s.messages, s.applied, s.duplicates, s.quarantined, s.replays)

    try:
        asyncio.run(main())
    except (PublishError, FloorFailedError) as exc:
        return _fail(str(exc), 1)
    finally:
        store.close()
        if stats_store is not None:
            stats_store.close()
    return 0


# ---- floor hands --------------------------------------------------------------------------

def _hands(args: argparse.Namespace) -> int:
    from tablectl.floor.pg import PgStore

    store = PgStore(args.db)
    try:
        hands = store.hands(table=args.table, since=args.since, limit=args.limit)
    except StoreUnavailableError as exc:
        return _fail(str(exc), _store_code(exc))
    finally:
        store.close()
    if args.json:
        for hand in hands:
            _say(json.dumps(hand.to_json(), ensure_ascii=False))
        return 0
    if not hands:
        _say("no hands")
    for h in hands:
        money = money_format(h.stakes)
        won = ", ".join(f"{w.get('name') or 'seat ' + str(w['seat'])} {money(w['amount'])}"
                        + _part(w) for w in h.winners) or "-"
        flags = f"  [{', '.join(h.flags)}]" if h.flags else ""
        pot = f"{money(h.pot)} {currency(h.stakes)}".strip() if h.pot is not None else "-"
        game = h.game or "?"
        if h.formats:
            game += f" ({', '.join(h.formats)})"
        _say(f"{h.id}  {h.table_name or h.table}  #{h.number}  {game}  "
             f"{h.started_at:%Y-%m-%d %H:%M:%S}  {h.result or 'in progress'}  "
             f"pot {pot}  won: {won}{flags}")
    return 0


def _part(winner: Mapping[str, Any]) -> str:
    """Which part of a pot an award is: its half, its run, its board (nothing when whole)."""
    parts = [str(winner["half"])] if winner.get("half") not in (None, "whole") else []
    parts += [f"{k} {winner[k]}" for k in ("run", "board") if k in winner]
    return f" ({', '.join(parts)})" if parts else ""


# ---- floor stats --------------------------------------------------------------------------

def _stats(args: argparse.Namespace) -> int:
    from tablectl.floor.pg import PgStore
    from tablectl.floor.stats import StatsBy, StatsQuery, stats_lines

    query = StatsQuery(players=tuple(args.player or ()), games=tuple(args.game or ()),
                       table=args.table, since=args.since, until=args.until, last=args.last,
                       by=StatsBy(args.by))
    store = PgStore(args.db)
    try:
        stats = store.player_stats(query)
    except StoreUnavailableError as exc:
        return _fail(str(exc), _store_code(exc))
    finally:
        store.close()
    if args.json:
        for row in stats:
            _say(json.dumps(row.to_json(), ensure_ascii=False))
        return 0
    if not stats:
        _say("no settled hands")
        return 0
    for line in stats_lines(stats, query.by):
        _say(line)
    return 0


# ---- floor quarantine ---------------------------------------------------------------------

def _quarantine(args: argparse.Namespace) -> int:
    from tablectl.floor.pg import PgStore

    store = PgStore(args.db)
    try:
        rows = store.quarantined(table=args.table, limit=args.limit)
    except StoreUnavailableError as exc:
        return _fail(str(exc), _store_code(exc))
    finally:
        store.close()
    if args.json:
        for row in rows:
            _say(json.dumps(row.to_json(), ensure_ascii=True))
        return 0
    if not rows:
        _say("no quarantined messages")
    for r in rows:
        times = f" x{r.count}, last {r.last_at:%Y-%m-%d %H:%M:%S}" if r.count > 1 and r.last_at \
            else ""
        _say(f"{r.received_at:%Y-%m-%d %H:%M:%S}{times}  {r.table or '-'}  {r.topic}  "
             f"{r.size} bytes  sha256 {r.digest[:16]}  {r.reason}")
    return 0


# ---- floor export -------------------------------------------------------------------------

def _export(args: argparse.Namespace) -> int:
    from tablectl.floor.export import write_phh
    from tablectl.floor.pg import PgStore

    store = PgStore(args.db)
    try:
        hands = store.stored_hands(table=args.table, since=args.since, limit=args.limit)
    except StoreUnavailableError as exc:
        return _fail(str(exc), _store_code(exc))
    finally:
        store.close()
    written = failed = 0
    try:
        for result in write_phh(hands, Path(args.out)):
            if result.path is not None:
                written += 1
            else:
                failed += 1
                sys.stderr.write(f"tablectl floor export: {result.hand}: {result.error}\n")
    except OSError as exc:
        return _fail(f"cannot write {args.out}: {exc.strerror or exc}", 1)
    _say(f"{written} hand(s) written to {args.out}" + (f", {failed} not" if failed else ""))
    return 1 if failed else 0


# ---- floor web ----------------------------------------------------------------------------

def _web(args: argparse.Namespace) -> int:
    import dataclasses
    import secrets

    from tablectl.floor.web import FloorPage
    from tablectl.publish.mqtt import MqttPublisher

    broker = mqtt_settings(args.broker, user=f"floor-web-{secrets.token_hex(3)}",
                           credentials=Path(args.credentials) if args.credentials else None,
                           cafile=Path(args.cafile) if args.cafile else None)
    broker = dataclasses.replace(broker, session_expiry=0)   # the retained state rebuilds it

    async def main() -> None:
        async with MqttPublisher(broker, wait_connected=False) as client:
            page = FloorPage(client)
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, page.stop)
            _LOGGER.info("floor: page on http://%s:%d/ for %s", args.host, args.port,
                         args.broker)
            await page.run(host=args.host, port=args.port)

    try:
        asyncio.run(main())
    except (PublishError, OSError) as exc:
        return _fail(str(exc), 1)
    return 0


def add_floor(sub: _Subparsers) -> None:
    """Register ``tablectl floor`` and its subcommands."""
    p = sub.add_parser("floor", help="the card room floor: every table's hands in PostgreSQL")
    inner = p.add_subparsers(dest="floor_command", required=True, metavar="SUBCOMMAND")

    run = inner.add_parser(
        "run", help="follow every table on the floor broker and record its hands",
        description="Subscribes (shared subscription) to poker/v1/tables/+/events and /state, "
                    "writes every event exactly once into PostgreSQL (migrations applied at "
                    "start), asks a table to replay what it missed. Several workers, each "
                    "with its own --user, share the tables. Until interrupted.")
    run.add_argument("--broker", required=True, type=service_broker_url_option, metavar="URL",
                     help="floor broker, mqtt://host:port or mqtts://host:port")
    run.add_argument("--db", required=True, type=db_url_option, metavar="URL",
                     help="postgresql://user@host:port/database")
    run.add_argument("--user", default="floor-01",
                     help="broker username and client id of this worker (default %(default)s)")
    run.add_argument("--credentials", metavar="FILE",
                     help="TOML file with username and password for the broker")
    run.add_argument("--cafile", metavar="FILE", help="CA certificate for mqtts://")
    run.add_argument("--group", default="floor",
                     help="shared subscription group: every worker of the floor joins the same "
                          "(default %(default)s)")
    run.add_argument("--rules", metavar="FILE",
                     help="house jackpot / high-hand rules (config/floor/house-rules.toml)")
    run.add_argument("--batch-max", type=whole(1, 32767), default=500, metavar="N",
                     help="messages per transaction (default %(default)s)")
    run.add_argument("--batch-wait", type=number(0, 60000), default=20.0, metavar="MS",
                     help="how long a batch waits for more messages (default 20 ms)")
    run.add_argument("--db-wait", type=number(0, 86400), default=30.0, metavar="SECONDS",
                     help="how long to wait for the database at start (default 30 s)")
    run.add_argument("--no-stats", action="store_true",
                     help="do not publish the seated players' statistics after each hand "
                          "(poker/v1/floor/tables/T/stats, retained; docs/floor.md)")
    run.add_argument("--no-share", action="store_true",
                     help="a plain subscription (a single worker on a broker without $share)")
    run.add_argument("--metrics-port", type=whole(0, 65535), metavar="PORT",
                     help="serve Prometheus metrics on /metrics at this port (messages, "
                          "events applied, quarantined, store failures; default: none)")
    run.add_argument("--metrics-host", default="127.0.0.1", metavar="HOST",
                     help="listen address of the metrics (default %(default)s)")
    run.set_defaults(handler=_guard(_run))

    hands = inner.add_parser("hands", help="list recorded hands (id, table, game, pot, "
                                           "winners)")
    hands.add_argument("--db", required=True, type=db_url_option, metavar="URL",
                       help="the floor's database, postgresql://user@host:port/database")
    hands.add_argument("--table", help="only this table")
    hands.add_argument("--since", type=_since, metavar="TIME",
                       help="only hands started at or after this ISO time (UTC if no zone)")
    hands.add_argument("--limit", type=whole(1, 10**7), default=1000, metavar="N",
                       help="at most this many hands, the oldest first (default %(default)s)")
    hands.add_argument("--json", action="store_true",
                       help="one JSON object per line, amounts in chip units as stored, with "
                            "the hand's stakes (units_per_currency, currency)")
    hands.set_defaults(handler=_guard(_hands))

    stats = inner.add_parser(
        "stats", help="player statistics (VPIP, PFR, 3-bet, WTSD, W$SD, net) from the history",
        description="Per player and game, over the settled hands recorded: hands dealt in, "
                    "VPIP, PFR, 3-bet (made of chances), went to showdown, won at showdown, "
                    "net won. Computed in PostgreSQL; definitions in docs/floor.md, "
                    "\"Player statistics\".")
    stats.add_argument("--db", required=True, type=db_url_option, metavar="URL",
                       help="the floor's database, postgresql://user@host:port/database")
    stats.add_argument("--player", action="append", metavar="NAME",
                       help="only this player (the seat's name; again for more)")
    stats.add_argument("--game", action="append", type=_game, metavar="VARIANT",
                       help="only this game: holdem, omaha-hi-lo, stud, ... (again for more)")
    stats.add_argument("--table", help="only hands of this table")
    stats.add_argument("--since", type=_since, metavar="TIME",
                       help="only hands started at or after this ISO time (UTC if no zone)")
    stats.add_argument("--until", type=_since, metavar="TIME",
                       help="only hands started before this ISO time (UTC if no zone)")
    stats.add_argument("--last", type=whole(1, 1_000_000, "a number"), metavar="N",
                       help="only each player's last N hands (within the other limits)")
    stats.add_argument("--by", choices=("player,game", "player", "game"),
                       default="player,game", metavar="BY",
                       help="player,game: one line per player and game (the default); player: "
                            "per player, every game together; game: per game, every player "
                            "together")
    stats.add_argument("--json", action="store_true",
                       help="one JSON object per line: counts, percentages, net in the "
                            "currency")
    stats.set_defaults(handler=_guard(_stats))

    quarantine = inner.add_parser(
        "quarantine", help="list the messages the floor set aside (could not decode or store)",
        description="Each message the floor could not decode (not strict JSON, a field of the "
                    "wrong type or range, another table's id in the payload) or that the "
                    "database refused, the most recent first: when, its table and topic, "
                    "its size and SHA-256, and why. The same message again is one line "
                    "(xN). The first 16 KB of each payload is kept (--json shows it).")
    quarantine.add_argument("--db", required=True, type=db_url_option, metavar="URL",
                            help="the floor's database, postgresql://user@host:port/database")
    quarantine.add_argument("--table", help="only messages on this table's topics")
    quarantine.add_argument("--limit", type=whole(1, 1_000_000, "a number"), default=100,
                            metavar="N",
                            help="at most this many, the most recent first (default "
                                 "%(default)s)")
    quarantine.add_argument("--json", action="store_true",
                            help="one JSON object per line, with the kept payload as text "
                                 "(bytes that are not UTF-8 and control characters escaped)")
    quarantine.set_defaults(handler=_guard(_quarantine))

    export = inner.add_parser(
        "export", help="write recorded settled hands as PHH files",
        description="Rebuilds each settled hand through the rules engine from its public "
                    "events (hole cards nobody showed are unknown: ????) and writes one .phh "
                    "file per hand. Exit 1 if any hand could not be rebuilt.")
    export.add_argument("--db", required=True, type=db_url_option, metavar="URL",
                        help="the floor's database, postgresql://user@host:port/database")
    export.add_argument("--out", required=True, metavar="DIR",
                        help="directory for the .phh files (created if missing)")
    export.add_argument("--table", help="only this table")
    export.add_argument("--since", type=_since, metavar="TIME",
                        help="only hands started at or after this ISO time (UTC if no zone)")
    export.add_argument("--limit", type=whole(1, 10**7), default=100000, metavar="N",
                        help="at most this many hands, the oldest first (default %(default)s)")
    export.set_defaults(handler=_guard(_export))

    web = inner.add_parser("web", help="the floor page: every table live (read-only)")
    web.add_argument("--broker", required=True, type=service_broker_url_option, metavar="URL",
                     help="floor broker, mqtt://host:port or mqtts://host:port")
    web.add_argument("--credentials", metavar="FILE",
                     help="TOML file with username and password (a display user)")
    web.add_argument("--cafile", metavar="FILE", help="CA certificate for mqtts://")
    web.add_argument("--host", default="127.0.0.1", help="listen address (default %(default)s)")
    web.add_argument("--port", type=whole(0, 65535), default=8090,
                     help="listen port (default %(default)s)")
    web.set_defaults(handler=_guard(_web))


def _guard(fn: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        try:
            return fn(args)
        except ConfigError as exc:
            return _fail(exc.render(), 2)
        except ValueError as exc:
            return _fail(str(exc), 2)
    return run


__all__ = ["add_floor", "mqtt_settings"]
