"""Commands answered from the journal, not the controller: ``recall`` (the last hands step by
step) and ``replay`` (a range of public events, for a display that missed some).

Both answer any role with public data only (docs/security.md §6): a recall is the hands'
public view (:mod:`tablectl.history.public_view`: no tag UID, no card that was not shown),
a replay the events of the public events topic as they were published. Nothing here reads or
answers with the secure root; a full recall is the operator's ``tablectl recall`` on the table
computer."""

from __future__ import annotations

import json
from typing import Final

from tablectl.controller.inputs import Command
from tablectl.controller.table import TableSetup
from tablectl.domain.jsonvalue import JsonValue
from tablectl.history.public_view import public_hand, without_uids
from tablectl.history.recall import recall_hands
from tablectl.journal import Journal, JournalError
from tablectl.publish import topics
from tablectl.publish.envelope import ReplyError, ReplyPayload

MAX_REPLAY_EVENTS: Final = 2000
MAX_RECALL_HANDS: Final = 50


def recall_json(journal: Journal, n: int) -> list[dict[str, JsonValue]]:
    """The last ``n`` hands (newest first), step by step, as any role may see them: each
    input (the hand's ``start_hand`` included) in its public view with the public events it
    caused (:func:`~tablectl.history.public_view.public_hand`)."""
    return [public_hand(hand) for hand in recall_hands(journal, n)]


def answer_from_journal(journal: Journal, setup: TableSetup, cmd: Command) -> ReplyPayload:
    """The reply to a ``recall`` or ``replay`` command."""
    role = setup.roles.get(cmd.user)
    if role is None:
        return ReplyPayload(id=cmd.id, status="error", error=ReplyError(
            code="not_authorised", message=f"{cmd.user} has no role at this table"))
    try:
        if cmd.name == "recall":
            n = cmd.args.get("hands", 10)
            if not isinstance(n, int) or not 1 <= n <= MAX_RECALL_HANDS:
                raise ValueError(f"hands must be 1..{MAX_RECALL_HANDS}")
            hands: list[JsonValue] = list(recall_json(journal, n))
            return ReplyPayload(id=cmd.id, status="ok", data={"hands": hands})
        journal_id = cmd.args.get("journal", journal.journal_id)
        if journal_id != journal.journal_id:
            raise ValueError(f"journal {journal_id!r} is not this daemon's journal "
                             f"({journal.journal_id}): its events are not here")
        epoch = cmd.args.get("epoch", journal.epoch)
        lo, hi = cmd.args.get("from_seq", 1), cmd.args.get("to_seq")
        if not isinstance(epoch, int) or not isinstance(lo, int) or not isinstance(
                hi, int) or hi < lo or hi - lo >= MAX_REPLAY_EVENTS:
            raise ValueError("replay needs integers epoch, from_seq <= to_seq, "
                             f"at most {MAX_REPLAY_EVENTS} events")
        records = journal.events_range(topics.events(setup.table).value, epoch, lo, hi)
        return ReplyPayload(id=cmd.id, status="ok", data={
            "journal": journal.journal_id, "events": [
                {"epoch": r.epoch, "seq": r.seq, "type": r.type,
                 "ts": r.created_at.isoformat(),
                 "data": without_uids(json.loads(json.dumps(dict(r.payload))))}
                for r in records]})
    except (ValueError, JournalError) as exc:
        return ReplyPayload(id=cmd.id, status="error",
                            error=ReplyError(code="bad_args", message=str(exc)))
