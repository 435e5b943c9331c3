"""``tablectl tournament ...``: the tournament director's commands (the CLI group).

:mod:`tablectl.cli` only registers :func:`add_tournament`. Every command but ``check`` works
on the tournament's database (``--db``, or ``$TABLECTL_TOURNAMENT_DB``); a command that
changes the tournament publishes its status, retained, when ``--broker`` is given. Exit
codes as everywhere: 0 success, 1 the work failed (database or broker unreachable), 2 bad
usage or a command the tournament refuses (one line, no traceback).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import logging
import os
import re
import secrets
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypeAlias

from tablectl.clock import SystemClock
from tablectl.config_urls import check_db_url, db_url_option, service_broker_url_option
from tablectl.domain.errors import ConfigError
from tablectl.domain.numbers import whole
from tablectl.domain.strictjson import brief
from tablectl.publish.errors import PublishError, PublishRefusedError
from tablectl.tournament.balance import Plan
from tablectl.tournament.clock import (
    AddTime,
    ClockCommand,
    Finish,
    MoveTo,
    Pause,
    Resume,
    Start,
    Status,
    clock_text,
)
from tablectl.tournament.errors import StoreSetupError, StoreUnavailableError, TournamentError
from tablectl.tournament.payouts import money, prize_pool, results
from tablectl.tournament.service import TournamentService
from tablectl.tournament.store import Tournament, TournamentStore
from tablectl.tournament.structure import Structure

if TYPE_CHECKING:
    from tablectl.publish.mqtt import MqttPublisher

_LOGGER = logging.getLogger(__name__)
_Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
DB_ENV: Final = "TABLECTL_TOURNAMENT_DB"


def _say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def _fail(text: str, code: int) -> int:
    sys.stderr.write(f"tablectl tournament: {text}\n")
    return code


# ---- argument types ------------------------------------------------------------------------

_TIME: Final = re.compile(r"([+-]?)(?:(\d{1,4}):([0-5]\d)|(\d{1,6})(m|s)?)")


def parse_time(text: str) -> int:
    """Seconds from ``5:00``, ``-2:30``, ``+90``, ``90s`` or ``5m``.

    >>> parse_time("5:00"), parse_time("-2:30"), parse_time("90"), parse_time("-5m")
    (300, -150, 90, -300)
    """
    found = _TIME.fullmatch(text.strip())
    if found is None:
        raise argparse.ArgumentTypeError(f"expected a time such as 5:00, -2:30, 90s or 5m, "
                                         f"got {brief(text)}")
    sign, mins, secs, number, unit = found.groups()
    value = int(mins) * 60 + int(secs) if mins is not None else int(number) * (
        60 if unit == "m" else 1)
    if value == 0 or value > 24 * 3600:
        raise argparse.ArgumentTypeError(f"expected a time from 1 s to 24 h, got {brief(text)}")
    return -value if sign == "-" else value


def _button(text: str) -> tuple[int, int]:
    table, _, seat = text.partition(":")
    try:
        return whole(1, 999, "a table")(table), whole(1, 12, "a seat")(seat)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected TABLE:SEAT such as 3:7, got {brief(text)}"
                                         ) from None


# ---- the shell -----------------------------------------------------------------------------

def _store(args: argparse.Namespace) -> TournamentStore:
    from tablectl.tournament.pg import PgTournamentStore

    url = args.db or os.environ.get(DB_ENV)
    if not url:
        raise TournamentError(f"say where the tournament database is: --db postgresql://... "
                              f"or ${DB_ENV}")
    try:
        return PgTournamentStore(check_db_url(url))
    except ValueError as exc:     # $TABLECTL_TOURNAMENT_DB is read here, past argparse
        raise TournamentError(f"{'--db' if args.db else '$' + DB_ENV}: {exc}") from None


def _publisher(args: argparse.Namespace, tid: str) -> MqttPublisher | None:
    if not getattr(args, "broker", None):
        return None
    from tablectl.floor.command import mqtt_settings
    from tablectl.publish.mqtt import MqttPublisher

    settings = mqtt_settings(args.broker, user=f"tournament-{tid}-{secrets.token_hex(3)}",
                             credentials=Path(args.credentials) if args.credentials else None,
                             cafile=Path(args.cafile) if args.cafile else None)
    # a client id of its own even with the service's credentials (the username would be the
    # id): the running service, whose id that is, is never knocked off the broker
    settings = dataclasses.replace(settings, session_expiry=0, connect_timeout=5.0,
                                   client_id=f"tournament-{tid}-{secrets.token_hex(3)}")
    return MqttPublisher(settings)


def status_line(body: dict[str, Any]) -> str:
    """One line for the director: the clock, the next level, the field."""
    c = body["clock"]
    phase = c["phase"].replace("_", " ")
    nxt = c["next"]["label"] if c["next"] else "none (last level)"
    text = (f"{body['tournament']}: {phase}, {c['label']}, {clock_text(c['time_left'])} left, "
            f"next {nxt}; {body['players_left']} players left of {body['entries']} entries, "
            f"average stack {body['average_stack']}")
    if body["hand_for_hand"]:
        text += "; HAND FOR HAND"
        waiting = body.get("hand_for_hand_waiting")
        if waiting:
            text += " (waiting for table " + ", ".join(str(n) for n in waiting) + ")"
    if body["registration_open"]:
        text += "; registration open"
    return text


def _change(args: argparse.Namespace,
            act: Callable[[TournamentService], Tournament]) -> int:
    store = _store(args)
    tid = args.id
    try:
        service = TournamentService(store, SystemClock())
        t = act(service)
        body: dict[str, Any] = {}

        async def publish() -> None:
            nonlocal body
            publisher = _publisher(args, tid)
            if publisher is None:
                body = await service.publish(t)
                return
            async with publisher as client:
                service.publisher = client
                body = await service.publish(t)

        try:
            asyncio.run(publish())
        except (PublishError, OSError) as exc:
            _say(status_line(body or service.status(tid)))
            return _fail(f"stored, but the status was not published: {exc}", 1)
        _say(status_line(body))
        return 0
    finally:
        store.close()


def _clock_handler(make: Callable[[argparse.Namespace], ClockCommand]
                   ) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        return _change(args, lambda s: s.command(args.id, make(args)))
    return run


def _create(args: argparse.Namespace) -> int:
    structure = Structure.load(Path(args.structure))
    store = _store(args)
    try:
        t = TournamentService(store, SystemClock()).create(args.id, structure)
    finally:
        store.close()
    _say(f"{t.id}: created ({structure.name}: {len(structure.levels)} levels, "
         f"{len(structure.breaks)} breaks, starting stack {structure.starting_stack})")
    return 0


def _check(args: argparse.Namespace) -> int:
    structure = Structure.load(Path(args.structure))
    for period in structure.periods:
        _say(f"{period.label:<40} {clock_text(period.seconds)}")
    late = structure.late_registration_until_level
    _say(f"{structure.name}: {len(structure.levels)} levels, starting stack "
         f"{structure.starting_stack}, late registration "
         + (f"until the end of level {late}" if late else "closed at the start"))
    if structure.payouts:
        _say(f"pays {structure.paid_places} places of {structure.prize_per_entry} "
             f"{structure.currency} an entry: " + ", ".join(
                 f"{bp / 100:g}%" for bp in structure.payouts))
    return 0


def _status(args: argparse.Namespace) -> int:
    store = _store(args)
    try:
        service = TournamentService(store, SystemClock())
        body = service.status(args.id)
        t = store.load(args.id)
    finally:
        store.close()
    if args.json:
        body["ranking"] = [dataclasses.asdict(p) for p in t.field.ranking()]
        body["seating"] = {str(k): {str(s): p for s, p in v.items()}
                           for k, v in t.field.seating().items()}
        _say(json.dumps(body, ensure_ascii=False))
        return 0
    _say(status_line(body))
    for table, seats in sorted(t.field.seating().items()):
        _say(f"  table {table}: " + (", ".join(f"{s} {p}" for s, p in sorted(seats.items()))
                                     or "empty"))
    gone = [p for p in t.field.ranking() if p.place is not None]
    for p in gone[:args.places]:
        _say(f"  {p.place:>4}. {p.player}" + (f" (entry {p.entry})" if p.entry > 1 else ""))
    return 0


def _results(args: argparse.Namespace) -> int:
    store = _store(args)
    try:
        t = store.load(args.id)
    finally:
        store.close()
    rows = results(t.structure, t.field)
    final = t.clock.status is Status.FINISHED
    pool = prize_pool(t.structure, t.field)
    if args.json:
        _say(json.dumps({"tournament": t.id, "final": final, "currency": t.structure.currency,
                         "prize_pool_cents": pool, "paid_places": t.structure.paid_places,
                         "results": [r.to_json() for r in rows]}, ensure_ascii=False))
        return 0
    _say(f"{t.id}: {'final' if final else 'provisional (the tournament is not finished)'} "
         f"results; {len(t.field.entries)} entries, prize pool "
         f"{money(pool, t.structure.currency)}, {t.structure.paid_places} places paid")
    for r in rows:
        place = f"{r.place:>4}." if r.place is not None else "    -"
        entry = f" (entry {r.entry})" if r.entry > 1 else ""
        amount = (money(r.amount, t.structure.currency) if r.amount
                  else "still playing" if r.amount is None else "")
        _say(f"{place} {r.player}{entry}" + (f"  {amount}" if amount else ""))
    return 0


def _chips(args: argparse.Namespace) -> int:
    store = _store(args)
    try:
        t = store.load(args.id)
        seating = t.field.seating()
        # a table's last report may name players moved or busted since: only those still
        # in that seat are shown
        counts = [c for c in store.chip_counts(args.id)
                  if seating.get(c.table, {}).get(c.seat) == c.player]
    finally:
        store.close()
    if args.json:
        _say(json.dumps({"tournament": t.id, "counts": [dataclasses.asdict(c) for c in counts]},
                        ensure_ascii=False))
        return 0
    total = sum(c.chips for c in counts)
    _say(f"{t.id}: {len(counts)} players counted, {total} chips at the tables "
         f"({t.field.chips_in_play} in play)")
    for c in counts:
        _say(f"  {c.chips:>12,}  {c.player}  (table {c.table} seat {c.seat}, hand {c.hand})")
    return 0


def _balance(args: argparse.Namespace) -> int:
    buttons = dict(args.button or [])
    made: list[Plan] = []

    def act(service: TournamentService) -> Tournament:
        p, t = service.balance(args.id, apply_moves=True, buttons=buttons,
                               breaking=args.breaking)
        made.append(p)
        return t

    if args.apply:
        code = _change(args, act)
    else:
        store = _store(args)
        try:
            made.append(TournamentService(store, SystemClock()).balance(
                args.id, buttons=buttons, breaking=args.breaking)[0])
        finally:
            store.close()
        code = 0
    if not made:
        return code
    p = made[0]
    done = "moved" if args.apply else "to move"
    if not p.moves:
        _say("tables are balanced")
    for m in p.moves:
        _say(f"{m.reason}: {m.player} {done} from table {m.from_table} seat {m.from_seat} to "
             f"table {m.to_table} seat {m.to_seat}")
    for table in p.broken:
        _say(f"table {table} breaks")
    if p.hand_for_hand:
        _say("hand for hand")
    return code


def _run(args: argparse.Namespace) -> int:
    from tablectl.floor.command import mqtt_settings
    from tablectl.publish.mqtt import MqttPublisher
    from tablectl.tournament.intake import TABLES_FILTER, Intake
    from tablectl.tournament.lockstep import Lockstep

    store = _store(args)
    # a persistent session (client id tournament-ID, kept a day): the tables' eliminations
    # wait on the broker while the service is down (docs/tournament.md §8)
    settings = mqtt_settings(args.broker, user=f"tournament-{args.id}",
                             credentials=Path(args.credentials) if args.credentials else None,
                             cafile=Path(args.cafile) if args.cafile else None)

    async def main() -> None:
        async with MqttPublisher(settings, manual_ack=True) as client:
            clock = SystemClock()
            service = TournamentService(store, clock, client)
            service.lockstep = Lockstep()          # this process keeps hand for hand
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, service.stop)
            intake: asyncio.Task[None] | None = None
            try:
                await client.subscribe(TABLES_FILTER, qos=1)
                intake = asyncio.create_task(Intake(service, args.id, clock).run(client))
            except PublishRefusedError as exc:
                # the clock is still published; what the tables report waits on the broker
                # for a run whose user may read it (docs/tournament.md §8)
                _LOGGER.warning("tournament %s: the broker refuses %s (%s): the tables' "
                                "eliminations, chip counts and hand-for-hand reports are not "
                                "taken; give this user read access to it", args.id,
                                TABLES_FILTER, exc)
            try:
                await service.run(args.id, refresh=args.refresh)
            finally:
                if intake is not None:
                    intake.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await intake

    try:
        store.load(args.id)
        asyncio.run(main())
    except PublishError as exc:
        return _fail(str(exc), 1)
    finally:
        store.close()
    return 0


def _web(args: argparse.Namespace) -> int:
    from tablectl.floor.command import mqtt_settings
    from tablectl.publish.mqtt import MqttPublisher
    from tablectl.tournament.store import check_id
    from tablectl.tournament.web import TournamentPage

    tid = check_id(args.id)
    broker = mqtt_settings(args.broker, user=f"tournament-web-{secrets.token_hex(3)}",
                           credentials=Path(args.credentials) if args.credentials else None,
                           cafile=Path(args.cafile) if args.cafile else None)
    broker = dataclasses.replace(broker, session_expiry=0)   # the retained status rebuilds it

    async def main() -> None:
        async with MqttPublisher(broker, wait_connected=False) as client:
            page = TournamentPage(client, tid)
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, page.stop)
            _LOGGER.info("tournament %s: page on http://%s:%d/ for %s", tid, args.host,
                         args.port, args.broker)
            await page.run(host=args.host, port=args.port)

    asyncio.run(main())
    return 0


# ---- registration --------------------------------------------------------------------------

def _common(p: argparse.ArgumentParser, *, broker: bool = True) -> None:
    p.add_argument("id", help="the tournament's id (a-z, 0-9, _ and -)")
    p.add_argument("--db", type=db_url_option, metavar="URL",
                   help=f"postgresql://user@host:port/database (default ${DB_ENV})")
    if broker:
        p.add_argument("--broker", type=service_broker_url_option, metavar="URL",
                       help="publish the status there, retained (mqtt://host:port or "
                            "mqtts://...); without it, nothing is published")
        p.add_argument("--credentials", metavar="FILE",
                       help="TOML file with username and password for the broker")
        p.add_argument("--cafile", metavar="FILE", help="CA certificate for mqtts://")


def _seat_args(p: argparse.ArgumentParser, required: bool = False) -> None:
    p.add_argument("--table", type=whole(1, 999, "a table number"), required=required)
    p.add_argument("--seat", type=whole(1, 12, "a seat"), required=required)


def add_tournament(sub: _Subparsers) -> None:
    """Register ``tablectl tournament`` and its subcommands."""
    top = sub.add_parser("tournament", help="the tournament clock, field and balancing")
    inner = top.add_subparsers(dest="tournament_command", required=True,
                               metavar="SUBCOMMAND")

    check = inner.add_parser("check", help="check a structure file and list its levels")
    check.add_argument("structure", metavar="FILE", help="structure TOML (config/tournament/)")
    check.set_defaults(handler=_guard(_check))

    create = inner.add_parser("create", help="create a tournament from a structure file")
    _common(create, broker=False)
    create.add_argument("--structure", required=True, metavar="FILE",
                        help="structure TOML (config/tournament/structure.toml)")
    create.set_defaults(handler=_guard(_create))

    simple: list[tuple[str, str, Callable[[argparse.Namespace], ClockCommand]]] = [
        ("start", "start the clock", lambda a: Start()),
        ("pause", "pause the clock", lambda a: Pause()),
        ("resume", "resume the paused clock", lambda a: Resume()),
        ("finish", "end the tournament (the clock stops for good)", lambda a: Finish()),
    ]
    for name, text, make in simple:
        p = inner.add_parser(name, help=text)
        _common(p)
        p.set_defaults(handler=_guard(_clock_handler(make)))

    add = inner.add_parser("add-time", help="add time to the level or break (negative: "
                                            "remove)")
    _common(add)
    add.add_argument("time", type=parse_time, metavar="TIME",
                     help="5:00, 90s or 5m (remove-time removes; a negative time here "
                          "needs -- before it)")
    add.set_defaults(handler=_guard(_clock_handler(lambda a: AddTime(a.time))))

    rem = inner.add_parser("remove-time", help="remove time from the level or break")
    _common(rem)
    rem.add_argument("time", type=parse_time, metavar="TIME", help="5:00, 90s or 5m")
    rem.set_defaults(handler=_guard(_clock_handler(lambda a: AddTime(-abs(a.time)))))

    level = inner.add_parser("level", help="move to the start of a level")
    _common(level)
    level.add_argument("level", type=whole(1, 1000, "a level"), metavar="N")
    level.set_defaults(handler=_guard(_clock_handler(lambda a: MoveTo(a.level))))

    reg = inner.add_parser("register", help="register a player (seated by the house rule "
                                            "unless --table and --seat)")
    _common(reg)
    reg.add_argument("player")
    _seat_args(reg)
    reg.set_defaults(handler=_guard(lambda a: _change(a, lambda s: s.register(
        a.id, a.player, table=a.table, seat=a.seat))))

    re_ = inner.add_parser("reenter", help="a new entry for an eliminated player")
    _common(re_)
    re_.add_argument("player")
    _seat_args(re_)
    re_.set_defaults(handler=_guard(lambda a: _change(a, lambda s: s.reenter(
        a.id, a.player, table=a.table, seat=a.seat))))

    bust = inner.add_parser("bust", help="a player is out of chips",
                            description="Players out in the same hand (same --hand) are "
                                        "placed by their chips at the start of that hand.")
    _common(bust)
    bust.add_argument("player")
    bust.add_argument("--start-chips", required=True, type=whole(1, 10**15, "chips"),
                      metavar="N", help="the player's chips at the start of the hand")
    bust.add_argument("--hand", metavar="ID",
                      help="the hand (e.g. t3#42); busts with the same --hand were one hand")
    bust.set_defaults(handler=_guard(lambda a: _change(a, lambda s: s.bust(
        a.id, a.player, hand=a.hand, start_chips=a.start_chips))))

    move = inner.add_parser("move", help="seat a player elsewhere")
    _common(move)
    move.add_argument("player")
    _seat_args(move, required=True)
    move.set_defaults(handler=_guard(lambda a: _change(a, lambda s: s.move(
        a.id, a.player, a.table, a.seat))))

    bal = inner.add_parser("balance", help="who moves where (tables to balance or break)")
    _common(bal)
    bal.add_argument("--apply", action="store_true", help="make the moves now")
    bal.add_argument("--button", type=_button, action="append", metavar="TABLE:SEAT",
                     help="a table's button (the player in next hand's big blind moves)")
    bal.add_argument("--break", dest="breaking", type=whole(1, 999, "a table number"),
                     metavar="TABLE", help="break this table now (the floor's call: a broken "
                     "shoe, a dealer gone), then balance")
    bal.set_defaults(handler=_guard(_balance))

    status = inner.add_parser("status", help="the clock, the tables and the places")
    _common(status, broker=False)
    status.add_argument("--json", action="store_true",
                        help="the published status with seating and ranking, one JSON line")
    status.add_argument("--places", type=whole(0, 100000, "a count"), default=20,
                        metavar="N", help="places to list (default %(default)s)")
    status.set_defaults(handler=_guard(_status))

    web = inner.add_parser("web", help="the tournament page for the room's TVs")
    web.add_argument("id", help="the tournament's id")
    web.add_argument("--broker", type=service_broker_url_option, metavar="URL", required=True,
                     help="the broker the status is published on (mqtt://host:port)")
    web.add_argument("--credentials", metavar="FILE",
                     help="TOML file with username and password for the broker")
    web.add_argument("--cafile", metavar="FILE", help="CA certificate for mqtts://")
    web.add_argument("--host", default="127.0.0.1", help="address to serve on (default "
                                                         "%(default)s)")
    web.add_argument("--port", type=whole(1, 65535, "a port"), default=8091,
                     help="port (default %(default)s)")
    web.set_defaults(handler=_guard(_web))

    chips = inner.add_parser("chips", help="each player's chips as the tables last reported")
    _common(chips, broker=False)
    chips.add_argument("--json", action="store_true", help="one JSON line")
    chips.set_defaults(handler=_guard(_chips))

    res = inner.add_parser("results", help="places, names and prizes (final once finished)")
    _common(res, broker=False)
    res.add_argument("--json", action="store_true", help="one JSON line")
    res.set_defaults(handler=_guard(_results))

    run = inner.add_parser("run", help="keep the published status true (every level change)")
    _common(run)
    run.add_argument("--refresh", type=whole(1, 3600, "seconds"), default=30,
                     metavar="SECONDS",
                     help="publish at least this often (default %(default)s)")
    run.set_defaults(handler=_guard(_run))


def _guard(fn: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        if getattr(args, "tournament_command", "") == "run" and not args.broker:
            return _fail("tournament run needs --broker", 2)
        try:
            return fn(args)
        except ConfigError as exc:
            return _fail(exc.render(), 2)
        except StoreSetupError as exc:
            return _fail(str(exc), 2)
        except StoreUnavailableError as exc:
            return _fail(str(exc), 1)
        except (TournamentError, ValueError) as exc:
            return _fail(str(exc), 2)
    return run


__all__ = ["DB_ENV", "add_tournament", "parse_time", "status_line"]
