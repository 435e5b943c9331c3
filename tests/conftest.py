"""Fixtures shared by every test folder: private mosquitto brokers on free ports, and the root
logger put back after every test; the run order (the longest tests first).

Tests never use the machine's own broker on 1883: each broker here is a child process with a
config of the test's choosing, on a free loopback port, stopped when the test ends.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.scheduling import slowest_first


@pytest.fixture(autouse=True)
def _root_logger_restored() -> Iterator[None]:
    """A test that runs a command in process (``tablectl.cli.main``) sets the root logger's
    level and handler as that command does (ERROR for the demo): put both back, so that a
    later test in the same worker sees the logging it expects."""
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    yield
    root.setLevel(level)
    root.handlers[:] = handlers


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the longest tests first (tests/scheduling.py: with ``--dist worksteal`` the two
    workers share the short ones out around them instead of waiting for a late long one)."""
    order = slowest_first([item.nodeid for item in items])
    items[:] = [items[i] for i in order]


def free_port() -> int:
    """A TCP port that was free on 127.0.0.1 a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PortTakenError(RuntimeError):
    """A broker could not bind a port that was free when it was chosen."""


def listens(pid: int, ports: set[int]) -> bool | None:
    """Whether process ``pid`` holds a listening TCP socket on each of ``ports`` (Linux
    ``/proc``); None when that cannot be known here (no ``/proc``, or not allowed)."""
    inodes: dict[str, int] = {}
    try:
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            with open(table) as f:
                for line in f.readlines()[1:]:
                    cols = line.split()
                    port = int(cols[1].rsplit(":", 1)[1], 16)
                    if cols[3] == "0A" and port in ports:            # 0A: LISTEN
                        inodes[f"socket:[{cols[9]}]"] = port
        fd_dir = f"/proc/{pid}/fd"
        held = {inodes[link] for fd in os.listdir(fd_dir)
                if (link := _readlink(f"{fd_dir}/{fd}")) in inodes}
    except (OSError, IndexError, ValueError):
        return None
    return held == ports


def _readlink(path: str) -> str:
    try:
        return os.readlink(path)
    except OSError:         # closed since the listing
        return ""


def mosquitto_binary() -> str:
    """The mosquitto executable (``$MOSQUITTO``, PATH, or /usr/sbin/mosquitto)."""
    for cand in (os.environ.get("MOSQUITTO"), shutil.which("mosquitto"), "/usr/sbin/mosquitto"):
        if cand and os.access(cand, os.X_OK):
            return cand
    pytest.fail("mosquitto is not installed; .ci/test installs it (apt-get install mosquitto)")


@dataclass
class Broker:
    """A private mosquitto: ``port`` is its first (plain MQTT) listener."""

    host: str
    port: int
    workdir: Path
    conf: Path
    proc: subprocess.Popen[bytes] | None = None
    ports: dict[str, int] = field(default_factory=dict)

    @property
    def url(self) -> str:
        """``mqtt://host:port`` of the plain listener."""
        return f"mqtt://{self.host}:{self.port}"

    def start(self) -> None:
        """Start (or restart) the broker and wait until it listens on its ports.

        Raises:
            PortTakenError: one of its ports was taken (found free earlier, bound since by
                another process); RuntimeError: it exited or did not start otherwise.
        """
        log = (self.workdir / "mosquitto.log").open("ab")
        logged = log.tell()                  # what an earlier start logged is not news
        self.proc = subprocess.Popen([mosquitto_binary(), "-c", str(self.conf)],
                                     stdout=log, stderr=subprocess.STDOUT, cwd=self.workdir)
        log.close()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                text = self.log_text()
                error = PortTakenError if "Address already in use" in text[logged:] else \
                    RuntimeError
                raise error("mosquitto exited: " + text)
            try:
                socket.create_connection((self.host, self.port), timeout=0.2).close()
                # a port taken by another broker accepts too: it must be this one's
                if listens(self.proc.pid, {self.port, *self.ports.values()}) is not False:
                    return
            except OSError:
                pass
            time.sleep(0.02)
        raise RuntimeError("mosquitto did not start: " + self.log_text())

    def kill(self) -> None:
        """SIGKILL the broker (a crash) and wait for it."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        """Stop the broker politely."""
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()

    def log_text(self) -> str:
        """What the broker logged so far."""
        path = self.workdir / "mosquitto.log"
        return path.read_text(errors="replace") if path.exists() else ""


BrokerFactory = Callable[..., Broker]


def private_broker(workdir: Path, extra: str = "") -> Broker:
    """A started private anonymous mosquitto without persistence on a free loopback port
    (for scripts outside pytest, such as the benchmarks); ``extra``: more config lines."""
    port = free_port()
    conf = workdir / "mosquitto.conf"
    conf.write_text(f"per_listener_settings false\nlistener {port} 127.0.0.1\n"
                    "allow_anonymous true\nset_tcp_nodelay true\npersistence false\n"
                    f"{extra}log_dest stdout\nlog_type error\n")
    broker = Broker("127.0.0.1", port, workdir, conf)
    broker.start()
    return broker


def configure(workdir: Path, extra_config: str = "", *, anonymous: bool = True,
              persistence: bool = False) -> Broker:
    """A private broker's config in ``workdir`` on free loopback ports (see
    :func:`mosquitto_factory`), not started."""
    port = free_port()
    ports: dict[str, int] = {}
    text = extra_config
    while "{port:" in text:
        start_i = text.index("{port:")
        end_i = text.index("}", start_i)
        name = text[start_i + 6:end_i]
        ports.setdefault(name, free_port())
        text = text.replace(text[start_i:end_i + 1], str(ports[name]))
    conf = workdir / "mosquitto.conf"
    lines = [
        "per_listener_settings false" if "per_listener_settings" not in text else "",
        f"listener {port} 127.0.0.1",
        f"allow_anonymous {'true' if anonymous else 'false'}",
        "set_tcp_nodelay true",
        f"persistence {'true' if persistence else 'false'}",
        f"persistence_location {workdir}/",
        "log_dest stdout",
        "log_type error",
        "log_type warning",
        text,
    ]
    conf.write_text("\n".join(line for line in lines if line) + "\n")
    return Broker("127.0.0.1", port, workdir, conf, ports=ports)


@pytest.fixture
def mosquitto_factory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerFactory]:
    """Make brokers: ``factory(extra_config="", listeners=("mqtt",))``.

    The first listener is plain MQTT on a free loopback port with anonymous access (unless
    ``extra_config`` says otherwise); ``extra_config`` may use ``{port:NAME}`` placeholders,
    each replaced by a fresh free port recorded in ``broker.ports[NAME]``.
    """
    brokers: list[Broker] = []

    def make(extra_config: str = "", *, anonymous: bool = True, persistence: bool = False,
             start: bool = True) -> Broker:
        workdir = tmp_path_factory.mktemp("mosquitto")
        for attempt in range(5):
            broker = configure(workdir, extra_config, anonymous=anonymous,
                               persistence=persistence)
            if not start:
                break
            try:
                broker.start()
                break
            except PortTakenError:
                # a port found free was taken before the broker bound it: other ports
                if attempt == 4:
                    raise
        brokers.append(broker)
        return broker

    yield make
    for broker in brokers:
        broker.stop()


@pytest.fixture
def mosquitto(mosquitto_factory: BrokerFactory) -> Broker:
    """One private anonymous mosquitto on a free loopback port."""
    return mosquitto_factory()
