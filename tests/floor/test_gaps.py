"""When the floor asks for a replay: after the reorder timeout, again after each retry
interval while the gap stays open, never once it is filled; at most 2,000 events a request."""

from __future__ import annotations

import pytest

from tablectl.floor.gaps import MAX_REPLAY, GapTracker, Phase, ReplayRequest
from tablectl.floor.model import Gap

GAP = Gap("t01", "7", 5, 9)


def test_a_gap_is_asked_for_after_the_reorder_timeout_then_again_until_filled() -> None:
    tracker = GapTracker(reorder=0.5, retry=3.0)
    assert tracker.update([GAP], now=10.0) == []
    assert tracker.phase(GAP) is Phase.WAITING
    assert tracker.update([GAP], now=10.4) == []
    asked = tracker.update([GAP], now=10.5)
    assert asked == [ReplayRequest("t01", "7", 5, 9)]
    assert tracker.phase(GAP) is Phase.ASKED
    assert tracker.update([GAP], now=12.0) == []
    assert tracker.update([GAP], now=13.5) == asked          # the request or reply was lost
    assert tracker.update([], now=14.0) == []                 # filled
    assert tracker.phase(GAP) is None
    assert tracker.update([GAP], now=14.1) == []              # a new gap waits again


def test_a_long_gap_is_asked_for_in_pieces_the_daemon_accepts() -> None:
    tracker = GapTracker(reorder=0.0)
    (req,) = tracker.update([Gap("t01", "7", 1, 10_000)], now=0.0)
    assert (req.from_seq, req.to_seq) == (1, MAX_REPLAY)


def test_bad_timings_are_refused() -> None:
    with pytest.raises(ValueError):
        GapTracker(reorder=-1)
    with pytest.raises(ValueError):
        GapTracker(retry=0)
