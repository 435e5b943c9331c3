"""When the floor asks for a replay: after the reorder timeout, again at doubling intervals
(up to a cap) while the gap stays open, never once it is filled; at most 2,000 events a
request; a table that refuses or does not answer is a WARNING once, then at growing
intervals."""

from __future__ import annotations

from itertools import pairwise
from logging import INFO, WARNING

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
    assert tracker.update([GAP], now=19.0) == []              # the next one after 6 s
    assert tracker.update([GAP], now=19.5) == asked
    assert tracker.update([], now=20.0) == []                 # filled
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
    with pytest.raises(ValueError):
        GapTracker(retry=3.0, max_retry=1.0)


def _asks(tracker: GapTracker, until: float) -> list[float]:
    """When the tracker asks for GAP, sweeping every half second up to ``until``."""
    times = []
    for tick in range(int(until * 2) + 1):
        if tracker.update([GAP], now=tick / 2):
            times.append(tick / 2)
    return times


def test_a_table_that_never_answers_is_asked_less_and_less_often_up_to_the_cap() -> None:
    tracker = GapTracker(reorder=0.5, retry=3.0, max_retry=60.0)
    times = _asks(tracker, 400.0)
    assert times[:7] == [0.5, 3.5, 9.5, 21.5, 45.5, 93.5, 153.5]   # 3, 6, 12, 24, 48, 60 s
    assert [b - a for a, b in pairwise(times[5:])] == [60.0] * (len(times) - 6)
    assert len(times) < 15                                          # not every 3 s: 133


def test_an_unanswered_gap_is_a_warning_once_then_only_at_growing_intervals() -> None:
    tracker = GapTracker(reorder=0.5, retry=3.0, max_retry=60.0)
    _asks(tracker, 30 * 60.0)
    notices = tracker.take_notices()
    assert notices[0] == (INFO, "asking table t01 for events 5..9 of epoch 7")
    warnings = [text for level, text in notices if level == WARNING]
    assert warnings[0].startswith("table t01 did not answer the replay of events 5..9 of "
                                  "epoch 7; asking again, the next time in 6 s")
    assert 3 <= len(warnings) <= 6                       # 30 minutes: not one a request
    assert "(still, for" in warnings[1]
    assert not [n for n in notices[1:] if n[0] == INFO]
    assert tracker.take_notices() == []
    tracker.update([], now=30 * 60.0 + 1)                # filled at last
    ((level, text),) = tracker.take_notices()
    assert level == INFO and "is filled, back after 29 min" in text


def test_a_refusal_is_a_warning_once_and_the_requests_still_back_off() -> None:
    tracker = GapTracker(reorder=0.0, retry=3.0, max_retry=300.0)
    levels = []
    now = 0.0
    for _ in range(8):
        assert tracker.update([GAP], now=now)
        tracker.refused("t01", "7", "not_authorised", now + 0.1)
        levels += [level for level, text in tracker.take_notices()
                   if "refuses" in text and "not_authorised" in text]
        now += tracker.interval(GAP) or 0.0
    assert levels[0] == WARNING and levels.count(WARNING) <= 3 and len(levels) == 8
    assert tracker.interval(GAP) == 300.0
    assert tracker.update([GAP], now=now - 1) == []


def test_the_backoff_starts_again_for_a_new_gap_and_for_a_new_run() -> None:
    tracker = GapTracker(reorder=0.0, retry=3.0, max_retry=300.0)
    for t in range(0, 200):
        tracker.update([GAP], now=float(t))
    assert (tracker.interval(GAP) or 0) >= 48
    new_run = Gap("t01", "8", 1, 3)
    tracker.update([GAP, new_run], now=200.0)
    assert tracker.interval(new_run) == 3.0
    tracker.update([], now=201.0)
    tracker.update([GAP], now=202.0)
    assert tracker.interval(GAP) == 3.0
