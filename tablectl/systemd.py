"""systemd's notify protocol (``sd_notify``), written out: no library needed.

Under a unit with ``Type=notify`` systemd passes ``NOTIFY_SOCKET`` (a unix datagram socket; a
name starting with ``@`` is in the abstract namespace) and, with ``WatchdogSec=``,
``WATCHDOG_USEC`` (and ``WATCHDOG_PID``, the process meant). The daemon sends ``READY=1`` once
it serves, ``WATCHDOG=1`` at half the watchdog interval while its event loop runs (a loop that
hangs stops the keep-alives and systemd restarts the service), ``STATUS=...`` for
``systemctl status`` and ``STOPPING=1`` on the way out. Outside systemd every call is a no-op.

>>> SdNotifier({}).enabled
False
>>> SdNotifier({"NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "10000000"}).watchdog_interval
5.0
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections.abc import Callable, Mapping

_LOGGER = logging.getLogger(__name__)


class SdNotifier:
    """Messages to systemd's notify socket.

    Args:
        env: the environment (default ``os.environ``).
    """

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        env = os.environ if env is None else env
        address = env.get("NOTIFY_SOCKET", "")
        self.address = "\0" + address[1:] if address.startswith("@") else address
        self.watchdog_interval: float | None = None
        """Seconds between keep-alives (half of ``WATCHDOG_USEC``), None without a watchdog."""
        pid = env.get("WATCHDOG_PID")
        usec = env.get("WATCHDOG_USEC", "")
        if usec.isdigit() and int(usec) > 0 and (pid is None or pid == str(os.getpid())):
            self.watchdog_interval = int(usec) / 2e6

    @property
    def enabled(self) -> bool:
        """Running under systemd with a notify socket."""
        return bool(self.address)

    def notify(self, *lines: str) -> bool:
        """Send ``KEY=value`` lines in one datagram; False when not under systemd or the
        socket refused (never raises: the table does not stop over its supervisor)."""
        if not self.address:
            return False
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
                sock.sendto("\n".join(lines).encode("utf-8"), self.address)
        except OSError as exc:
            _LOGGER.warning("systemd notify socket %s: %s", self.address.lstrip("\0"), exc)
            return False
        return True

    async def keep_alive(self, status: Callable[[], str | None] = lambda: None) -> None:
        """``WATCHDOG=1`` every :attr:`watchdog_interval` seconds, forever (returns at once
        without a watchdog); ``status()``, when it says something, goes along as STATUS."""
        interval = self.watchdog_interval
        if interval is None or not self.address:
            return
        while True:
            text = status()
            self.notify("WATCHDOG=1", *([f"STATUS={text}"] if text else []))
            await asyncio.sleep(interval)


__all__ = ["SdNotifier"]
