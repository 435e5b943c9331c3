"""The tournament clock against real time, across pauses and restarts in new processes.

Method (this machine, a fresh database on the test PostgreSQL, tests/floor/conftest.py):

* a tournament of ``--levels`` levels of ``--level-seconds`` each is created and started
  with the real ``SystemClock`` through the PostgreSQL store;
* then ``--cycles`` times: the clock runs a random 0.2..1.2 s, is paused, stays paused a
  random 0.1..0.6 s, and is resumed; the bench records the wall time at which each command
  took effect (the instant given to the clock inside the store's transaction) and, apart,
  how long each command took (``command_ms``: the director's wait);
* after each pause and each resume, the clock is read back twice: by this process through a
  **new** store connection, and every other cycle by a **new process** (``tablectl
  tournament status --json``, a restarted service reading the stored record);
* each reading's place in the schedule (seconds of levels played) is compared with the
  running time the bench measured itself up to the reading's own instant (``at``).

Figures: readings, of which in new processes, the largest and median error in ms (the
target is within 1 s), the time a new process took to answer, and each command's time.

The last line printed is one JSON object with every figure.

Usage: ``.venv/bin/python bench/tournament_clock.py [--cycles 6] [--level-seconds 3]``
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from dataclasses import replace
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tablectl.clock import SystemClock  # noqa: E402
from tablectl.tournament.clock import Pause, Resume, Start, apply, view  # noqa: E402
from tablectl.tournament.pg import PgTournamentStore  # noqa: E402
from tablectl.tournament.store import Tournament  # noqa: E402
from tablectl.tournament.structure import Structure  # noqa: E402
from tests.floor.conftest import create_database, database_url, drop_database  # noqa: E402


def structure(levels: int, seconds: int) -> Structure:
    text = "starting_stack = 100000\n" + "".join(
        f"[[level]]\nsmall_blind = {50 * (i + 1)}\nbig_blind = {100 * (i + 1)}\n"
        f"seconds = {seconds}\n" for i in range(levels))
    return Structure.parse(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cycles", type=int, default=6)
    parser.add_argument("--levels", type=int, default=40)
    parser.add_argument("--level-seconds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    name = create_database("tournament_bench")
    url = database_url(name)
    s = structure(args.levels, args.level_seconds)
    starts = [sum(p.seconds for p in s.periods[:i]) for i in range(len(s.periods))]
    clock = SystemClock()
    store = PgTournamentStore(url)
    errors: list[float] = []
    process_errors: list[float] = []
    process_ms: list[float] = []
    command_ms: list[float] = []
    try:
        store.create(Tournament.new("bench", s))
        segments: list[tuple[datetime, datetime | None]] = []   # running intervals

        def command(cmd: Pause | Resume | Start) -> datetime:
            applied: list[datetime] = []

            def change(t: Tournament) -> Tournament:
                applied.append(clock.now())
                return replace(t, clock=apply(t.clock, t.structure, cmd, applied[-1]))

            began = time.monotonic()
            store.update("bench", change)
            command_ms.append((time.monotonic() - began) * 1000)
            return applied[-1]

        def expected(at: datetime) -> float:
            return sum(((end or at) - begin).total_seconds()
                       for begin, end in segments if begin <= at)

        def check(fresh_process: bool) -> None:
            reader = PgTournamentStore(url)              # a new connection: a restart
            t = reader.load("bench")
            reader.close()
            now = clock.now()
            v = view(t.clock, t.structure, now)
            place = starts[v.period.index] + v.period.seconds - v.time_left
            errors.append(abs(place - expected(now)))
            if fresh_process:
                began = time.monotonic()
                out = subprocess.run(
                    [sys.executable, "-m", "tablectl", "tournament", "status", "bench",
                     "--db", url, "--json"], capture_output=True, text=True, check=True,
                    timeout=60, cwd=ROOT)
                process_ms.append((time.monotonic() - began) * 1000)
                body = json.loads(out.stdout)
                c = body["clock"]
                at = datetime.fromisoformat(c["at"])
                place = starts[c["period"]] + c["seconds"] - c["time_left"]
                process_errors.append(abs(place - expected(at)))

        segments.append((command(Start()), None))
        for cycle in range(args.cycles):
            time.sleep(rng.uniform(0.2, 1.2))
            stopped = command(Pause())
            segments[-1] = (segments[-1][0], stopped)
            check(fresh_process=cycle % 2 == 0)
            time.sleep(rng.uniform(0.1, 0.6))
            segments.append((command(Resume()), None))
            check(fresh_process=cycle % 2 == 1)
    finally:
        store.close()
        drop_database(name)
    everything = errors + process_errors
    figures = {
        "readings": len(everything),
        "readings_new_process": len(process_errors),
        "max_error_ms": round(max(everything) * 1000, 3),
        "median_error_ms": round(statistics.median(everything) * 1000, 3),
        "max_error_new_process_ms": round(max(process_errors) * 1000, 3),
        "new_process_answer_ms_median": round(statistics.median(process_ms), 1),
        "command_ms_median": round(statistics.median(command_ms), 1),
        "command_ms_max": round(max(command_ms), 1),
        "within_1s": max(everything) < 1.0,
        "at": clock.now().isoformat(timespec="seconds"),
    }
    print(f"{figures['readings']} readings ({figures['readings_new_process']} by a new "
          f"process): error max {figures['max_error_ms']} ms, median "
          f"{figures['median_error_ms']} ms")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
