"""A simulated tournament to one winner (issue 30, "Done when"; docs/tournament.md §10): three
table daemons of nine seats (``run_daemon``, cards from ``hardware_sim`` shoes over the
reader protocol, decisions from a seeded random dealer), the tournament service on
PostgreSQL with its clock running fast, all on one real mosquitto.

The floor's part is played by the test: after every round of hands it makes the moves
``tournament balance`` gives (the tables free the busted players' seats themselves:
checked). Checked: every table deals each new level from its next hand on, and never
changes the stakes of a hand in progress; every elimination is recorded once and placed;
tables are balanced and broken; hand for hand near the bubble (no table starts a hand of a
round before every table finished the round before); the service and one table daemon
killed mid-level and started again, the clock and every elimination surviving; one winner.

In every ``.ci/test`` run (about 10 s of CPU). It once caught a table starting a second hand
in a hand-for-hand round: its daemon, killed just after it had said it was ready, started a
hand on restart before the retained status reached it; the table's round is now kept in its
journal (tablectl/daemon/lockstep.py, tests/tournament/test_hand_for_hand.py). The real
processes SIGKILLed are tests/tournament/test_tournament_kill.py (the service) and
tests/tournament/test_table_sigkill.py (a table daemon).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from pathlib import Path

import pytest

from tablectl.clock import SystemClock
from tablectl.tournament.clock import Start, Status
from tablectl.tournament.intake import TableElimination
from tablectl.tournament.pg import PgTournamentStore
from tablectl.tournament.service import TournamentService
from tablectl.tournament.structure import Structure
from tests.conftest import Broker
from tests.tournament.simulated import FLOOR, Table, service_running, table_config, until

TABLES = 3
SEATS = 9
STACK = 1000
LEVEL_SECONDS = 2
STRUCTURE = (f"name = \"Simulated turbo\"\nstarting_stack = {STACK}\nseats_per_table = {SEATS}"
             "\nprize_per_entry = 10\npayouts = [30, 20, 12, 9, 7, 6, 5, 4, 4, 3]\n"
             "hand_for_hand_at = 17\n" + "".join(
                 f"[[level]]\nsmall_blind = {sb}\nbig_blind = {2 * sb}\nante = {2 * sb}\n"
                 f"seconds = {LEVEL_SECONDS}\n"
                 for sb in (10, 20, 40, 75, 150, 300, 600, 1200, 2500, 5000, 10000, 20000)))


@pytest.mark.timeout(240)
async def test_three_tables_play_a_tournament_to_one_winner(
        tmp_path: Path, mosquitto: Broker, pg_url: str) -> None:
    rng = random.Random(30)
    store = PgTournamentStore(pg_url)
    clock = SystemClock()
    recorded: list[TableElimination | None] = []
    changed = asyncio.Event()

    def told(what: str, found: TableElimination | None) -> None:
        if what in ("recorded", "again"):
            recorded.append(found)
        changed.set()

    setup = TournamentService(store, clock)
    setup.create("sim", Structure.parse(STRUCTURE, "sim.toml"))
    for i in range(TABLES * SEATS):
        setup.register("sim", f"P{i + 1}")
    setup.command("sim", Start())
    tables = [Table(n, table_config(tmp_path, mosquitto, n, seats=SEATS, stack=STACK),
                    on_status=lambda _payload: changed.set())
              for n in range(1, TABLES + 1)]
    busts_made = 0
    rounds = 0
    h4h_rounds = 0
    killed = False
    service_cm = service_running(store, mosquitto, "sim", told)
    service = await service_cm.__aenter__()
    try:
        for t in tables:
            await t.start()
        while len(store.load("sim").field.playing) > 1:
            rounds += 1
            assert rounds < 2000, "no winner"
            results = [await t.play(rng) for t in tables]
            for t in tables:
                busts_made += len(t.busted())     # each seat freed by the table itself
            await until(changed, lambda want=busts_made: len(  # type: ignore[misc]
                store.load("sim").field.eliminations) >= want)
            if "waits" in results:
                h4h_rounds += 1
            if rounds == 8 and not killed:
                # kill the service and a table daemon mid-level; start them again
                killed = True
                before = store.load("sim")
                await service_cm.__aexit__(None, None, None)
                await tables[1].kill()
                await tables[1].start()
                service_cm = service_running(store, mosquitto, "sim", told)
                service = await service_cm.__aenter__()
                after = store.load("sim")
                assert after.field.eliminations == before.field.eliminations
                assert after.clock.period >= before.clock.period
            buttons = {t.number: t.daemon.controller.checkpoint().button for t in tables
                       if t.daemon is not None}
            plan, _ = service.balance("sim", apply_moves=True, buttons=buttons)
            for move in plan.moves:
                src = tables[move.from_table - 1]
                dst = tables[move.to_table - 1]
                out = src.cmd("unseat_player", user=FLOOR, seat=move.from_seat)
                assert out.ok, out
                assert dst.cmd("seat_player", user=FLOOR, seat=move.to_seat,
                               name=move.player, stack=out.result["stack"]).ok
            if plan.moves or plan.broken:
                await service.publish(store.load("sim"))
            if not any(r == "played" for r in results):
                # every table waits: the next round goes once their reports are in
                await until(changed, lambda: all(t.daemon.tournament.holds_start() is None
                                        for t in tables if t.daemon is not None
                                        and t.daemon.tournament is not None), 30)
        final = store.load("sim")
    finally:
        with contextlib.suppress(Exception):
            await service_cm.__aexit__(None, None, None)
        for t in tables:
            if t.task is not None:
                await t.kill()
        store.close()
    assert final.clock.status is Status.FINISHED
    assert len(final.field.eliminations) == TABLES * SEATS - 1
    places = [p.place for p in final.field.ranking()]
    assert places[0] == 1 and None not in places
    # each elimination once: one per player but the winner, each (table, hand, seat) once
    assert len({(x.table, x.hand, x.seat) for x in final.field.eliminations}) == len(
        final.field.eliminations)
    assert len({x.player for x in final.field.eliminations}) == TABLES * SEATS - 1
    levels = sorted({bb for t in tables for bb in t.stakes_seen})
    for t in tables:                       # levels only rise, each from a hand's start on
        assert t.stakes_seen == sorted(t.stakes_seen), t.stakes_seen
    assert len(levels) >= 3, levels
    refused = sum(t.h4h_refused for t in tables)
    assert killed and refused >= 2, (rounds, refused)
    print(f"simulated tournament: {rounds} rounds, {sum(len(t.stakes_seen) for t in tables)} "
          f"hands, levels dealt {levels}; hand for hand: {refused} start_hand refused after "
          f"a table's hand, {h4h_rounds} rounds where a table still waited")
