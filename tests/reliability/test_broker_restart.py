"""The broker SIGKILLed and restarted mid-hand (no broker persistence: sessions, queued
messages and the retained snapshot die with it), at least ten times.

Two consumers watch the table through all of it, from one MQTT client that re-subscribes on
every connect:

* a **display** that follows the documented resync rules (:class:`tablectl.publish.resync.
  Resync`: events in seq order, duplicates dropped, the retained snapshot as the repair) ends
  showing exactly the state one uninterrupted controller reaches from the journaled inputs,
  at the journal's last seq;
* an **audit consumer** keeps every event it received (deduplicated by seq), asks the daemon
  for each missing range with the ``replay`` command (answered from the journal), and ends
  with exactly the journal's events.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
from pathlib import Path
from typing import Any

from tablectl.app import initial_state, table_setup
from tablectl.controller import HandController
from tablectl.controller.inputs import input_from_json
from tablectl.publish.resync import Resync
from tests.conftest import Broker
from tests.reliability.harness import (
    AUDITOR,
    VARIANTS,
    RetryingConsole,
    Stack,
    Watcher,
    journal_count,
    open_stack,
    poll_until,
    read_journal,
)

BROKER_KILLS = int(os.environ.get("RELIABILITY_BROKER_KILLS", "10"))
EVENTS = "poker/v1/tables/rel/events"


async def broker_killer(stack: Stack, broker: Broker, rng: random.Random,
                        kills: list[int]) -> None:
    """Kill the broker a few inputs after it came back; restart it 0.1-0.4 s later."""
    while True:
        target = stack.inputs_count() + rng.randint(2, 6)
        await poll_until(lambda t=target: stack.inputs_count() >= t, 120)  # type: ignore[misc]
        await asyncio.sleep(rng.random() * 0.05)
        await asyncio.to_thread(broker.kill)
        kills.append(stack.inputs_count())
        await asyncio.sleep(0.1 + rng.random() * 0.3)
        await asyncio.to_thread(broker.start)


def replayed_display(stream: list[tuple[str, dict[str, Any], float]]) -> Resync[Any, Any]:
    """A display fed what the watcher received, in order (the fold only counts events: their
    effect is also in the next snapshot, which the daemon publishes after every event)."""
    display: Resync[Any, Any] = Resync(lambda view, ev: (view[0], view[1] + (ev["seq"],)),
                                       reorder_timeout=0.5)
    for kind, body, when in stream:
        if kind == "events":
            display.on_event(body["epoch"], body["seq"], body, now=when)
        elif kind == "state":
            display.on_snapshot(body["epoch"], body["seq"], (body["data"], ()), now=when)
        elif kind == "status":
            display.on_status(body["state"] == "online", body["epoch"], now=when)
    return display


async def test_broker_restarts_lose_nothing_for_displays_and_auditors(
        tmp_path: Path, mosquitto: Broker) -> None:
    variant, structure, stakes = VARIANTS[1]
    rng = random.Random(29)
    async with open_stack(tmp_path, mosquitto.host, mosquitto.port, variant=variant,
                          structure=structure, stakes=stakes, seed=29) as stack:
        watcher = Watcher(mosquitto.host, mosquitto.port)
        kills: list[int] = []
        task = asyncio.create_task(broker_killer(stack, mosquitto, rng, kills))
        try:
            hands = 0
            while len(kills) < BROKER_KILLS and hands < 15:
                await stack.dealer.play_hand()
                hands += 1
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            if mosquitto.proc is None or mosquitto.proc.poll() is not None:
                mosquitto.start()
        assert len(kills) >= BROKER_KILLS
        # everything journaled was PUBACKed by the broker (the outbox is empty)...
        await poll_until(lambda: journal_count(
            stack.journal_path, "SELECT count(*) FROM events WHERE published_at IS NULL") == 0,
            30)
        journal = read_journal(stack.journal_path)
        epochs = {e for e, _, _, _ in journal.events[EVENTS]}
        assert len(epochs) == 1                          # the daemon itself never restarted
        epoch = epochs.pop()
        last = max(s for _, s, _, _ in journal.events[EVENTS])
        # ...and the display caught up with the last retained snapshot
        assert await asyncio.to_thread(watcher.wait_for, lambda w: any(
            k == "state" and b.get("seq") == last for k, b, _ in w.stream[-5:]))
        watcher.close()

        # the display: exactly the uninterrupted controller's state, at the journal's seq
        display = replayed_display(watcher.stream)
        assert display.synced and display.epoch == epoch and display.seq == last
        reference = HandController(table_setup(stack.config), initial_state(stack.config))
        for payload in journal.inputs:
            reference.handle(input_from_json(payload))
        shown = [b for k, b, _ in watcher.stream if k == "state"][-1]
        assert shown["seq"] == last
        assert shown["data"] == json.loads(json.dumps(reference.public_snapshot()))

        # the audit consumer: live events deduplicated by seq, the gaps fetched by replay
        got = {s: (t, d) for e, s, t, d in watcher.events if e == epoch}
        missing = sorted(set(range(1, last + 1)) - set(got))
        async with RetryingConsole(mosquitto.host, mosquitto.port, user=AUDITOR) as audit:
            for lo, hi in ranges(missing):
                reply = await audit.raw("replay", {"epoch": epoch, "from_seq": lo,
                                                   "to_seq": hi})
                assert reply["status"] == "ok", reply
                for ev in reply["data"]["events"]:
                    got.setdefault(ev["seq"], (ev["type"], ev["data"]))
        want = {s: (t, d) for _, s, t, d in journal.events[EVENTS]}
        assert got == want
        print(f"broker kills {len(kills)}, events {last}, received live "
              f"{last - len(missing)}, fetched by replay {len(missing)}")


def ranges(seqs: list[int]) -> list[tuple[int, int]]:
    """Contiguous ``(lo, hi)`` runs of sorted ``seqs``.

    >>> ranges([1, 2, 3, 7, 9, 10])
    [(1, 3), (7, 7), (9, 10)]
    """
    out: list[tuple[int, int]] = []
    for s in seqs:
        if out and out[-1][1] == s - 1:
            out[-1] = (out[-1][0], s)
        else:
            out.append((s, s))
    return out
