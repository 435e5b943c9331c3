"""Helpers of the operations tests: a table config for a scenario, processes with a log."""

from __future__ import annotations

import os
import signal
import subprocess
import time
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TABLE = "m1"
USER = "dealer-m"


def table_config(tmp_path: Path, broker_url: str, scenario: Path, *, metrics: str = "",
                 extra: str = "", mqtt: str = "") -> Path:
    """A table config playing ``scenario``'s game and seats on a pty shoe at
    ``tmp_path/pty/shoe``, journal in ``tmp_path``, table ``m1``, ``dealer-m`` a floor user;
    ``metrics`` is the body of ``[metrics]``, ``mqtt`` more ``[mqtt]`` keys."""
    data = tomllib.loads(scenario.read_text())
    game = data["game"]
    stakes = "\n".join(f"{k} = {v}" for k, v in game["stakes"].items())
    seats = "\n".join(f'[[seats]]\nnumber = {s["number"]}\nname = "{s["name"]}"\n'
                      f'stack = {s["stack"]}\n' for s in data["seats"])
    text = f"""
deck = "{(scenario.parent / data["deck"]).resolve()}"
other_decks = ["{ROOT}/config/decks/demo-blue.csv"]
button = {game.get("button", 1)}
{extra}
[table]
id = "{TABLE}"
[game]
variant = "{game["variant"]}"
structure = "{game["structure"]}"
[game.stakes]
{stakes}
{seats}
[[sources]]
kind = "rfid-shoe"
name = "shoe"
url = "{tmp_path}/pty/shoe"
[access.roles]
{USER} = "floor"
[mqtt]
url = "{broker_url}"
{mqtt}
[journal]
path = "{tmp_path}/journal/journal.sqlite"
[metrics]
{metrics}
"""
    path = tmp_path / "table.toml"
    path.write_text(text)
    return path


def start(cmd: Sequence[str], tmp_path: Path, name: str,
          env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """Start ``cmd`` with its output in ``tmp_path/NAME.log``."""
    log = (tmp_path / f"{name}.log").open("wb")
    try:
        return subprocess.Popen(list(cmd), stdout=log, stderr=subprocess.STDOUT, cwd=ROOT,
                                env={**os.environ, **(env or {})})
    finally:
        log.close()


def stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL after 15 s."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def wait_until(pred: Callable[[], bool], timeout: float) -> bool:
    """Poll ``pred`` every 50 ms until it holds or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.05)
    return pred()
