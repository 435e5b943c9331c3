"""A tournament table's daemon SIGKILLed as a process, mid-hand and right after the hands
that bust players (issue 30, "Done when": "one table daemon killed mid-level, every
elimination survives"; docs/tournament.md §10).

The daemon is ``python -m tablectl run`` as a child process following tournament ``tk``
(tests/reliability/harness.py: its shoe on a real pty, a ``SimDealer`` dealing and deciding
through a console that resends a command with the same id when no reply came); the
tournament service (its intake and its clock) runs in this process on PostgreSQL and the same
real mosquitto. Four players of five big blinds each play to one winner. The daemon is
SIGKILLed once a seeded random few inputs into the first hand, and at once after every hand
that left a player with no chips (before or while its outbox sends the eliminations), then
started again. (Kills at random points of every kind of hand are tests/reliability/
test_sigkill.py's.)

Checked: every player the dealer's own engine saw bust is recorded once, with the hand that
busted them, and placed (the last one in wins, the tournament finishes); the table freed
every busted seat itself (its ``unseat_player`` by ``tablectl/tournament`` in the journal,
once per bust, also when the kill fell between the two commits); each hand's stacks in the
journal are the dealer's; the level played is the clock's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from pathlib import Path

import pytest

from hardware_sim.records import HandSummary
from tablectl.clock import SystemClock
from tablectl.daemon.tournament import FREEING_USER
from tablectl.tournament.clock import Start, Status
from tablectl.tournament.intake import TableElimination
from tablectl.tournament.pg import PgTournamentStore
from tablectl.tournament.service import TournamentService
from tablectl.tournament.structure import Structure
from tests.conftest import Broker
from tests.reliability.harness import (
    Stack,
    journal_rows,
    open_stack,
    poll_until,
    read_journal,
)
from tests.tournament.simulated import service_running

TID = "tk"
PLAYERS = 4
STACK = 100
STRUCTURE = f"""
name = "Killed table"
starting_stack = {STACK}
seats_per_table = {PLAYERS}
prize_per_entry = 10
payouts = [100]
[[level]]
small_blind = 10
big_blind = 20
minutes = 60
"""
MAX_HANDS = 80


async def killer(stack: Stack, rng: random.Random, kills: list[int]) -> None:
    """SIGKILL the daemon once, mid-hand, ``rng``-few inputs after it started."""
    target = stack.inputs_count() + rng.randint(4, 12)
    await poll_until(lambda: stack.inputs_count() >= target, 60)
    await asyncio.sleep(rng.random() * 0.03)
    stack.daemon.kill()
    kills.append(stack.inputs_count())
    stack.daemon.start()


@pytest.mark.timeout(300)          # five daemon starts: slow on a loaded machine
async def test_a_killed_table_daemon_loses_no_elimination(
        tmp_path: Path, mosquitto: Broker, pg_url: str) -> None:
    rng = random.Random(3031)
    store = PgTournamentStore(pg_url)
    floor = TournamentService(store, SystemClock())
    floor.create(TID, Structure.parse(STRUCTURE, "killed.toml"))
    for seat in range(1, PLAYERS + 1):
        floor.register(TID, f"P{seat}", table=1, seat=seat)
    floor.command(TID, Start())
    heard: list[str] = []

    def told(what: str, _found: TableElimination | None) -> None:
        heard.append(what)

    summaries: list[HandSummary] = []
    busted: dict[str, str] = {}              # player -> the hand that busted them
    kills: list[int] = []
    extra = f'[tournament]\nid = "{TID}"\ntable = 1\n'
    try:
        async with service_running(store, mosquitto, TID, told), open_stack(
                tmp_path, mosquitto.host, mosquitto.port, variant="holdem",
                structure="no-limit", stakes={"small_blind": 10, "big_blind": 20}, seed=31,
                stacks=(STACK,) * PLAYERS, table="tk1", extra=extra) as stack:
            names = {s.number: s.name for s in stack.config.seats}
            task = asyncio.create_task(killer(stack, rng, kills))
            try:
                while sum(1 for v in stack.dealer.stacks.values() if v > 0) > 1:
                    assert len(summaries) < MAX_HANDS, "no winner"
                    before = {s for s, v in stack.dealer.stacks.items() if v > 0}
                    summary = await stack.dealer.play_hand()
                    summaries.append(summary)
                    out = [s for s, v in summary.final_stacks if v == 0 and s in before]
                    for seat in out:
                        busted[names[seat]] = summary.hand_id
                    if out:
                        # at once: the eliminations are in the journal's outbox, maybe sent
                        stack.daemon.kill()
                        kills.append(stack.inputs_count())
                        stack.daemon.start()
            finally:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            await stack.drain_device()
            await poll_until(lambda: len(store.load(TID).field.eliminations) >= PLAYERS - 1,
                             30, every=0.1)
            # the seats are freed by the restarted daemon too: wait for the last one
            await poll_until(lambda: len(_freed(stack)) >= PLAYERS - 1, 30)
            journal = read_journal(stack.journal_path)
            freed = _freed(stack)
    finally:
        store.close()

    assert len(kills) >= 4, kills
    again = PgTournamentStore(pg_url)
    try:
        t = again.load(TID)
    finally:
        again.close()
    assert t.clock.status is Status.FINISHED
    assert t.clock.period == 0                       # one level, never left
    got = {x.player: x.hand for x in t.field.eliminations}
    assert len(t.field.eliminations) == len(got) == PLAYERS - 1
    assert got == busted, (got, busted)
    places = [p.place for p in t.field.ranking()]
    assert places == list(range(1, PLAYERS + 1)), places
    assert sorted(freed) == sorted(s for s, n in names.items() if n in busted), freed
    # every hand as the dealer's engine settled it
    assert len(journal.hands) == len(summaries)
    for summary, hand in zip(summaries, journal.hands, strict=True):
        assert {(s["seat"], s["stack"]) for s in hand["stacks"]} == set(
            summary.final_stacks), summary.hand_id
    assert "recorded" in heard
    print(f"table daemon killed {len(kills)} times in {len(summaries)} hands; "
          f"eliminations {got}")


def _freed(stack: Stack) -> list[int]:
    """The seats the table freed itself (its ``unseat_player`` commands), as journaled."""
    rows = journal_rows(stack.journal_path, "SELECT payload FROM inputs WHERE kind='command'")
    seats: list[int] = []
    for (payload,) in rows:
        cmd = json.loads(payload)
        if cmd.get("name") == "unseat_player" and cmd.get("user") == FREEING_USER:
            seats.append(int(cmd["args"]["seat"]))
    return seats
