"""``tablectl web --config FILE`` as a user runs it: a subprocess on the real MQTT adapter
(tablectl.publish.mqtt), a real mosquitto, and plain HTTP."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Broker, free_port
from tests.web.conftest import users_toml
from tests.web.fake_table import FakeTable
from tests.web.test_http import Browserless

CONFIG = """
deck = "deck.csv"
[table]
id = "t01"
name = "Table 1"
[game]
variant = "holdem"
structure = "no-limit"
[game.stakes]
small_blind = 100
big_blind = 200
[[seats]]
number = 1
stack = 20000
[[seats]]
number = 3
stack = 20000
[[sources]]
kind = "manual"
[mqtt]
url = "mqtt://127.0.0.1:{broker}"
[journal]
path = "j.sqlite"
[web]
port = {port}
credentials = "web.toml"
console_credentials = "console.toml"
users = "users.toml"
"""


def first_view(url: str) -> dict[str, Any]:
    """Read the public SSE stream until a view with a snapshot arrives."""
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        with urllib.request.urlopen(url, timeout=10) as resp:
            for raw in resp:
                line = raw.decode().strip()
                if line.startswith("data: "):
                    view = json.loads(line[6:])
                    if view.get("snapshot") is not None:
                        return dict(view)
    raise AssertionError("no snapshot on the public stream")


def spawn(config: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "tablectl", "web", "--config", str(config)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def wait_http(base: str, proc: subprocess.Popen[bytes]) -> None:
    for _ in range(300):
        try:
            urllib.request.urlopen(base + "/", timeout=1).close()
            return
        except OSError:
            assert proc.poll() is None, proc.communicate()[1].decode()
            time.sleep(0.05)
    raise AssertionError("tablectl web did not start")


@pytest.mark.parametrize("own_console_user", [True, False])
async def test_tablectl_web_serves_a_table_over_the_real_mqtt_adapter(
        tmp_path: Path, mosquitto: Broker, own_console_user: bool) -> None:
    port = free_port()
    (tmp_path / "users.toml").write_text(users_toml())
    (tmp_path / "web.toml").write_text('username = "web-t01"\npassword = "x"\n')
    (tmp_path / "console.toml").write_text('username = "console-t01"\npassword = "x"\n')
    config = tmp_path / "t01.toml"
    text = CONFIG.format(broker=mosquitto.port, port=port)
    if not own_console_user:  # replies then come in on the display user's connection
        text = text.replace('console_credentials = "console.toml"\n', "")
    config.write_text(text)
    table = FakeTable(mosquitto.port)
    proc = spawn(config)
    base = f"http://127.0.0.1:{port}"
    try:
        await asyncio.to_thread(wait_http, base, proc)
        view = await asyncio.to_thread(first_view, base + "/events/public")
        assert view["snapshot"]["table"] == "t01" and view["status"] == "online"

        dealer = Browserless(base)
        info = await dealer.login("dealer1")
        status, reply = await dealer.post("/api/cmd/start_hand", b'{"args": {}}',
                                          **{"X-CSRF-Token": info["csrf"]})
        assert status == 200 and reply["ok"] is True, reply
        assert table.commands == [("start_hand", {})]
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=15)
        table.close()
    assert proc.returncode == 0, err.decode()  # SIGTERM: a clean shutdown


def test_tablectl_web_without_a_web_section_is_a_config_error(tmp_path: Path) -> None:
    config = tmp_path / "t01.toml"
    config.write_text(CONFIG.split("[web]", maxsplit=1)[0].format(broker=1883, port=0))
    proc = subprocess.run([sys.executable, "-m", "tablectl", "web", "--config", str(config)],
                          check=False, capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2
    assert "no [web] section" in proc.stderr
