"""The order tests are handed to the xdist workers: the longest first.

``.ci/test`` runs ``pytest -n 3 --dist worksteal``: each worker gets a share of the collection
in order, and a worker that runs out steals the later half of what another still has queued.
A long test collected last (the web and vision folders sort late) is then started when the
others have nothing left to do, and the run waits for it alone. Started first, the long
tests run while the short ones are shared out around them.

:data:`MEASURED` holds the slowest tests of one whole run of the suite (``-n 2``, seconds of
``--durations``, call plus set-up and teardown; the wire test as it runs with its 200 hands), by
node id, by node id without parameters or by file; the rest keep their collection order after
them. An entry that names no file or test any more fails
``tests/foundation/test_scheduling.py``: measure again and replace the list when the slowest
tests change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

MEASURED: Final[Mapping[str, float]] = {
    "tests/reliability/test_sigkill.py::test_killed_daemon_finishes_every_hand_as_if_never_killed[stud-hi-lo-fixed-limit]":
        109,
    "tests/terminal/test_demo_every_variant.py::test_twenty_hands_of_every_variant": 76,
    "tests/daemon_extra/test_wire.py::test_no_hole_card_on_poker_before_showdown_over_hundreds_of_hands":
        70,
    "tests/odds/test_daemon_odds.py::test_the_daemon_publishes_the_odds_of_every_position_on_the_secure_root[PO-2-3]":
        51,
    "tests/bench/test_benches_run.py::test_bench_prints_its_figures[camera.py]": 50,
    "tests/reliability/test_sigkill.py::test_killed_daemon_finishes_every_hand_as_if_never_killed[razz-fixed-limit]":
        43,
    "tests/vision/test_accuracy.py::test_three_frame_vote_moderate": 36,
    "tests/vision/test_accuracy.py::test_board_single_frame_moderate": 29,
    "tests/vision/test_decks.py::test_webcam_deck_accepts_no_wrong_card": 28,
    "tests/web/test_legibility.py::test_every_page_is_legible_at_every_size": 25,
    "tests/reliability/test_sigkill.py::test_killed_daemon_finishes_every_hand_as_if_never_killed[holdem-no-limit]":
        22,
    "tests/vision/test_accuracy.py::test_unenrolled_decks_never_auto_accepted": 21,
    "tests/reliability/test_broker_restart.py::test_broker_restarts_lose_nothing_for_displays_and_auditors":
        20,
    "tests/reliability/test_display_truth.py::test_displays_show_the_daemons_snapshot_or_say_they_do_not":
        17,
    "tests/bench/test_benches_run.py::test_bench_prints_its_figures[screenshots.py]": 16,
    "tests/odds/test_daemon_odds.py::test_the_daemon_publishes_the_odds_of_every_position_on_the_secure_root[FR-1-5]":
        16,
    "tests/floor/test_floor_stack.py::test_every_hand_arrives_once_through_every_fault": 15,
    "tests/reliability/test_sigkill.py::test_killed_daemon_finishes_every_hand_as_if_never_killed[stud-fixed-limit]":
        15,
    "tests/reliability/test_sigkill.py::test_killed_daemon_finishes_every_hand_as_if_never_killed[holdem-fixed-limit]":
        14,
    "tests/reliability/test_sigkill.py::test_killed_daemon_finishes_every_hand_as_if_never_killed[holdem-hi-lo-fixed-limit]":
        14,
    "tests/reliability/test_sigkill.py::test_killed_daemon_finishes_every_hand_as_if_never_killed[omaha-pot-limit]":
        13,
    "tests/reliability/test_sigkill.py::test_killed_daemon_finishes_every_hand_as_if_never_killed[omaha-hi-lo-fixed-limit]":
        13,
    "tests/bench/test_benches_run.py::test_bench_prints_its_figures[soak.py]": 13,
    "tests/bench/test_benches_run.py::test_bench_prints_its_figures[floor.py]": 13,
    "tests/vision/test_decks.py::test_blackjack_scenes_accept_no_wrong_card": 12,
    "tests/vision/test_real_photos.py::test_rank_reading_on_cluttered_scenes": 12,
    "tests/controller/test_payloads.py::test_everything_emitted_validates": 12,
    "tests/bench/test_benches_run.py::test_bench_prints_its_figures[latency.py]": 12,
    "tests/terminal/test_demo_every_variant.py::test_a_demo_that_cannot_play_says_why": 11,
    "tests/bench/test_benches_run.py::test_bench_prints_its_figures[publish.py]": 11,
}


def measured(nodeid: str, table: Mapping[str, float] = MEASURED) -> float | None:
    """The measured seconds of ``nodeid`` in ``table``: its own entry, else its test's without
    the parameters, else its file's; None when it was not among the slowest.

    >>> t = {"f.py::a[1]": 4.0, "f.py::a": 2.0, "g.py": 1.0}
    >>> measured("f.py::a[1]", t), measured("f.py::a[2]", t), measured("g.py::b", t)
    (4.0, 2.0, 1.0)
    >>> measured("h.py::c", t) is None
    True
    """
    base = nodeid.split("[", 1)[0]
    for key in (nodeid, base, base.split("::", 1)[0]):
        seconds = table.get(key)
        if seconds is not None:
            return seconds
    return None


def slowest_first(nodeids: Sequence[str], table: Mapping[str, float] = MEASURED) -> list[int]:
    """The indexes of ``nodeids`` in run order: the measured ones longest first (ties in
    collection order), then the others in collection order.

    >>> slowest_first(["a.py::x", "b.py::t", "c.py::z", "b.py::u"],
    ...               {"b.py::t": 3.0, "c.py": 9.0, "b.py::u": 3.0})
    [2, 1, 3, 0]
    """
    seconds = [measured(n, table) for n in nodeids]
    slow = sorted((i for i, s in enumerate(seconds) if s is not None),
                  key=lambda i: -(seconds[i] or 0.0))
    return slow + [i for i, s in enumerate(seconds) if s is None]
