"""The daemon speaks systemd's notify protocol: a test binds the NOTIFY_SOCKET datagram
socket systemd would, runs the real daemon (``tablectl run``) with it and reads what comes."""

from __future__ import annotations

import signal
import socket
import sys
from pathlib import Path

import pytest

from tablectl.systemd import SdNotifier
from tests.conftest import Broker
from tests.ops.helpers import ROOT, start, stop, table_config

SCENARIO = ROOT / "config" / "scenarios" / "clean-holdem-nl.toml"


def _messages(sock: socket.socket, until: str, limit: int = 50) -> list[str]:
    got: list[str] = []
    for _ in range(limit):
        got.append(sock.recv(4096).decode())
        if until in got[-1].splitlines():
            return got
    raise AssertionError(f"no {until} in {got}")


@pytest.mark.parametrize("abstract", [False, True], ids=["path", "abstract"])
def test_ready_then_the_watchdog_is_fed_then_stopping(tmp_path: Path, mosquitto: Broker,
                                                      abstract: bool) -> None:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    name = f"@tablectl-test-{tmp_path.name}" if abstract else str(tmp_path / "notify")
    sock.bind("\0" + name[1:] if abstract else name)
    sock.settimeout(30)
    cfg = table_config(tmp_path, mosquitto.url, SCENARIO)
    # a 1 s watchdog: the daemon must say WATCHDOG=1 every 0.5 s
    daemon = start([sys.executable, "-m", "tablectl", "run", "--config", str(cfg)], tmp_path,
                   "daemon", env={"NOTIFY_SOCKET": name, "WATCHDOG_USEC": "1000000"})
    try:
        before = _messages(sock, "READY=1")
        assert not any("WATCHDOG=1" in m for m in before)     # ready before the first ping
        assert any("STATUS=table m1 running" in m for m in before)
        pings = _messages(sock, "WATCHDOG=1")
        assert pings[-1].splitlines()[0] == "WATCHDOG=1"
        _messages(sock, "WATCHDOG=1")                           # and again, half a second on
        daemon.send_signal(signal.SIGINT)
        _messages(sock, "STOPPING=1")
    finally:
        stop(daemon)
        sock.close()


def test_a_watchdog_meant_for_another_process_is_not_fed() -> None:
    assert SdNotifier({"NOTIFY_SOCKET": "/x", "WATCHDOG_USEC": "100",
                       "WATCHDOG_PID": "1"}).watchdog_interval is None
    assert SdNotifier({"WATCHDOG_USEC": "100"}).notify("READY=1") is False


def test_a_notify_socket_that_is_gone_does_not_stop_the_daemon(tmp_path: Path) -> None:
    assert SdNotifier({"NOTIFY_SOCKET": str(tmp_path / "gone")}).notify("READY=1") is False
