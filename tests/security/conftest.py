"""A live test site: the production broker configuration, its ACL, a test PKI, on free ports.

``make_site()`` runs ``config/mosquitto/make-test-pki.sh`` into a fresh directory, copies the
production ``acl`` beside it, renders the production ``mosquitto.conf`` with
``config/mosquitto/render.py`` (only the ``@...@`` placeholders change: free ports, the
directory, and 127.0.0.2 standing in for the table network address) and starts mosquitto on
it with ``tests.conftest.Broker``. The broker is a private child on loopback ports, never the
machine's broker.
"""

from __future__ import annotations

import importlib.util
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import Broker, free_port
from tests.security.probe import Probe, Tls, Will

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "config" / "mosquitto"
LISTENERS = ("mqtt", "mqtts", "mtls", "wss")


def load_render() -> ModuleType:
    """``config/mosquitto/render.py`` as a module (it is a script, not a package)."""
    spec = importlib.util.spec_from_file_location("mosquitto_render", CONFIG / "render.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def lan_address() -> str:
    """127.0.0.2 stands in for the table network (so "bound to it" differs from the default
    127.0.0.1); 127.0.0.1 where the loopback network has only that address."""
    try:
        with socket.socket() as sock:
            sock.bind(("127.0.0.2", 0))
        return "127.0.0.2"
    except OSError:
        return "127.0.0.1"


@dataclass
class Site:
    """A running broker with the production configuration and the test credentials."""

    broker: Broker
    root: Path  # CONF_DIR: passwd, acl, certs/, clients/, mosquitto.conf
    lan: str
    ports: dict[str, int]
    passwords: dict[str, str]

    @property
    def ca(self) -> Path:
        return self.root / "certs" / "ca.crt"

    def client_cert(self, name: str) -> Tls:
        """mTLS files for ``clients/<name>.{crt,key}``."""
        return Tls(self.ca, self.root / "clients" / f"{name}.crt",
                   self.root / "clients" / f"{name}.key")

    def probe(self, user: str | None, *, listener: str = "mqtt", password: str | None = None,
              client_id: str = "", will: Will | None = None, tls: Tls | None = None,
              mqtt5: bool = True) -> Probe:
        """An unconnected client for ``user`` on ``listener`` (its own password by default)."""
        if password is None and user is not None:
            password = self.passwords.get(user)
        host = "127.0.0.1" if listener == "mqtt" else self.lan
        if tls is None and listener != "mqtt":
            tls = Tls(self.ca)
        return Probe(host, self.ports[listener], user, password, client_id=client_id,
                     tls=tls, websockets=listener == "wss", will=will, mqtt5=mqtt5)

    def start(self) -> None:
        """Start (or restart) the broker and wait until every listener accepts connections."""
        self.broker.start()  # waits for the plain listener; the others may open a moment later
        for name in LISTENERS[1:]:
            wait_for_listener(self.lan, self.ports[name], self.broker)

    def reload(self) -> None:
        """SIGHUP: mosquitto re-reads passwd, acl and the TLS files (as an operator does)."""
        give_to_broker_user(self.root)
        assert self.broker.proc is not None
        self.broker.proc.send_signal(signal.SIGHUP)

    def connect(self, user: str | None, **kwargs: object) -> Probe:
        """A connected client (see ``probe``); raises ``RefusedError`` if the broker says no."""
        return self.probe(user, **kwargs).connect()  # type: ignore[arg-type]


def make_site(base: Path) -> Site:
    """Build the site under ``base`` (which must be empty) and start its broker."""
    root = base / "site"
    subprocess.run([str(CONFIG / "make-test-pki.sh"), str(root)], check=True,
                   capture_output=True, timeout=60)
    shutil.copy(CONFIG / "acl", root / "acl")
    lan = lan_address()
    ports = {name: free_port() for name in LISTENERS}
    values = {"CONF_DIR": str(root), "LAN_ADDRESS": lan,
              **{f"PORT_{name.upper()}": str(port) for name, port in ports.items()}}
    render = load_render()
    conf = root / "mosquitto.conf"
    conf.write_text(render.render((CONFIG / "mosquitto.conf").read_text(), values))
    passwords = dict(line.split(" ", 1) for line in
                     (root / "test-passwords").read_text().splitlines())
    give_to_broker_user(base)
    site = Site(Broker("127.0.0.1", ports["mqtt"], root, conf, ports=ports), root, lan, ports,
                passwords)
    site.start()
    return site


def give_to_broker_user(base: Path) -> None:
    """Started as root, mosquitto drops to the "mosquitto" user before it reads passwd and
    acl, exactly as in production: give it the files, as docs/security.md says."""
    if os.geteuid() != 0:
        return
    try:
        user = pwd.getpwnam("mosquitto")
    except KeyError:
        return  # no such user: mosquitto stays root
    for path in [base, *base.rglob("*")]:
        os.chown(path, user.pw_uid, user.pw_gid)


def wait_for_listener(host: str, port: int, broker: Broker) -> None:
    """Return once ``host:port`` accepts a TCP connection (bounded by 10 s)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection((host, port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.02)
    raise RuntimeError(f"listener {host}:{port} did not open: {broker.log_text()}")


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    """One production-configured broker per test module."""
    base = Path(tempfile.mkdtemp(prefix="tablectl-broker-"))
    base.chmod(0o755)  # the broker's user must be able to reach its files
    try:
        site = make_site(base)
        yield site
        site.broker.stop()
    finally:
        shutil.rmtree(base, ignore_errors=True)


class Clients:
    """Connects clients for one test and closes them all when it ends."""

    def __init__(self, site: Site) -> None:
        self.site = site
        self.open: list[Probe] = []

    def __call__(self, user: str | None, **kwargs: object) -> Probe:
        probe = self.site.connect(user, **kwargs)
        self.open.append(probe)
        return probe

    def close_all(self) -> None:
        for probe in self.open:
            probe.close()


@pytest.fixture
def clients(site: Site) -> Iterator[Clients]:
    """``clients("display-01", listener="mqtts")``: a connected client, closed after the test."""
    made = Clients(site)
    yield made
    made.close_all()
