"""The shoe unplugged and replugged, and rebooted, mid-deal, against the daemon process.

* **unplug / replug** (cards dealt while the cable is out): the reader keeps its reads and
  resends them after the new handshake; each is journaled, and accepted, once;
* **reboot right after a read** (the read dies with the reader, as on a power cut): the shoe
  source reports the restart as a possible lost read (``ReadMissed``), the controller raises
  ``missed_read`` and refuses further reads until the dealer entered the card by hand
  (``manual_card``) and cleared the error; the next card read then goes where it belongs:
  nothing is silently mis-assigned.

Each hand must settle exactly as the dealer's own engine settled it, every planned fault must
have fired, and the outbox must equal an uninterrupted controller's events.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hardware_sim.faults import FaultKind, FaultPlan
from tests.conftest import Broker
from tests.reliability.harness import (
    VARIANTS,
    awards_of,
    journal_rows,
    open_stack,
    read_journal,
    uninterrupted_events,
)

FAULTS = (
    FaultPlan(FaultKind.UNPLUG, at_card=3, hand=1, cards=2),
    FaultPlan(FaultKind.REBOOT, at_card=7, hand=1),
    FaultPlan(FaultKind.UNPLUG, at_card=2, hand=2, cards=3),
    FaultPlan(FaultKind.REBOOT, at_card=6, hand=2),
    FaultPlan(FaultKind.UNPLUG, at_card=5, hand=3, cards=1),
)


@pytest.mark.parametrize("index", [1, 7], ids=["holdem-no-limit", "razz"])
async def test_unplug_and_reboot_mid_deal_lose_and_double_nothing(
        tmp_path: Path, mosquitto: Broker, index: int) -> None:
    variant, structure, stakes = VARIANTS[index]
    async with open_stack(tmp_path, mosquitto.host, mosquitto.port, variant=variant,
                          structure=structure, stakes=stakes, seed=41 + index,
                          faults=FAULTS) as stack:
        summaries = await stack.dealer.play(3)
        await stack.drain_device()
        assert stack.dealer.missed_faults == ()
        fired = [f.plan.kind for s in summaries for f in s.faults]
        assert fired.count(FaultKind.UNPLUG) == 3 and fired.count(FaultKind.REBOOT) == 2

        journal = read_journal(stack.journal_path)
        assert len(journal.hands) == 3
        for summary, hand in zip(summaries, journal.hands, strict=True):
            assert awards_of(hand) == {(a.seat, a.amount, a.half.value)
                                       for r in summary.results for a in r.awards}
            assert {(s["seat"], s["stack"]) for s in hand["stacks"]} == set(
                summary.final_stacks)
            board = [str(d.card) for d in summary.cards if d.target.startswith("board")]
            assert hand["board"] == board

        # every card: read once and journaled (resent reads share their read id), or lost
        # in a reboot and entered by hand; never both, never neither
        read_ids = {r for (r,) in journal_rows(
            stack.journal_path, "SELECT json_extract(payload, '$.read_id') FROM inputs "
                                "WHERE kind='card_read'")}
        manual = [a for (a,) in journal_rows(
            stack.journal_path, "SELECT json_extract(payload, '$.args.card') FROM inputs "
                                "WHERE kind='command' AND "
                                "json_extract(payload, '$.name')='manual_card'")]
        dealt = [d for s in summaries for d in s.cards]
        assert len(manual) == stack.ports.lost == sum(not d.read for d in dealt) == 2
        assert len(read_ids) == sum(d.read for d in dealt)
        assert sorted(manual) == sorted(str(d.card) for d in dealt if not d.read)

        # each reboot was reported as a possible lost read, and cleared by the dealer
        kinds = [k for (k,) in journal_rows(stack.journal_path,
                                            "SELECT kind FROM inputs ORDER BY seq")]
        assert kinds.count("read_missed") == 2
        cleared = journal_rows(stack.journal_path, "SELECT code, cleared_by FROM errors "
                                                   "WHERE code='missed_read'")
        assert len(cleared) == 2 and all(by is not None for _, by in cleared)

        reference = uninterrupted_events(stack.config, journal.inputs)
        for topic, want in reference.items():
            assert [(t, d) for _, _, t, d in journal.events.get(topic, [])] == want
