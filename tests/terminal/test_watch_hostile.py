"""What ``tablectl watch`` takes from the broker, as a hostile publisher sends it (on an open
broker anyone may publish on a table's topics): ``TableFollower`` passes over whatever is not
the table's JSON and keeps what it shows; the real command on a real mosquitto goes on.

Before: one retained payload nested 100,000 deep ended ``tablectl watch`` with a
RecursionError, and NaN or a terminal's escape character in a name reached the view.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import paho.mqtt.publish as publish
import pytest

from tablectl.terminal.follow import TableFollower
from tests.conftest import Broker
from tests.terminal.test_follow_and_view import STATE, STATUS, T, _snapshot

HOSTILE: tuple[tuple[bytes, str], ...] = (
    (b"[" * 100_000 + b"]" * 100_000, "nested deeper"),
    (b'{"v":1,"table":"t9","epoch":1,"seq":9,"type":"snapshot","data":{"pot":NaN}}', "NaN"),
    (_snapshot(1, 9, seats=[{"seat": 1, "name": "\x1b]0;pwned\x07\x1b[2J"}]), "control"),
    (_snapshot(1, 9, note="x" * 300_000), "bytes"),
    (b'{"v":1,"seq":9,"data":{"name":"\xff"}}', "UTF-8"),
    (b'{"seq":1,"seq":2}', "twice"),
)


@pytest.mark.parametrize(("payload", "said"), HOSTILE, ids=[h[1] for h in HOSTILE])
def test_a_payload_that_is_not_the_tables_changes_nothing(
        payload: bytes, said: str, caplog: pytest.LogCaptureFixture) -> None:
    f = TableFollower(T)
    f.feed(STATE, _snapshot(1, 5, phase="betting"), now=0)
    before = json.dumps(f.view.snapshot), f.seq
    assert not f.feed(STATE, payload, now=1).changed
    assert not f.feed(STATUS, payload, now=1).changed
    assert (json.dumps(f.view.snapshot), f.seq) == before
    assert said in caplog.text


def test_tablectl_watch_goes_on_past_a_hostile_retained_payload(mosquitto: Broker,
                                                                 tmp_path: Path) -> None:
    deep, _ = HOSTILE[0]
    publish.single(f"poker/v1/tables/{T}/state", deep, retain=True, hostname="127.0.0.1",
                   port=mosquitto.port)
    publish.single(f"poker/v1/tables/{T}/status", HOSTILE[2][0], retain=True,
                   hostname="127.0.0.1", port=mosquitto.port)
    out = subprocess.run(
        [sys.executable, "-m", "tablectl", "watch", "--broker", mosquitto.url, "--table", T,
         "--plain", "--timeout", "3"], check=False, capture_output=True, timeout=60,
        cwd=tmp_path)
    assert out.returncode == 0, out.stderr.decode()[-2000:]
    err = out.stderr.decode()
    assert "RecursionError" not in err and "nested deeper" in err and "control" in err
    assert b"\x1b]0;pwned" not in out.stdout + out.stderr
