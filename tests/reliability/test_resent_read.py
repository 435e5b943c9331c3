"""A read the reader resends after a host crash (same read id, any time later) is a repeat of
the accepted read, not a second card; the same card under another read id still is."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from tablectl.app import initial_state, table_setup
from tablectl.config import load_config
from tablectl.controller import HandController
from tablectl.controller.inputs import CardRead, Command
from tests.reliability.harness import DEALER, VARIANTS, write_config

T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def test_a_resent_read_is_a_repeat_and_another_read_of_the_card_is_not(
        tmp_path: Path) -> None:
    variant, structure, stakes = VARIANTS[1]
    config = load_config(write_config(tmp_path, "mqtt://127.0.0.1:1", variant, structure,
                                      stakes))
    setup = table_setup(config)
    ctrl = HandController(setup, initial_state(config))
    deck = setup.decks[setup.deck_id]
    uid = deck.uid_for(next(iter(deck.uids_by_card)))
    start = ctrl.handle(Command(name="start_hand", user=DEALER, id="s", at=T0, args={}))
    assert start.reply is not None and start.reply.ok

    first = ctrl.handle(CardRead(source="shoe", uid=uid, antenna=0, read_id="shoe:1:7",
                                 at=T0 + timedelta(seconds=1)))
    assert [e.type for e in first.events] and not first.errors
    dealt = ctrl.public_snapshot()

    # a minute later (far beyond any debounce) the reader resends the same read
    again = ctrl.handle(CardRead(source="shoe", uid=uid, antenna=0, read_id="shoe:1:7",
                                 at=T0 + timedelta(seconds=61)))
    assert not again.events and not again.secure_events and not again.errors
    assert ctrl.public_snapshot() == dealt

    # the same card read as a new read is a duplicate card
    other = ctrl.handle(CardRead(source="shoe", uid=uid, antenna=0, read_id="shoe:1:9",
                                 at=T0 + timedelta(seconds=62)))
    assert [c.code.value for c in other.errors] == ["duplicate_card"]
