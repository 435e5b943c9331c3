"""A card source's events into the table, through faults of the source's own code.

:func:`keep_feeding` is what ``tablectl run`` runs for each configured source. The sources
turn a device's own troubles (unplugged, another protocol version, undecodable frames) into
device status and missed reads; what reaches here is a fault of tablectl's code in a source,
which must stop that source only, never the table. While such a source is down its device
is shown ``offline`` (the dealer then keys its cards in; docs/reliability.md §1), and it is
``online`` again as soon as its events flow.
"""

from __future__ import annotations

import asyncio
import logging
import traceback
from collections.abc import AsyncIterator
from typing import Final

from tablectl.controller.inputs import DeviceStatus
from tablectl.daemon.table import TableDaemon
from tablectl.journal import JournalWriteError
from tablectl.publish.commands import bounded
from tablectl.sources.base import CardSource, SourceEvent, refusal_of

_LOGGER = logging.getLogger(__name__)

SOURCE_RETRY: Final = (1.0, 60.0)
"""Seconds before a failed source's events are taken again: the first wait, the longest."""


async def keep_feeding(daemon: TableDaemon, src: CardSource,
                       retry: tuple[float, float] = SOURCE_RETRY) -> None:
    """Feed ``src``'s events to ``daemon`` until the source ends.

    A source whose events end in a fault of its own code stops only itself: the fault is
    logged, the device is shown offline, and its events are taken again after ``retry[0]``
    seconds, the wait doubling up to ``retry[1]`` while it fails again before yielding
    anything. The first event it yields after that shows the device online again (unless
    that event is itself the device's status).
    """
    wait = retry[0]
    down = False
    while True:
        yielded = 0

        async def counted(events: AsyncIterator[SourceEvent]) -> AsyncIterator[SourceEvent]:
            nonlocal yielded, down
            async for event in events:
                if down and not isinstance(event, DeviceStatus):
                    yield DeviceStatus(src.name, True, daemon.clock.now(), kind=src.kind)
                down = False
                yielded += 1
                yield event

        try:
            await daemon.feed_source(counted(src.events()), refusal_of(src))
            return
        except Exception as exc:
            wait = retry[0] if yielded else wait
            where = "".join(traceback.format_tb(exc.__traceback__, limit=-4)).rstrip()
            _LOGGER.error("table %s: source %s failed: %s: %s; its events are taken again in "
                          "%g s\n%s", daemon.table, bounded(src.name), type(exc).__name__,
                          bounded(str(exc)), wait, where, extra={"table": daemon.table})
            if not down:
                down = _show_offline(daemon, src)
        await asyncio.sleep(wait)
        wait = min(wait * 2, retry[1])


def _show_offline(daemon: TableDaemon, src: CardSource) -> bool:
    """Show ``src``'s device offline; False where that could not be journaled either (the
    journal's own fault is the daemon's to report)."""
    try:
        daemon.apply(DeviceStatus(src.name, False, daemon.clock.now(), kind=src.kind))
    except JournalWriteError:
        return False
    except Exception as exc:
        _LOGGER.error("table %s: source %s could not be shown offline: %s: %s", daemon.table,
                      bounded(src.name), type(exc).__name__, bounded(str(exc)),
                      extra={"table": daemon.table})
        return False
    return True
