"""``Reply.success`` (through ``freeze_json``) copies a result without a JSON round trip when
it can: the copy must be exactly what the journal's round trip (``dump_json`` then
``load_json``) makes of it, key order included, and whatever only the round trip can judge
still goes through it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablectl.controller import Reply
from tablectl.controller.views import card_text
from tablectl.domain.cards import FULL_DECK
from tablectl.domain.errors import JournalStateError
from tablectl.domain.jsonvalue import dump_json, load_json

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner,
                                                                 max_size=4),
    max_leaves=20)


def round_trip(value: dict[str, Any]) -> Any:
    """What the journal stores and reads back."""
    return load_json(dump_json(value, "reply result"))


def layout(value: Any) -> Any:
    """The value with the type and key order of everything in it."""
    if isinstance(value, dict):
        return ("dict", [(k, layout(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [layout(v) for v in value])
    return (type(value).__name__, value)


@given(st.dictionaries(st.text(max_size=5), JSON, max_size=6))
def test_a_result_is_copied_as_the_journal_stores_it(result: dict[str, Any]) -> None:
    reply = Reply.success("c1", result)
    assert layout(reply.result) == layout(round_trip(result))
    assert json.dumps(reply.to_json()) == json.dumps(
        {"id": "c1", "ok": True, "result": round_trip(result)})
    if result:  # a copy: changing the result later changes nothing of the reply
        before = json.dumps(reply.result)
        result.clear()
        assert json.dumps(reply.result) == before


def test_what_only_the_round_trip_can_judge_still_goes_through_it() -> None:
    assert Reply.success("c1", {"cards": ("As", "Kd")}).result == {"cards": ["As", "Kd"]}
    assert Reply.success("c1", {"b": {1: True}, "a": 0}).result == {"a": 0, "b": {"1": True}}
    for bad in ({"x": float("nan")}, {"x": float("inf")}, {"x": object()}, {"x": {1, 2}}):
        with pytest.raises(JournalStateError):
            Reply.success("c1", bad)
    loop: dict[str, Any] = {}
    loop["self"] = loop
    with pytest.raises(JournalStateError):
        Reply.success("c1", loop)


def test_card_text_spells_every_card_as_str_does() -> None:
    assert [card_text(c) for c in FULL_DECK] == [str(c) for c in FULL_DECK]
    assert {type(card_text(c)) for c in FULL_DECK} == {str}
