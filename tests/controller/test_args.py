"""Command arguments: the quick read of well-formed arguments gives exactly what the full
reader gives, values and refusals alike, for every command of the table."""

from __future__ import annotations

from types import MappingProxyType

from hypothesis import given, settings
from hypothesis import strategies as st

from tablectl.controller.args import read_args
from tablectl.controller.commands import COMMAND_TABLE
from tablectl.controller.reply import Refused
from tests.controller.helpers import make_setup

SETUP = make_setup()
KEYS = sorted({arg.key for rule in COMMAND_TABLE.values() for arg in rule.args} | {"extra"})
VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 12),
                   st.sampled_from(["", " ", "raise", "call", "show", "rebuy", "As", "zz"]),
                   st.lists(st.sampled_from(["As", "Kd", "1x"]), max_size=2))


def outcome(name: str, args: object) -> object:
    try:
        return dict(read_args(COMMAND_TABLE[name].args, args, SETUP)._values)  # type: ignore[arg-type]
    except Refused as refusal:
        return (refusal.code, refusal.reason)


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_the_quick_read_equals_the_full_reader(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(sorted(COMMAND_TABLE)))
    own = [arg.key for arg in COMMAND_TABLE[name].args]
    keys = st.sampled_from(own) if own and data.draw(st.integers(0, 4)) else st.sampled_from(KEYS)
    args = data.draw(st.dictionaries(keys, VALUES))
    # a mapping that is not a dict always takes the full reader
    assert outcome(name, args) == outcome(name, MappingProxyType(args))


def test_a_well_formed_action_reads_its_values() -> None:
    assert outcome("action", {"seat": 3, "kind": "raise", "amount": 600}) == {
        "seat": 3, "kind": "raise", "amount": 600, "cards": None}
