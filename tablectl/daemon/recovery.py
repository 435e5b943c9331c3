"""Rebuilding a table from its journal at start (and after a failed commit).

The controller is restored from the checkpoint of the last hand started and every input
journaled since is replayed, each with the decision journaled beside it and under the config
journaled then (see :mod:`tablectl.controller.decisions`): the replay reproduces the live run
whatever the config is now.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping

from tablectl.controller import HandController
from tablectl.controller.decisions import decision_of, journaled_reply, same_decision
from tablectl.controller.inputs import Command, input_from_json
from tablectl.controller.setup_json import ConfigChange
from tablectl.controller.table import TableSetup, TableState
from tablectl.daemon.hand_rows import HandRows
from tablectl.journal import Journal, JournalStateError, NewEvent

_LOGGER = logging.getLogger(__name__)

Derived = list[tuple[int, NewEvent]]
"""Events a replay derived, each with the id of its hand row."""


def journaled_config(journal: Journal, seq: int) -> ConfigChange:
    """The ``config`` input journaled at ``seq``.

    Raises:
        JournalStateError: the input at ``seq`` is not a config.
    """
    record = journal.input_at(seq)
    inp = input_from_json(record.payload)
    if not isinstance(inp, ConfigChange):
        raise JournalStateError(f"journal input {seq} is a {record.kind}, not a config")
    return inp


def rebuild(journal: Journal, table: str, setup: TableSetup, initial: TableState,
            rows: HandRows) -> tuple[HandController, int, Derived]:
    """The controller and the open hand row (in ``rows``) from the journal: the checkpoint
    of the last hand started, then every input journaled since.

    Returns:
        The controller, the number of inputs replayed, and the events they derived.
    """
    recent = journal.last_hands(1)
    after = 0
    state = initial
    rows.current = None
    rows.config_seq = 0
    if recent:
        hand = recent[0].hand
        checkpoint = hand.summary.get("checkpoint")
        start_seq = hand.summary.get("input_seq")
        if isinstance(checkpoint, Mapping) and isinstance(start_seq, int):
            state = TableState.from_json(checkpoint)
            after = start_seq - 1
            rows.current = hand if hand.ended_at is None else None
            config_seq = hand.summary.get("config_seq")
            if isinstance(config_seq, int) and config_seq > 0:
                setup = journaled_config(journal, config_seq).setup
                rows.config_seq = config_seq
    controller = HandController.restore(setup, state)
    replayed = 0
    derived: Derived = []
    for record in journal.inputs(after_seq=after):
        try:
            inp = input_from_json(record.payload)
        except ValueError as exc:
            _LOGGER.error("table %s: journal input %d cannot be read: %s", table,
                          record.seq, exc)
            continue
        before = rows.current
        decided = journaled_reply(inp.id, record.decision) if isinstance(
            inp, Command) else None
        outcome = controller.handle(inp, decided=decided)
        if not same_decision(record.decision, decision_of(outcome)):
            _LOGGER.error("table %s: journal input %d was decided %s when it came, %s on "
                          "replay", table, record.seq, record.decision, decision_of(outcome))
        if isinstance(inp, ConfigChange):
            rows.config_seq = record.seq
        rows.track(outcome, record.seq, replaying=True)
        row = rows.current or before
        if row is not None:
            derived += [(row.id, e) for e in rows.new_events(outcome, row.id)]
        replayed += 1
    return controller, replayed, derived


def restore_lost_events(journal: Journal, table: str, derived: Derived) -> None:
    """Put back the events of an input journaled just before a crash that came before
    its events were (the two are separate transactions).

    Replay derives every event of the last hand row again; what the journal holds for
    that hand must be a prefix of it (per topic), and the missing tail can only be the
    last input's events: they are appended to the outbox now (in the new epoch).
    """
    recent = journal.last_hands(1)
    if not recent:
        return
    last = recent[0]
    if last.inputs and last.inputs[-1].decision is not None:
        return      # journaled with its events in one transaction: nothing can be missing
    mine = [e for hand_id, e in derived if hand_id == last.hand.id]
    missing: list[NewEvent] = []
    for topic in dict.fromkeys(e.topic for e in mine):
        want = [(e.type, json.loads(json.dumps(e.payload))) for e in mine
                if e.topic == topic]
        have = [(r.type, json.loads(json.dumps(dict(r.payload)))) for r in last.events
                if r.topic == topic]
        if have != want[:len(have)]:
            _LOGGER.error("table %s: journaled events of hand %d differ from their replay; "
                          "left as they are", table, last.hand.number)
            return
        missing += [e for e in mine if e.topic == topic][len(have):]
    if missing:
        _LOGGER.warning("table %s: %d events of the last input before the crash were not "
                        "journaled; appended now", table, len(missing))
        journal.append_events(missing)
