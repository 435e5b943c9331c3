"""The order tests are handed to the xdist workers: the longest first.

``.ci/test`` runs ``pytest -n 3 --dist worksteal``: each worker gets a share of the collection
in order, and a worker that runs out steals the later half of what another still has queued.
A long test collected last (the web and vision folders sort late) is then started when the
others have nothing left to do, and the run waits for it alone. Started first, the long
tests run while the short ones are shared out around them.

:data:`MEASURED` holds the slowest tests of ``.ci/test``'s tier (``-n 3``, ``-m "not soak"``,
on a busy machine; seconds of set-up, call and teardown, the lower of two whole runs: one run
alone mostly measures what else the machine did meanwhile), by node id, by node id without
parameters or by file; the rest keep their collection order after them. An entry that names
no file or test any more fails ``tests/foundation/test_scheduling.py``: measure again and
replace the list when the slowest tests change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

MEASURED: Final[Mapping[str, float]] = {
    "tests/daemon_extra/test_wire.py::test_no_hole_card_on_poker_before_showdown_over_hundreds_of_hands":
        28,
    # in .ci/test since this list was measured (each alone on a quiet machine, x1.5)
    "tests/tournament/test_table_sigkill.py::test_a_killed_table_daemon_loses_no_elimination":
        27,
    "tests/tournament/test_simulated_tournament.py::test_three_tables_play_a_tournament_to_one_winner":
        20,
    "tests/web/test_legibility.py::test_every_page_is_legible_at_every_size": 26,
    "tests/floor/test_floor_stack.py::test_every_hand_arrives_once_through_every_fault": 22,
    "tests/vision/test_cardlike.py::test_leaves_a_box_and_a_plate_are_not_cards": 19,
    "tests/vision/test_decks.py::test_webcam_deck_accepts_no_wrong_card": 17,
    "tests/reliability/test_sigkill.py::test_killed_daemon_finishes_every_hand_as_if_never_killed[omaha-hi-lo-fixed-limit]":
        16,
    "tests/odds/test_daemon_odds.py::test_the_daemon_publishes_the_odds_of_every_position_on_the_secure_root[PO-2-3]":
        16,
    "tests/reliability/test_broker_restart.py::test_broker_restarts_lose_nothing_for_displays_and_auditors":
        15,
    "tests/reliability/test_display_truth.py::test_displays_show_the_daemons_snapshot_or_say_they_do_not":
        15,
    "tests/vision/test_decks.py::test_enrolment_refuses_no_photo_that_recognition_reads": 14,
    "tests/reliability/test_sigkill.py::test_killed_daemon_finishes_every_hand_as_if_never_killed[stud-fixed-limit]":
        14,
    "tests/vision/test_accuracy.py::test_single_frame_moderate": 13,
    "tests/odds/test_daemon_odds.py::test_the_daemon_publishes_the_odds_of_every_position_on_the_secure_root[FR-1-5]":
        13,
    "tests/terminal/test_check.py::test_watch_check_across_two_demos_with_fresh_journals": 13,
    "tests/terminal/test_demo_every_variant.py::test_a_demo_that_cannot_play_says_why": 13,
    "tests/ops/test_doctor.py::test_an_unplugged_reader_fails": 12,
    "tests/vision/test_decks.py::test_blackjack_scenes_accept_no_wrong_card": 12,
    "tests/floor/test_web.py::test_the_floor_page_shows_every_table_live": 12,
    "tests/web/test_whole_stack.py::test_overlay_shows_live_odds_after_the_delay": 11,
    "tests/floor/test_hostile.py::test_a_poison_message_in_the_persistent_session_is_not_replayed_after_a_restart":
        11,
    "tests/vision/test_real_photos.py::test_other_designs_are_refused_not_guessed": 11,
    "tests/security/test_information_flow_property.py::test_no_role_ever_receives_a_hidden_card_or_a_tag_uid":
        10,
    "tests/tournament/test_tournament_kill.py::test_the_service_killed_mid_level_loses_neither_clock_nor_bust":
        10,
    "tests/vision/test_source.py::test_board_video_one_read_per_card": 10,
    "tests/reliability/test_reader_faults.py::test_unplug_and_reboot_mid_deal_lose_and_double_nothing[razz]":
        10,
    "tests/ops/test_metrics.py::test_every_metric_is_there_and_moves": 9,
    "tests/bench/test_benches_run.py::test_bench_prints_its_figures[equity.py]": 9,
    "tests/web/test_whole_stack.py::test_console_plays_a_complete_hand_by_clicks": 9,
    "tests/vision/test_corners.py::test_a_deck_enrols_from_photos_with_no_card_outline": 9,
    "tests/web/test_legibility.py::test_a_full_table_fits_the_screen": 9,
    "tests/reliability/test_sigkill.py::test_killed_daemon_finishes_every_hand_as_if_never_killed[holdem-no-limit]":
        9,
    "tests/daemon/test_decisions_replay.py::test_replay_under_any_later_config_reproduces_the_live_run":
        9,
    "tests/bench/test_benches_run.py::test_bench_prints_its_figures[web_latency.py]": 9,
    "tests/floor/test_bridge.py::test_a_floor_broker_our_ca_did_not_sign_gets_nothing": 9,
    "tests/vision/test_cardlike.py::test_a_card_cut_by_the_frame_is_still_reported": 9,
    "tests/vision/test_real_photos.py::test_rank_reading_on_cluttered_scenes": 9,
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
