"""The odds worker's scheduling class, as the tests that judge what it computes need it."""

from __future__ import annotations

import os


def normal_share_for_idle_children() -> None:
    """Move this process's children in the idle scheduling class (the odds worker) to the
    normal one: on a machine busy with a second suite the idle class gets no core for
    minutes, and a test of what the worker computes would wait on the machine, not on it."""
    me = os.getpid()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            pid = int(entry.name)
            if ppid == me and os.sched_getscheduler(pid) == os.SCHED_IDLE:
                os.sched_setscheduler(pid, os.SCHED_OTHER, os.sched_param(0))
        except (OSError, ValueError, IndexError):
            continue
