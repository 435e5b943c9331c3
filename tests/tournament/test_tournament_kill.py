"""The simulated tournament, cheap, in the normal tier (issue 30, "Done when"; the long one is
tests/tournament/test_simulated_tournament.py, ``soak``): two table daemons of three seats
(cards from ``hardware_sim`` shoes over the reader protocol, tests/tournament/simulated.py)
and the real ``tablectl tournament run`` as a child process on PostgreSQL and one real
mosquitto, levels of 2 s, to one winner.

Mid-level, after the first elimination is recorded, the service is **SIGKILLed**; while it
is dead one table daemon is stopped and started again, and the tables play on until a player
busts; then the service is started again. Checked: every status published, by either
process, puts the end of its level where the schedule set at the start puts it (to the
second: the clock survives the kill); the busts made while the service was dead were not
recorded then and are recorded after, once each; every elimination recorded before the kill
is kept; the levels only rise at every table, from a hand's start; the test plays the floor
(makes the moves ``balance`` gives, so the second table breaks; the tables free the busted
seats themselves, checked); one
winner, everyone else placed. One place is paid, so hand for hand (from two players left)
cannot hold both tables while the service is dead unless four players bust in the first
hand that busts any; hand for hand is the soak's and tests/tournament/test_hand_for_hand.py's.

The table daemon is killed as a task of this process, not as a process: the dealer here
applies the players' decisions to the daemon object directly. A daemon in a child process
would need the MQTT console and pty dealer of tests/reliability/harness.py (another
interpreter and a broker round trip per decision: several seconds of CPU), and what a
SIGKILL of the daemon keeps, its journal and outbox (where a table's eliminations wait), is
what tests/reliability/test_sigkill.py and tests/tournament/test_table_busts.py check.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import IO, Any

from tablectl.clock import SystemClock
from tablectl.tournament.clock import Start, Status
from tablectl.tournament.pg import PgTournamentStore
from tablectl.tournament.service import TournamentService
from tablectl.tournament.structure import Structure
from tests.conftest import Broker
from tests.reliability.harness import DaemonProcess
from tests.tournament.simulated import FLOOR, ROOT, Table, table_config, until

TID = "kill"
TABLES = 2
SEATS = 3
STACK = 300
BLINDS = (10, 20, 40, 80, 150, 300, 600, 1200, 2500, 5000, 10000, 20000, 40000, 80000)
LEVEL_SECONDS = 2
STRUCTURE = (f"name = \"Kill turbo\"\nstarting_stack = {STACK}\nseats_per_table = {SEATS}\n"
             "prize_per_entry = 10\npayouts = [100]\n" + "".join(
                 f"[[level]]\nsmall_blind = {sb}\nbig_blind = {2 * sb}\nante = {2 * sb}\n"
                 f"seconds = {LEVEL_SECONDS}\n" for sb in BLINDS))


class ServiceProcess(DaemonProcess):
    """``python -m tablectl tournament run`` as a child; :meth:`kill` is a SIGKILL."""

    def __init__(self, broker: Broker, db: str, log: Path) -> None:
        super().__init__(Path(), log)
        self.args = [sys.executable, "-m", "tablectl", "--log-level", "info", "tournament",
                     "run", TID, "--broker", broker.url, "--db", db, "--refresh", "1"]

    def start(self) -> None:
        log: IO[bytes] = self.log_path.open("ab")
        self.proc = subprocess.Popen(self.args, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT,
                                     env=dict(os.environ, PYTHONPATH=str(ROOT)))
        log.close()
        self.starts += 1


async def test_the_service_killed_mid_level_loses_neither_clock_nor_bust(
        tmp_path: Path, mosquitto: Broker, pg_url: str) -> None:
    rng = random.Random(3030)
    store = PgTournamentStore(pg_url)
    floor = TournamentService(store, SystemClock())    # the director's one-shot commands
    floor.create(TID, Structure.parse(STRUCTURE, "kill.toml"))
    for i in range(TABLES * SEATS):
        floor.register(TID, f"P{i + 1}")
    started = floor.command(TID, Start()).clock.started_at
    assert started is not None
    # the schedule: level k (from 0) ends at the start plus the first k + 1 levels' time
    ends = [started + timedelta(seconds=LEVEL_SECONDS * (k + 1)) for k in range(len(BLINDS))]

    heard: list[dict[str, Any]] = []
    changed = asyncio.Event()

    def hear(payload: bytes) -> None:
        heard.append(json.loads(payload))
        changed.set()

    def recorded() -> int:
        return len(store.load(TID).field.eliminations)

    service = ServiceProcess(mosquitto, pg_url, tmp_path / "service.log")
    tables = [Table(n, table_config(tmp_path, mosquitto, n, seats=SEATS, stack=STACK, tid=TID),
                    on_status=hear if n == 1 else lambda _p: changed.set())
              for n in range(1, TABLES + 1)]
    busts = 0
    rounds = 0
    moves = 0
    broken: list[int] = []

    async def play_round() -> list[str]:
        nonlocal busts, rounds
        rounds += 1
        assert rounds < 400, "no winner"
        results = [await t.play(rng) for t in tables]
        for t in tables:
            busts += len(t.busted())              # each seat freed by the table itself
        return results

    try:
        service.start()
        for t in tables:
            await t.start()
        # the service's first status: its persistent session exists before any bust
        await until(changed, lambda: len(heard) > 0)
        while recorded() == 0:
            await play_round()
            await until(changed, lambda want=busts: recorded() >= want)  # type: ignore[misc]

        service.kill()                                          # SIGKILL, mid-level
        before = store.load(TID)
        heard_before = len(heard)
        await tables[1].kill()                                  # a table stopped ...
        await tables[1].start()                                 # ... and started again
        dead_busts = busts
        while busts == dead_busts:
            results = await play_round()
            assert any(r == "played" for r in results), "no table could deal"
        while_dead = busts - dead_busts
        assert store.load(TID).field.eliminations == before.field.eliminations
        service.start()
        await until(changed, lambda want=busts: recorded() >= want)  # type: ignore[misc]
        after = store.load(TID)
        assert after.field.eliminations[:len(before.field.eliminations)] == (
            before.field.eliminations)
        assert len(heard) > heard_before

        while len(store.load(TID).field.playing) > 1:
            results = await play_round()
            await until(changed, lambda want=busts: recorded() >= want)  # type: ignore[misc]
            buttons = {t.number: t.daemon.controller.checkpoint().button for t in tables
                       if t.daemon is not None}
            plan, _ = floor.balance(TID, apply_moves=True, buttons=buttons)
            moves += len(plan.moves)
            broken += plan.broken
            for move in plan.moves:
                src, dst = tables[move.from_table - 1], tables[move.to_table - 1]
                out = src.cmd("unseat_player", user=FLOOR, seat=move.from_seat)
                assert out.ok, out
                assert dst.cmd("seat_player", user=FLOOR, seat=move.to_seat,
                               name=move.player, stack=out.result["stack"]).ok
            if not any(r == "played" for r in results):
                # hand for hand, every table waits: the next round comes from the service
                await until(changed, lambda: all(t.daemon.tournament.holds_start() is None
                                        for t in tables if t.daemon is not None
                                        and t.daemon.tournament is not None))
        final = store.load(TID)
    finally:
        service.kill()
        for t in tables:
            if t.task is not None:
                await t.kill()
        store.close()
    assert service.kills >= 1 and service.starts == 2, service.log_tail()
    assert final.clock.status is Status.FINISHED
    assert len(final.field.eliminations) == TABLES * SEATS - 1
    assert len({(x.table, x.hand, x.seat) for x in final.field.eliminations}) == (
        TABLES * SEATS - 1)
    places = [p.place for p in final.field.ranking()]
    assert places[0] == 1 and None not in places, places
    # the clock: every running status of either process ends its level on the schedule
    timed = [(i, s["clock"]) for i, s in enumerate(heard) if s["clock"]["phase"] == "running"
             and s["clock"]["ends_at"] is not None and s["clock"]["period"] < len(BLINDS) - 1]
    assert any(i >= heard_before for i, _ in timed), "no status from the restarted service"
    for _, c in timed:
        off = (datetime.fromisoformat(c["ends_at"]) - ends[c["period"]]).total_seconds()
        assert abs(off) <= 1, (c, ends[c["period"]])
    for t in tables:                       # levels only rise, each from a hand's start on
        assert t.stakes_seen == sorted(t.stakes_seen), t.stakes_seen
    assert len({bb for t in tables for bb in t.stakes_seen}) >= 2
    print(f"tournament killed: {rounds} rounds, {len(timed)} running statuses on schedule "
          f"({len(timed) - sum(1 for i, _ in timed if i < heard_before)} after the restart), "
          f"{while_dead} bust(s) while the service was dead, levels dealt "
          f"{sorted({bb for t in tables for bb in t.stakes_seen})}, {moves} moves, tables "
          f"broken {broken}")
