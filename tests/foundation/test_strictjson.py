"""The strict JSON decoder every outside surface uses (tablectl/domain/strictjson.py):
each hostile shape is refused with where and why, and no input raises anything else."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablectl.domain.strictjson import (
    JsonLimits,
    StrictJsonError,
    check_value,
    decode_object,
    decode_strict,
    display_name,
)

HOSTILE = [
    (b'{"args":{"x":NaN}}', "NaN"),
    (b'{"args":{"x":Infinity}}', "Infinity"),
    (b'{"args":{"x":-Infinity}}', "Infinity"),
    (b'{"x":1e400}', "out of range"),
    (b'{"x":9223372036854775808}', "out of range"),
    (b'{"x":-9007199254740992}', "out of range"),
    (b'{"x":' + b"9" * 5000 + b"}", "out of range"),
    (b"[" * 1100 + b"]" * 1100, "nested deeper"),
    (b'{"a":' * 20 + b"1" + b"}" * 20, "nested deeper"),
    (b'{"x":"a\\u0000b"}', "control character U+0000"),
    (b'{"x":"\\ud800"}', "lone surrogate"),
    (b'{"a\\u001bb":1}', "control character U+001B"),
    (b'{"x":1,"x":2}', "appears twice"),
    (b'\xff\xfe{}', "not UTF-8"),
    (b"", "empty"),
    (b"   ", "empty"),
    (b'{"x":', "not JSON"),
    (b'{"x":"' + b"a" * 2000 + b'"}', "more than 1024"),
    (b"[" + b"1," * 600 + b"1]", "more than 512"),
    (b'{"x":"' + b"a" * 20000 + b'"}', "larger than"),
]


@pytest.mark.parametrize(("data", "reason"), HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_json_is_refused_with_the_reason(data: bytes, reason: str) -> None:
    with pytest.raises(StrictJsonError) as caught:
        decode_strict(data)
    assert reason in str(caught.value)


def test_nan_names_its_key() -> None:
    with pytest.raises(StrictJsonError) as caught:
        decode_strict(b'{"v":1,"args":{"amount":NaN}}')
    assert caught.value.where == "$.amount"


def test_plain_json_comes_back_as_parsed() -> None:
    text = '{"v":1,"id":"a","args":{"seat":3,"amount":2.5,"name":"Zoë","ok":true,"n":null}}'
    assert decode_object(text) == json.loads(text)
    assert decode_strict(b"[1, -9007199254740991]") == [1, -9007199254740991]


def test_an_object_is_required_where_asked() -> None:
    with pytest.raises(StrictJsonError, match="must be a JSON object, not an array"):
        decode_object(b"[1]")


def test_limits_are_per_surface() -> None:
    small = JsonLimits(max_bytes=10)
    with pytest.raises(StrictJsonError, match="larger than 10"):
        decode_strict(b'{"abc":12345}', small)
    assert decode_strict(b'{"x":9223372036854775807}',
                         JsonLimits(max_int=2**63 - 1)) == {"x": 2**63 - 1}


def test_check_value_walks_without_recursion() -> None:
    deep: list[object] = []
    for _ in range(50_000):
        deep = [deep]
    with pytest.raises(StrictJsonError, match="nested deeper"):
        check_value(deep)
    with pytest.raises(StrictJsonError, match="not a JSON value"):
        check_value({"x": {1, 2}})
    with pytest.raises(StrictJsonError, match="not a number"):
        check_value({"x": float("nan")})


@pytest.mark.parametrize(("raw", "reason"), [
    ("", "empty"), ("   ", "empty"), ("x" * 33, "more than 32"), ("x" * 45_000, "more than"),
    ("A\u0000B", "control"), ("A\nB", "control"), ("A\u202eB", "cannot be shown"),
    ("A\u200bB", "cannot be shown"), (7, "must be a string"),
])
def test_display_names_refused(raw: object, reason: str) -> None:
    with pytest.raises(StrictJsonError, match=reason):
        display_name(raw)


def test_display_names_normalised() -> None:
    assert display_name(" Zoe\u0308 ") == "Zo\u00eb"
    assert display_name("李小龍") == "李小龍"


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_any_bytes_either_decode_to_safe_json_or_are_refused(data: bytes) -> None:
    try:
        value = decode_strict(data)
    except StrictJsonError:
        return
    text = json.dumps(value, allow_nan=False)
    text.encode("utf-8")
    check_value(value)


_JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner,
                                                                max_size=5),
    max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(_JSONISH)
def test_any_python_json_text_either_decodes_to_itself_or_is_refused(value: object) -> None:
    text = json.dumps(value)    # NaN, Infinity and huge integers included
    try:
        decoded = decode_strict(text)
    except StrictJsonError:
        return
    assert json.dumps(decoded, sort_keys=True) == json.dumps(json.loads(text), sort_keys=True)
