"""The daemon SIGKILLed at random points of random hands, every variant.

The daemon runs as a child process (``python -m tablectl run``) on a private mosquitto, the shoe
is served on a real pty, a SimDealer deals and decides through a console that resends a
command with the same id when no reply came. A killer watches the journal and SIGKILLs the
daemon a seeded random few inputs (and milliseconds) later, then starts it again at once; reads
dealt meanwhile wait in the shoe, commands in the broker or the console.

What must hold (an uninterrupted run of the same inputs is the reference):

* every hand's awards and final stacks in the journal equal the dealer's own engine;
* every card the shoe read is journaled (the dealer's step waits for it), and the controller
  accepted each read id once (a resent read is not a second card);
* the journal's events, over all epochs, equal the events one uninterrupted controller derives
  from the journaled inputs: nothing lost to a crash, nothing doubled.

``RELIABILITY_KILLS`` scales it: ``.ci/test`` kills the daemon 4 times in each of three
variants (12 in all, :data:`CI_VARIANTS`); ``.ci/test --all`` 7 times in each of the eight (56).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
from pathlib import Path

import pytest

from hardware_sim.records import HandSummary
from tests.conftest import Broker
from tests.reliability.harness import (
    VARIANTS,
    Stack,
    awards_of,
    journal_rows,
    open_stack,
    read_journal,
    uninterrupted_events,
)

KILLS_PER_VARIANT = int(os.environ.get("RELIABILITY_KILLS", "4"))
MAX_HANDS = 12


async def killer(stack: Stack, rng: random.Random, kills: list[int]) -> None:
    """SIGKILL the daemon ``rng``-few inputs after the last restart, forever."""
    target = stack.inputs_count() + rng.randint(1, 6)
    while True:
        await asyncio.sleep(0.01)
        if stack.inputs_count() >= target:
            await asyncio.sleep(rng.random() * 0.03)
            stack.daemon.kill()
            kills.append(stack.inputs_count())
            stack.daemon.start()
            target = stack.inputs_count() + rng.randint(2, 6)


async def play_with_kills(stack: Stack, seed: int, kills_wanted: int) -> list[HandSummary]:
    """Play hands until ``kills_wanted`` kills happened (and the hand they hit finished)."""
    rng = random.Random(seed)
    kills: list[int] = []
    task = asyncio.create_task(killer(stack, rng, kills))
    summaries: list[HandSummary] = []
    try:
        while len(kills) < kills_wanted and len(summaries) < MAX_HANDS:
            summaries.append(await stack.dealer.play_hand())
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    assert len(kills) >= kills_wanted, f"only {len(kills)} kills in {MAX_HANDS} hands"
    await stack.drain_device()
    return summaries


CI_VARIANTS = {("holdem", "no-limit"), ("omaha-hi-lo", "fixed-limit"), ("stud", "fixed-limit")}
"""One of each family (blinds and a flop; a hi-lo split; antes, a bring-in and seven streets)
in ``.ci/test``; the other five take the ``soak`` marker and run in ``.ci/test --all``."""


@pytest.mark.timeout(360)   # five daemon starts and 12 hands: 100 s alone at a load of 8 on 2 cores
@pytest.mark.parametrize(("variant", "structure", "stakes"), [
    pytest.param(v, s, k, id=f"{v}-{s}",
                 marks=[] if (v, s) in CI_VARIANTS else [pytest.mark.soak])
    for v, s, k in VARIANTS])
async def test_killed_daemon_finishes_every_hand_as_if_never_killed(
        tmp_path: Path, mosquitto: Broker, variant: str, structure: str,
        stakes: dict[str, int]) -> None:
    seed = VARIANTS.index((variant, structure, stakes)) * 7 + 3
    async with open_stack(tmp_path, mosquitto.host, mosquitto.port, variant=variant,
                          structure=structure, stakes=stakes, seed=seed) as stack:
        summaries = await play_with_kills(stack, seed, KILLS_PER_VARIANT)
        assert stack.daemon.kills >= KILLS_PER_VARIANT
        journal = read_journal(stack.journal_path)

        # the results: each hand as the dealer's independent engine settled it
        assert len(journal.hands) == len(summaries), stack.daemon.log_tail()
        for summary, hand in zip(summaries, journal.hands, strict=True):
            want = {(a.seat, a.amount, a.half.value) for r in summary.results
                    for a in r.awards}
            assert hand["result"] == "settled", hand
            assert awards_of(hand) == want, (summary.hand_id, hand)
            assert {(s["seat"], s["stack"]) for s in hand["stacks"]} == set(
                summary.final_stacks), summary.hand_id

        # no card lost, none doubled: every read the shoe sent is journaled; a resent read
        # (same read id) is journaled again but accepted once
        dealt = sum(len(s.cards) for s in summaries)
        read_ids = [r for (r,) in journal_rows(
            stack.journal_path, "SELECT json_extract(payload, '$.read_id') FROM inputs "
                                "WHERE kind='card_read'")]
        assert len(set(read_ids)) == stack.shoe.reads == dealt

        # nothing lost or doubled in the outbox across crashes
        reference = uninterrupted_events(stack.config, journal.inputs)
        for topic, want_events in reference.items():
            got = [(t, d) for _, _, t, d in journal.events.get(topic, [])]
            assert got == want_events, topic
