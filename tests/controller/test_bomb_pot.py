"""Bomb pots through the controller: ``start_hand {bomb}`` as the house allows it, the antes
and no pre-flop betting in the public feed, the snapshot's ``bomb_pot``, a replay of the
journaled commands (tablectl/controller/bomb.py; docs/mqtt.md)."""

from __future__ import annotations

from tablectl.controller import ErrorCode, HandController
from tablectl.controller.setup_json import setup_from_json, setup_to_json
from tablectl.domain.games import GameKind
from tablectl.game import Act, Burn

from .helpers import FL, Driver, initial_state, make_setup
from .test_payloads import PUBLIC_EVENT, PUBLIC_SNAPSHOT

HOLE = "2c Kh As 3d Kd Ad"


def test_a_bomb_pot_antes_everybody_and_deals_to_the_flop_without_betting() -> None:
    setup = make_setup(max_bomb_pot=500)
    assert setup_from_json(setup_to_json(setup)).max_bomb_pot == 500
    d = Driver(HandController(setup, initial_state(button=1)))
    out = d.cmd("start_hand", bomb=300)
    assert out.reply is not None and out.reply.ok and out.reply.result["bomb"] == 300
    started = out.events[0]
    assert started.type == "hand_started" and started.data["bomb"] == 300
    forced = [(e.data["seat"], e.data["kind"], e.data["amount"]) for e in out.events
              if e.type == "forced_bet"]
    assert forced == [(2, "ante", 300), (3, "ante", 300), (1, "ante", 300)]
    for card in HOLE.split():
        d.read(card)
    assert isinstance(d.ctl.expected(), Burn)          # no pre-flop betting
    for card in ["4c", "7h", "8s", "9d"]:
        d.read(card)
    exp = d.ctl.expected()
    assert isinstance(exp, Act) and exp.seat == 2       # left of the button, on the flop
    snap = d.ctl.public_snapshot()
    assert snap["bomb_pot"] == 300 and snap["pots"] == [{"amount": 900,
                                                          "eligible": [2, 3, 1]}]
    PUBLIC_SNAPSHOT.validate(snap)
    for o in d.outcomes:
        for e in o.events:
            PUBLIC_EVENT.validate(e.to_json())
    again = Driver(HandController(setup, initial_state(button=1)))
    for inp in d.inputs:
        again.feed(inp)
    assert again.ctl.public_snapshot() == snap


def test_a_bomb_pot_the_house_does_not_allow_is_refused_and_starts_nothing() -> None:
    for setup, bomb, reason in ((make_setup(), 100, "this table deals no bomb pots"),
                                (make_setup(max_bomb_pot=200), 300,
                                 "the house's bomb pot is at most 200")):
        d = Driver(HandController(setup, initial_state(button=1)))
        out = d.cmd("start_hand", bomb=bomb)
        assert out.reply is not None and out.reply.code == ErrorCode.ILLEGAL_ACTION.value
        assert out.reply.reason == reason and out.events == ()
        assert d.ctl.hand_id is None
    zero = Driver(HandController(make_setup(max_bomb_pot=200), initial_state()))
    assert zero.cmd("start_hand", bomb=0).reply.code == ErrorCode.BAD_ARGS.value  # type: ignore[union-attr]


def test_a_double_board_bomb_pot_shows_both_boards_and_splits_each_pot() -> None:
    setup = make_setup(max_bomb_pot=500, double_board=True)
    assert setup_from_json(setup_to_json(setup)).double_board
    d = Driver(HandController(setup, initial_state(stacks=(300, 300, 300), button=1)))
    out = d.cmd("start_hand", bomb=300, double_board=True)   # every stack in: no betting
    assert out.reply is not None and out.reply.ok
    assert out.events[0].data["double_board"] is True
    for card in [*HOLE.split(), "4c", "7h", "8s", "9d", "Ks", "7c", "2h", "5c", "Jc", "Th",
                 "6c", "2s", "3s"]:
        d.read(card)
    events = [e for o in d.outcomes for e in o.events]
    flops = [(e.data["board"], e.data["cards"]) for e in events
             if e.type == "board" and e.data["street"] == "flop"]
    assert flops[2] == (1, ["7h", "8s", "9d"]) and flops[-1] == (2, ["Ks", "7c", "2h"])
    snap = d.ctl.public_snapshot()
    assert snap["double_board"] == {"boards": [["7h", "8s", "9d", "Jc", "2s"],
                                               ["Ks", "7c", "2h", "Th", "3s"]]}
    assert [(r["board"], r["seat"], r["amount"]) for r in snap["results"]] == [  # type: ignore[index,union-attr]
        (1, 1, 450), (2, 3, 450)]
    PUBLIC_SNAPSHOT.validate(snap)
    for e in events:
        PUBLIC_EVENT.validate(e.to_json())
    refused = Driver(HandController(make_setup(), initial_state()))
    out = refused.cmd("start_hand", double_board=True)
    assert out.reply is not None and out.reply.reason == "this table deals no double-board hands"


def test_the_snapshot_offers_only_the_formats_the_house_deals() -> None:
    """``commands.formats`` (what a console offers beside Start hand): absent at a table
    without either format and in stud; each start it names is taken while ``start_hand`` is
    available."""
    assert "formats" not in Driver(HandController(make_setup(), initial_state())) \
        .ctl.public_snapshot()["commands"]                          # type: ignore[operator]
    stud = make_setup(GameKind.STUD, FL, max_bomb_pot=500, double_board=True)
    assert "formats" not in Driver(HandController(stud, initial_state())) \
        .ctl.public_snapshot()["commands"]                          # type: ignore[operator]
    for extra, start in (({"max_bomb_pot": 400}, {"bomb": 400}),
                         ({"double_board": True}, {"double_board": True})):
        d = Driver(HandController(make_setup(**extra), initial_state(button=1)))
        commands = d.ctl.public_snapshot()["commands"]
        assert isinstance(commands, dict)
        assert commands["formats"] == {"max_bomb_pot": extra.get("max_bomb_pot", 0),
                                       "double_board": bool(extra.get("double_board"))}
        assert "start_hand" in commands["available"]
        out = d.cmd("start_hand", **start)
        assert out.reply is not None and out.reply.ok, (out.reply.code, out.reply.reason)
        PUBLIC_SNAPSHOT.validate(d.ctl.public_snapshot())
