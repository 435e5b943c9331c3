"""The snapshot's ``commands`` (what a console may offer) against the controller's replies.

The same hypothesis machine as ``test_command_phases`` deals hands and sends random
commands in every stage; before each command it reads ``commands`` of the public snapshot:

* a command not ``available`` is refused, whatever its arguments;
* a command that needs no arguments (start_hand, next_hand, undo, misdeal, kill_hand) is
  accepted exactly when it is ``available``;
* an accepted undo takes back exactly the decision ``commands.undo`` named.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import rule

from tablectl.controller import COMMAND_TABLE, ErrorCode
from tablectl.controller.payloads import PublicSnapshot
from tablectl.game import Act
from tests.controller.helpers import FLOOR, Driver, fresh
from tests.controller.test_command_phases import _VALID_ARGS, CommandPhases

NO_ARGS = frozenset({"start_hand", "next_hand", "undo", "misdeal", "kill_hand"})


class AvailableCommands(CommandPhases):
    @rule(data=st.data())
    def command(self, data: st.DataObject) -> None:
        name = data.draw(st.sampled_from(sorted(COMMAND_TABLE)), label="name")
        args = data.draw(_VALID_ARGS[name])
        snap: dict[str, Any] = dict(self.ctl.public_snapshot())
        PublicSnapshot.model_validate(snap)
        offered = snap["commands"]
        out = self.send(name, args)
        reply = out.reply
        assert reply is not None
        if name not in offered["available"]:
            assert not reply.ok, (name, args, offered)
        elif name in NO_ARGS:
            assert reply.ok, (name, reply.code, reply.reason, offered)
        if name == "undo" and reply.ok:
            assert reply.result["undone"] == offered["undo"]
        if name in NO_ARGS and not reply.ok:
            assert name not in offered["available"]


AvailableCommands.TestCase.settings = settings(
    max_examples=30, stateful_step_count=50, deadline=None,
    suppress_health_check=[HealthCheck.too_slow])
test_available_commands = AvailableCommands.TestCase


def _offered(driver: Driver) -> dict[str, Any]:
    return dict(driver.ctl.public_snapshot()["commands"])  # type: ignore[arg-type]


def test_undo_and_misdeal_follow_the_hand() -> None:
    """A hold'em hand step by step: undo names the last decision and goes away when a card
    follows it; misdeal goes away at substantial action; start and next swap at the end."""
    d = fresh(stacks=(5000, 5000, 5000))
    assert _offered(d) == {"available": ["adjust_stack", "seat_player", "start_hand",
                                         "unseat_player"], "undo": None}
    assert d.cmd("start_hand").reply.ok  # type: ignore[union-attr]
    offered = _offered(d)
    assert "start_hand" not in offered["available"] and "misdeal" in offered["available"]
    assert offered["undo"] is None and "action" not in offered["available"]  # cards first
    for card in ("As", "Kd", "Qh", "Js", "Tc", "9d"):
        d.read(card)
    assert "action" in _offered(d)["available"]
    exp = d.ctl.expected()
    assert isinstance(exp, Act)
    d.act(exp.seat, "raise", 300)
    offered = _offered(d)
    assert offered["undo"] == {"seat": exp.seat, "kind": "raise", "amount": 300}
    assert "undo" in offered["available"]
    second = d.ctl.expected()
    assert isinstance(second, Act)
    d.act(second.seat, "call")
    offered = _offered(d)
    assert "misdeal" not in offered["available"]        # two decisions, chips in
    assert d.cmd("misdeal").reply.code is ErrorCode.WRONG_PHASE  # type: ignore[union-attr]
    assert offered["undo"] == {"seat": second.seat, "kind": "call"}
    third = d.ctl.expected()
    assert isinstance(third, Act)
    d.act(third.seat, "fold")
    d.read("8c")                                         # the burn: undo no longer possible
    offered = _offered(d)
    assert offered["undo"] is None and "undo" not in offered["available"]
    assert d.cmd("undo").reply.code is ErrorCode.NOTHING_TO_UNDO  # type: ignore[union-attr]
    assert d.cmd("kill_hand", user=FLOOR).reply.ok  # type: ignore[union-attr]
    assert "start_hand" in _offered(d)["available"]


def test_start_hand_needs_two_players_with_chips() -> None:
    d = fresh(stacks=(5000, 0))
    assert "start_hand" not in _offered(d)["available"]
    assert d.cmd("start_hand").reply.code is ErrorCode.WRONG_PHASE  # type: ignore[union-attr]
