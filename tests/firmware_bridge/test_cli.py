"""``python -m firmware_bridge decode/encode`` on golden bytes and bad input."""

from __future__ import annotations

import io
import json

import pytest

from firmware_bridge.__main__ import main

ACK42_WIRE = "03 10 04 01 02 2a 05 d0 c9 ff 28 00"  # docs/protocol.md, ACK 42


def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str],
        stdin: str) -> tuple[int, list[str], str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def test_decode_reports_frames_and_drops_in_stream_order(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = run(monkeypatch, capsys, ["decode"],
                         f"de ad be ef 00\n{ACK42_WIRE}\n03 10")
    assert code == 0
    objs = [json.loads(line) for line in lines]
    assert objs == [
        {"dropped": "cobs", "raw": "de ad be ef"},
        {"seq": 0, "flags": [], "message": {"type": "ACK", "ack_seq": 42}},
        {"incomplete": 2},
    ]


def test_encode_then_decode_round_trips(monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = run(monkeypatch, capsys, ["encode"],
                         '{"type": "ACK", "ack_seq": 42}\n\n'
                         '{"type": "BUTTON", "keypad": 0, "key": 5, "action": "PRESS", '
                         '"t_ms": 126000, "seq": 44}\n')
    assert code == 0
    assert lines[0] == ACK42_WIRE
    code, decoded, _ = run(monkeypatch, capsys, ["decode"], "\n".join(lines))
    button = json.loads(decoded[1])
    assert button["seq"] == 44 and button["flags"] == ["ACK_REQ"]
    assert button["message"]["action"] == "PRESS"


def test_bad_input_is_exit_2_with_the_line(monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, err = run(monkeypatch, capsys, ["encode"],
                           '{"type": "ACK", "ack_seq": 1}\n{"type": "TAG_SEEN"}\n')
    assert code == 2 and not lines and "line 2" in err
    code, lines, err = run(monkeypatch, capsys, ["decode"], "zz")
    assert code == 2 and "not hex" in err


def test_a_line_nested_past_the_parser_is_exit_2_with_the_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    code, lines, err = run(monkeypatch, capsys, ["encode"],
                           f'{{"type": "ACK", "ack_seq": 1}}\n{deep}\n')
    assert code == 2 and not lines and "line 2: nested too deep" in err
