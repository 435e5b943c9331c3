"""Stop a long-running command on SIGTERM or SIGINT the way a service should: cleanly.

``systemctl stop`` sends SIGTERM; Python's default dies of it (exit 143) without running any
clean-up. :func:`until_stopped` runs a coroutine until either signal arrives, then cancels
it, so every ``async with`` unwinds (the daemon publishes ``offline``, closes the journal),
logs one ``stopped`` line and returns normally: the command exits 0.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Coroutine

_LOGGER = logging.getLogger(__name__)


async def until_stopped(main: Coroutine[object, object, None], what: str) -> None:
    """Run ``main`` until it ends or SIGTERM / SIGINT arrives (then cancel it and log
    ``"{what}: stopped (SIGTERM)"``)."""
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(main)
    received: list[str] = []

    def stop(name: str) -> None:
        received.append(name)
        task.cancel()

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop, sig.name)
    try:
        await task
    except asyncio.CancelledError:
        if not received:
            raise
        _LOGGER.info("%s: stopped (%s)", what, received[0])
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
