"""Soak: complete hands through the full stack with random faults of every kind.

Method: for each variant, a private mosquitto on a free loopback port, ``tablectl run`` as a
child process, the shoe served on a real pty (stable symlink), and a SimDealer dealing and
deciding through an MQTT console that resends a command with the same id when no reply came
(tests/reliability/harness.py). Faults, all at seeded random moments:

* daemon SIGKILL (restarted at once) and broker SIGKILL (restarted 0.1-0.4 s later), each a
  few journaled inputs after the previous fault had healed;
* in the shoe, one or two per hand: unplug/replug with cards dealt meanwhile, reboot right
  after a read (the read is lost: missed_read, entered by hand), misread, duplicate read,
  a tag of another deck, and byte faults on the wire (garbage, bit flip, dropped frame,
  duplicated frame, late frame).

An MQTT watcher (re-subscribing on every connect) records every event and snapshot.

Figures:

* ``events_lost``: events of an uninterrupted controller fed the journaled inputs that the
  journal lacks, plus journal events the watcher got neither live nor with the ``replay``
  command (both must be 0);
* ``cards_wrongly_accepted``: cards the table put on another seat or board slot than the
  dealer dealt them to, cards it shows that were not dealt, plus dealt cards it lost (must
  be 0); hands must also settle as the dealer's own engine did (``hands_mismatched``);
* ``kill_to_snapshot_s``: SIGKILL of the daemon -> the retained snapshot of the new epoch
  at the watcher (restart included); the baseline in the same run is the daemon's cold
  start, process start -> first snapshot (``cold_start_s``). Target: <= 1 s.

The last line printed is one JSON object with every figure.

Usage: ``.venv/bin/python bench/soak.py [--hands 24] [--seed 1] [--variants 8]``
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hardware_sim.faults import FaultKind, FaultPlan  # noqa: E402
from hardware_sim.records import HandSummary  # noqa: E402
from tablectl.domain.deck import Deck  # noqa: E402
from tests.conftest import Broker, private_broker  # noqa: E402
from tests.reliability.harness import (  # noqa: E402
    AUDITOR,
    VARIANTS,
    RetryingConsole,
    Stack,
    Watcher,
    journal_count,
    open_stack,
    poll_until,
    read_journal,
    uninterrupted_events,
)

EVENTS = "poker/v1/tables/rel/events"
SECURE = "secure/v1/tables/rel/holecards"
DEVICE_FAULTS = (FaultKind.UNPLUG, FaultKind.REBOOT, FaultKind.MISREAD,
                 FaultKind.DUPLICATE_READ, FaultKind.FOREIGN_TAG, FaultKind.GARBAGE,
                 FaultKind.BITFLIP, FaultKind.DROP, FaultKind.DUP_FRAME, FaultKind.DELAY)


def plan_faults(rng: random.Random, hands: int) -> list[FaultPlan]:
    """One or two shoe faults per hand, on cards every variant deals (1..8)."""
    plans = []
    for hand in range(1, hands + 1):
        cards = rng.sample(range(1, 9), rng.randint(1, 2))
        for card in cards:
            kind = rng.choice(DEVICE_FAULTS)
            plans.append(FaultPlan(kind, at_card=card, hand=hand,
                                   cards=rng.randint(1, 2), seconds=0.2))
    return plans


class Faults:
    """Daemon and broker kills at random input counts, one at a time."""

    def __init__(self, stack: Stack, broker: Broker, watcher: Watcher,
                 rng: random.Random) -> None:
        self.stack, self.broker, self.watcher, self.rng = stack, broker, watcher, rng
        self.daemon_kills = 0
        self.broker_kills = 0
        self.recoveries: list[float] = []

    def epoch_seen(self) -> int:
        with self.watcher.cond:
            return max((e for e, _, _, _ in self.watcher.snapshots), default=0)

    async def run(self) -> None:
        stack = self.stack
        while True:
            target = stack.inputs_count() + self.rng.randint(3, 10)
            await poll_until(lambda t=target: stack.inputs_count() >= t, 600)  # type: ignore[misc]
            await asyncio.sleep(self.rng.random() * 0.03)
            if self.rng.random() < 0.7:
                old = self.epoch_seen()
                t0 = time.monotonic()
                stack.daemon.kill()
                stack.daemon.start()
                self.daemon_kills += 1
                await poll_until(lambda o=old: self.epoch_seen() > o, 60)  # type: ignore[misc]
                with self.watcher.cond:
                    first = min(w for e, _, _, w in self.watcher.snapshots if e > old)
                self.recoveries.append(first - t0)
                if first - t0 > 2.0:    # say when, so the daemon's log can tell why
                    print(f"slow recovery: a SIGKILL recovered at {time.strftime('%H:%M:%S')} took "
                          f"{first - t0:.1f} s (log: {stack.daemon.log_path})", flush=True)
            else:
                await asyncio.to_thread(self.broker.kill)
                self.broker_kills += 1
                await asyncio.sleep(0.1 + self.rng.random() * 0.3)
                await asyncio.to_thread(self.broker.start)
                await asyncio.sleep(1.5)        # let the daemon reconnect before the next


def seat_cards(journal_events: list[tuple[int, int, str, Any]]) -> dict[str, dict[str, str]]:
    """hand id -> {card: seatN} from the last holecards event of each seat."""
    last: dict[tuple[str, int], list[str]] = {}
    for _, _, etype, data in journal_events:
        if etype == "holecards":
            last[(data["hand"]["id"], data["seat"])] = data["cards"]
    out: dict[str, dict[str, str]] = collections.defaultdict(dict)
    for (hand, seat), cards in last.items():
        for card in cards:
            out[hand][card] = f"seat{seat}"
    return out


def wrong_cards(summaries: list[HandSummary], journal_hands: list[dict[str, Any]],
                secure: list[tuple[int, int, str, Any]]) -> tuple[int, int]:
    """(cards wrongly accepted, dealt cards the table lost)."""
    shown = seat_cards(secure)
    wrong = lost = 0
    for summary, hand in zip(summaries, journal_hands, strict=False):
        dealt = {str(d.card): d.target for d in summary.cards if d.target != "burn"}
        table = dict(shown.get(summary.hand_id, {}))
        table.update({c: f"board{i + 1}" for i, c in enumerate(hand.get("board", []))})
        wrong += sum(1 for c, where in table.items() if dealt.get(c) != where)
        lost += sum(1 for c in dealt if c not in table)
    return wrong, lost


def results_match(summary: HandSummary, hand: dict[str, Any]) -> bool:
    want = {(a.seat, a.amount, a.half.value) for r in summary.results for a in r.awards}
    got = {(a["seat"], a["amount"], a["half"]) for a in hand.get("results", [])}
    stacks = {(s["seat"], s["stack"]) for s in hand.get("stacks", [])}
    return got == want and stacks == set(summary.final_stacks)


def multiset_missing(want: list[Any], got: list[Any]) -> int:
    have = collections.Counter(json.dumps(x, sort_keys=True) for x in got)
    missing = 0
    for x in want:
        key = json.dumps(x, sort_keys=True)
        if have[key]:
            have[key] -= 1
        else:
            missing += 1
    return missing


async def soak_variant(index: int, hands: int, seed: int, workdir: Path) -> dict[str, Any]:
    variant, structure, stakes = VARIANTS[index]
    rng = random.Random(seed)
    broker = private_broker(workdir)
    watcher = Watcher(broker.host, broker.port)
    plans = plan_faults(rng, hands)
    foreign = Deck.load(ROOT / "config/decks/demo-blue.csv")
    t_start = time.monotonic()
    try:
        async with open_stack(workdir, broker.host, broker.port, variant=variant,
                              structure=structure, stakes=stakes, seed=seed, faults=plans,
                              foreign_deck=foreign) as stack:
            await poll_until(lambda: bool(watcher.snapshots), 30)
            cold = watcher.snapshots[0][3] - t_start
            faults = Faults(stack, broker, watcher, rng)
            task = asyncio.create_task(faults.run())
            summaries: list[HandSummary] = []
            try:
                summaries = await stack.dealer.play(hands)
            finally:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
                if broker.proc is None or broker.proc.poll() is not None:
                    broker.start()
            await stack.drain_device()
            await poll_until(lambda: journal_count(
                stack.journal_path,
                "SELECT count(*) FROM events WHERE published_at IS NULL") == 0, 60)
            journal = read_journal(stack.journal_path)
            await asyncio.sleep(0.5)    # the last PUBACKed messages on their way to the watcher

            reference = uninterrupted_events(stack.config, journal.inputs)
            lost = sum(multiset_missing(want, [(t, d) for _, _, t, d in
                                                journal.events.get(topic, [])])
                       for topic, want in reference.items())
            # the audit consumer: live events + replay for every gap, per epoch
            got = {(e, s) for e, s, _, _ in watcher.events}
            missing = [(e, s) for e, s, _, _ in journal.events[EVENTS] if (e, s) not in got]
            fetched = 0
            async with RetryingConsole(broker.host, broker.port, user=AUDITOR) as audit:
                for epoch in sorted({e for e, _ in missing}):
                    seqs = sorted(s for e, s in missing if e == epoch)
                    reply = await audit.raw("replay", {"epoch": epoch, "from_seq": seqs[0],
                                                       "to_seq": seqs[-1]})
                    for ev in reply.get("data", {}).get("events", []):
                        if (epoch, ev["seq"]) in missing:
                            got.add((epoch, ev["seq"]))
                            fetched += 1
            lost += sum(1 for key in missing if key not in got)
            wrong, cards_lost = wrong_cards(summaries, journal.hands,
                                            journal.events.get(SECURE, []))
            fired = collections.Counter(f.plan.kind.value for s in summaries for f in s.faults)
            return {
                "variant": f"{variant}/{structure}", "hands": len(summaries),
                "hands_mismatched": sum(not results_match(s, h) for s, h in
                                        zip(summaries, journal.hands, strict=False))
                + abs(len(summaries) - len(journal.hands)),
                "daemon_kills": faults.daemon_kills, "broker_kills": faults.broker_kills,
                "device_faults": dict(fired), "events": len(journal.events[EVENTS]),
                "events_lost": lost, "replayed_to_auditor": fetched,
                "cards_wrongly_accepted": wrong, "cards_lost": cards_lost,
                "recoveries": faults.recoveries, "cold_start": cold,
                "retries": stack.console.retries,
            }
    finally:
        watcher.close()
        broker.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=24, help="hands in all")
    parser.add_argument("--variants", type=int, default=len(VARIANTS),
                        help="how many of the 8 variants (hands are spread over them)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", metavar="DIR", help="work in DIR (kept) instead of a temp dir")
    args = parser.parse_args()
    per = max(1, args.hands // args.variants)
    rows = []
    with tempfile.TemporaryDirectory(prefix="soak-") as tmp:
        base = Path(args.keep or tmp)
        for i in range(args.variants):
            workdir = base / f"v{i}"
            workdir.mkdir(parents=True, exist_ok=True)
            row = asyncio.run(soak_variant(i, per, args.seed * 100 + i, workdir))
            rows.append(row)
            rec = row["recoveries"]
            print(f"{row['variant']:<26} hands {row['hands']:>2}  daemon kills "
                  f"{row['daemon_kills']:>2}  broker kills {row['broker_kills']:>2}  shoe faults "
                  f"{sum(row['device_faults'].values()):>2}  events {row['events']:>4}  lost "
                  f"{row['events_lost']}  (replayed {row['replayed_to_auditor']})  wrong cards "
                  f"{row['cards_wrongly_accepted']}  lost cards {row['cards_lost']}  "
                  f"kill->snapshot median {statistics.median(rec) if rec else float('nan'):.3f} s"
                  f"  cold start {row['cold_start']:.3f} s", flush=True)
    recoveries = sorted(r for row in rows for r in row["recoveries"])
    colds = [row["cold_start"] for row in rows]
    kinds: collections.Counter[str] = collections.Counter()
    for row in rows:
        kinds.update(row["device_faults"])
    figures = {
        "hands_played": sum(r["hands"] for r in rows),
        "hands_mismatched": sum(r["hands_mismatched"] for r in rows),
        "faults_injected": sum(r["daemon_kills"] + r["broker_kills"]
                               + sum(r["device_faults"].values()) for r in rows),
        "daemon_kills": sum(r["daemon_kills"] for r in rows),
        "broker_kills": sum(r["broker_kills"] for r in rows),
        "shoe_faults": dict(sorted(kinds.items())),
        "events": sum(r["events"] for r in rows),
        "events_lost": sum(r["events_lost"] for r in rows),
        "events_replayed_to_auditor": sum(r["replayed_to_auditor"] for r in rows),
        "cards_wrongly_accepted": sum(r["cards_wrongly_accepted"] for r in rows),
        "cards_lost": sum(r["cards_lost"] for r in rows),
        "command_retries": sum(r["retries"] for r in rows),
        "kill_to_snapshot_s_median": round(statistics.median(recoveries), 3)
        if recoveries else None,
        "kill_to_snapshot_s_p90": round(recoveries[int(0.9 * (len(recoveries) - 1))], 3)
        if recoveries else None,
        "kill_to_snapshot_s_max": round(recoveries[-1], 3) if recoveries else None,
        "cold_start_s_median": round(statistics.median(colds), 3),
        "target_kill_to_snapshot_s": 1.0,
    }
    print(f"hands played {figures['hands_played']}, faults injected "
          f"{figures['faults_injected']}, events lost {figures['events_lost']}, cards wrongly "
          f"accepted {figures['cards_wrongly_accepted']}, SIGKILL -> snapshot median "
          f"{figures['kill_to_snapshot_s_median']} s (cold start "
          f"{figures['cold_start_s_median']} s)")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
