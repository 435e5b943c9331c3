"""`tablectl run` runs the daemon on uvloop where it is installed, else on asyncio's loop."""

from __future__ import annotations

import asyncio
import sys

import pytest

from tablectl.cli.run import run_on_fast_loop


async def _loop_type() -> type:
    return type(asyncio.get_running_loop())


def test_the_daemon_runs_on_uvloop_where_it_is_installed() -> None:
    uvloop = pytest.importorskip("uvloop")
    assert run_on_fast_loop(_loop_type()) is uvloop.Loop


def test_without_uvloop_the_daemon_runs_on_asyncios_loop(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)      # import uvloop -> ImportError
    loop_type = run_on_fast_loop(_loop_type())
    assert issubclass(loop_type, asyncio.BaseEventLoop)
    assert loop_type.__module__.startswith("asyncio")
