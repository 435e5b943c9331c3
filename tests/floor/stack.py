"""The floor's real parts for integration tests: a test PKI, a floor broker with a TLS
listener, table brokers bridged to it with the shipped ``config/mosquitto/bridge.conf``, and
``tablectl floor run`` as a child process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import psycopg

from tests.conftest import Broker, BrokerFactory
from tests.reliability.harness import DaemonProcess
from tests.security.conftest import CONFIG, give_to_broker_user, load_render, wait_for_listener

ROOT = Path(__file__).resolve().parents[2]
QUEUE = "max_queued_messages 100000\nmax_queued_bytes 0\n"


def make_pki() -> Path:
    """A test CA and broker certificate (valid for 127.0.0.1), readable by the broker."""
    base = Path(tempfile.mkdtemp(prefix="tablectl-floor-pki-"))
    base.chmod(0o755)
    root = base / "pki"
    subprocess.run([str(CONFIG / "make-test-pki.sh"), str(root)], check=True,
                   capture_output=True, timeout=60)
    give_to_broker_user(base)
    return root


def remove_pki(root: Path) -> None:
    shutil.rmtree(root.parent, ignore_errors=True)


def floor_broker(factory: BrokerFactory, pki: Path) -> Broker:
    """The floor broker: plain listener (the floor service) and TLS (the bridges)."""
    broker = factory(f"""
{QUEUE}
log_type notice
listener {{port:tls}} 127.0.0.1
cafile {pki}/certs/ca.crt
certfile {pki}/certs/server.crt
keyfile {pki}/certs/server.key
tls_version tlsv1.2
""")
    wait_for_listener("127.0.0.1", broker.ports["tls"], broker)
    return broker


def bridge_config(table: str, port: int, pki: Path) -> str:
    """``config/mosquitto/bridge.conf`` rendered for ``table`` (floor at 127.0.0.1:port)."""
    render = load_render()
    return str(render.render((CONFIG / "bridge.conf").read_text(), {
        "TABLE": table, "FLOOR_HOST": "127.0.0.1", "FLOOR_PORT": str(port),
        "CONF_DIR": str(pki)}))


def table_broker(factory: BrokerFactory, table: str, floor_port: int, pki: Path) -> Broker:
    """A table's own broker, bridged to the floor."""
    return factory(QUEUE + "log_type notice\n" + bridge_config(table, floor_port, pki))


class FloorProcess(DaemonProcess):
    """``python -m tablectl floor run`` as a child; :meth:`kill` is a SIGKILL."""

    def __init__(self, broker_port: int, db: str, log: Path, *, user: str,
                 extra: tuple[str, ...] = ()) -> None:
        super().__init__(Path(), log)
        self.args = [sys.executable, "-m", "tablectl", "--log-level", "info", "floor", "run",
                     "--broker", f"mqtt://127.0.0.1:{broker_port}", "--db", db, "--user", user,
                     *extra]

    def start(self) -> None:
        """Start the service (the previous one must be dead)."""
        log: IO[bytes] = self.log_path.open("ab")
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.proc = subprocess.Popen(self.args, stdout=log, stderr=subprocess.STDOUT,
                                     cwd=ROOT, env=env)
        log.close()
        self.starts += 1


def db_rows(url: str, query: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Rows of one query (its own short connection: the test never holds one open)."""
    try:
        with psycopg.connect(url, connect_timeout=5) as conn:
            return list(conn.execute(query.encode(), args).fetchall())
    except psycopg.errors.UndefinedTable:
        return []


def iter_lines(path: Path) -> Iterator[str]:
    yield from path.read_text(errors="replace").splitlines()
