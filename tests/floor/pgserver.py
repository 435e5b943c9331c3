"""A private PostgreSQL server for the one test that restarts it (the machine's server at
127.0.0.1:5432 is shared with every other test and developer: it is never restarted).

``initdb`` a cluster in a temporary directory (trust authentication, no fsync), run it on a
free loopback port with ``pg_ctl``; started as root, the server runs as the ``postgres``
user, as PostgreSQL requires.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.conftest import free_port


def _tool(name: str) -> str:
    found = shutil.which(name) or next(iter(sorted(glob.glob(
        f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None)
    if found is None:
        pytest.fail(f"{name} not found: the floor's restart test needs the PostgreSQL server "
                    "binaries (PATH or /usr/lib/postgresql/*/bin)")
    return found


class PgServer:
    """One private cluster: :meth:`stop` and :meth:`start` it; :attr:`url` names its
    ``postgres`` database."""

    def __init__(self) -> None:
        self.base = Path(tempfile.mkdtemp(prefix="tablectl-floor-pg-"))
        self.data = self.base / "data"
        self.port = free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        self._user: list[str] = []
        if os.geteuid() == 0:
            owner = pwd.getpwnam("postgres")
            os.chown(self.base, owner.pw_uid, owner.pw_gid)
            self._user = ["runuser", "-u", "postgres", "--"]
        self._run(_tool("initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust",
                  "-N", "--no-instructions")
        self.start()

    def _run(self, *args: str) -> None:
        done = subprocess.run([*self._user, *args], capture_output=True, text=True,
                              timeout=120, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{Path(args[0]).name} failed: {done.stderr or done.stdout}")

    def start(self) -> None:
        self._run(_tool("pg_ctl"), "-D", str(self.data), "-w", "-l",
                  str(self.base / "server.log"), "-o",
                  f"-p {self.port} -k {self.base} -c listen_addresses=127.0.0.1 "
                  "-c fsync=off -c shared_buffers=16MB", "start")

    def stop(self) -> None:
        self._run(_tool("pg_ctl"), "-D", str(self.data), "-w", "-m", "fast", "stop")

    def remove(self) -> None:
        """Stop the server if it runs and delete the cluster."""
        subprocess.run([*self._user, _tool("pg_ctl"), "-D", str(self.data), "-w", "-m",
                        "immediate", "stop"], capture_output=True, timeout=60, check=False)
        shutil.rmtree(self.base, ignore_errors=True)
