"""A command stamped in the future is as stale as one stamped in the past: before, ``sent_at``
a year ahead gave a negative age, which passed ``max_command_age``, so such a command (a
sender's wrong clock, or a captured command stamped ahead to be replayed later) was taken
at any time until then."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tablectl.controller import ErrorCode

from .helpers import fresh
from .test_commands import ok, refused


@pytest.mark.parametrize("ahead", [timedelta(seconds=30), timedelta(days=365)])
def test_a_command_from_the_future_is_stale(ahead: timedelta) -> None:
    d = fresh()
    reply = refused(d, ErrorCode.STALE_COMMAND, "start_hand", sent_at=d.now + ahead)
    assert "in the future" in reply.reason and "at most 10 s" in reply.reason


def test_a_clock_a_little_ahead_is_taken() -> None:
    d = fresh()
    ok(d.cmd("start_hand", sent_at=d.now + timedelta(seconds=5)))
