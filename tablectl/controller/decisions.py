"""What was decided about an input, as the journal keeps it beside the input.

An input's effect depends on the config in force (a ``start_hand`` from a user with no role is
refused ``not_authorised``; the same input from a dealer starts a hand). The daemon therefore
journals, with every input, the decision the controller took, and a replay reproduces that
decision instead of deciding again under whatever config the daemon runs with now:

* a command refused when it came is refused again with the same reply, changing nothing;
* a command applied when it came is executed without the checks that depend on the config
  (role, permission, command age); the rest is the same state, so the same result;
* reads and device changes carry their decision too (``applied``, or the read error they
  raised); they depend only on the setup in force, which the journal holds as ``config``
  inputs (:class:`~tablectl.controller.setup_json.ConfigChange`), so a replay re-derives them
  and :func:`same_decision` checks that it did.

A decision is a JSON object: ``{"applied": true}``, ``{"applied": false, "code": ...,
"reason": ...}``, or ``{"applied": false, "repeat": true}`` for a command id seen before
(answered with its first reply).

>>> from tablectl.controller.outcome import Outcome
>>> from tablectl.controller.reply import ErrorCode, Reply
>>> refused = Outcome(reply=Reply.failure("c1", ErrorCode.NOT_AUTHORISED, "no role"))
>>> decision_of(refused)
{'applied': False, 'code': 'not_authorised', 'reason': 'no role'}
>>> journaled_reply("c1", decision_of(refused)) == refused.reply
True
"""

from __future__ import annotations

from collections.abc import Mapping

from tablectl.controller.outcome import Outcome
from tablectl.controller.reply import ErrorCode, Reply
from tablectl.domain.jsonvalue import JsonValue


def decision_of(outcome: Outcome) -> dict[str, JsonValue]:
    """The decision ``outcome`` records, to journal with its input."""
    reply = outcome.reply
    if outcome.duplicate:
        return {"applied": False, "repeat": True}
    if reply is not None:
        if reply.ok:
            return {"applied": True}
        assert reply.code is not None
        return {"applied": False, "code": reply.code.value, "reason": reply.reason}
    raised = [e for e in outcome.errors if e.active]
    if raised:
        return {"applied": False, "code": raised[0].code.value, "reason": raised[0].message}
    return {"applied": True}


def journaled_reply(command_id: str, decision: Mapping[str, object] | None) -> Reply | None:
    """What a replay must hand :meth:`HandController.handle` as ``decided`` for a command
    journaled with ``decision``: None to decide as usual (no decision journaled, or a
    repeat, which the controller answers from its own record of replies), the refusal to
    give again, or a success to execute without the config's admission checks."""
    if decision is None or decision.get("repeat") is True:
        return None
    if decision.get("applied") is True:
        return Reply.success(command_id)
    code, reason = decision.get("code"), decision.get("reason")
    try:
        return Reply.failure(command_id, ErrorCode(str(code)), str(reason or ""))
    except ValueError:
        return None  # a code this version does not know: decide again


def same_decision(journaled: Mapping[str, object] | None, replayed: Mapping[str, object]) -> bool:
    """True when a replay decided as the live run did (or nothing was journaled)."""
    if journaled is None:
        return True
    keys = ("applied", "code", "repeat")
    return all(journaled.get(k) == replayed.get(k) for k in keys)
