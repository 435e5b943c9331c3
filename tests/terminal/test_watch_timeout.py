"""``tablectl watch --timeout S``: the watch stops S seconds after it started, on a real
broker; a --timeout that is not a positive number of seconds is bad usage
(tests/foundation/test_usage_exit_codes.py)."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from tablectl.cli import main
from tablectl.publish.mqtt_settings import MqttSettings
from tablectl.terminal.follow import FollowUpdate, TableFollower, follow_table
from tests.conftest import Broker, free_port


async def test_follow_table_stops_after_its_seconds_on_a_quiet_table(mosquitto: Broker
                                                                      ) -> None:
    """Nothing is published: without ``seconds`` this would follow the table for ever."""
    updates: list[FollowUpdate] = []

    async def on_update(_follower: TableFollower, update: FollowUpdate) -> bool:
        updates.append(update)
        return True

    settings = MqttSettings(host=mosquitto.host, port=mosquitto.port,
                            client_id="watch-timeout", session_expiry=0)
    loop = asyncio.get_running_loop()
    await follow_table(settings, "quiet", on_update=on_update, monotonic=loop.time,
                       seconds=0.3)
    assert not [u for u in updates if u.hand_ended is not None]


def test_plain_watch_stops_after_its_timeout_with_exit_0(mosquitto: Broker,
                                                          capfd: pytest.CaptureFixture[str]
                                                          ) -> None:
    """``tablectl watch --timeout`` without ``--check``: a quiet table is watched for the
    seconds asked, then the command ends as a watch that saw its hands end does."""
    code = main(["watch", "--broker", mosquitto.url, "--table", "quiet", "--plain",
                 "--timeout", "0.3"])
    out, err = capfd.readouterr()
    assert code == 0, (out[-500:], err[-500:])
    assert "Traceback" not in err
    # a table that said nothing at all (a mistyped id?) is named, not passed over in silence
    assert f"nothing from table quiet on {mosquitto.url} in 0.3 s" in err


def test_watch_on_a_broker_it_cannot_reach_exits_1_with_one_line() -> None:
    """Nothing listens on the port: the watch is an error (exit 1, one line saying so), not a
    quiet table watched for its seconds (exit 0)."""
    port = free_port()
    done = subprocess.run([sys.executable, "-m", "tablectl", "watch", "--broker",
                           f"mqtt://127.0.0.1:{port}", "--table", "t1", "--plain",
                           "--timeout", "0.5"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1, done
    assert done.stderr.splitlines() == [
        f"tablectl watch: not connected to 127.0.0.1:{port} within 2 s: [Errno 111] "
        "Connection refused"], done.stderr
    assert done.stdout == ""


def test_watch_check_on_a_broker_it_cannot_reach_says_so(capfd: pytest.CaptureFixture[str]
                                                         ) -> None:
    """``--check`` too: the broker is named as unreachable, not 'none came' after the wait."""
    port = free_port()
    code = main(["watch", "--check", "--broker", f"mqtt://127.0.0.1:{port}", "--table", "t1",
                 "--timeout", "0.5"])
    out, err = capfd.readouterr()
    assert code == 1
    assert err.splitlines() == [
        f"tablectl watch --check: not connected to 127.0.0.1:{port} within 2 s: [Errno 111] "
        "Connection refused"], err
    assert "none came" not in out
