"""The order tests are handed to the xdist workers: the longest first.

``.ci/test`` runs ``pytest -n 3 --dist worksteal``: each worker gets a share of the collection
in order, and a worker that runs out steals the later half of what another still has queued.
A long test collected last (the web and vision folders sort late) is then started when the
others have nothing left to do, and the run waits for it alone. Started first, the long
tests run while the short ones are shared out around them.

:data:`MEASURED` holds the slowest tests of ``.ci/test``'s tier (``-n 3``, ``-m "not soak"``,
seconds of set-up, call and teardown from ``--durations``; a run on a busy machine is scaled
to a quiet one: only the order matters), by node id, by node id without
parameters or by file; the rest keep their collection order after them. An entry that names
no file or test any more fails ``tests/foundation/test_scheduling.py``: measure again and
replace the list when the slowest tests change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

MEASURED: Final[Mapping[str, float]] = {
    # .ci/test of 2026-12-04 (-n 3, 1081 s at a load of 9-14 from other work: halved)
    "tests/vision/test_decks.py::test_webcam_deck_enrolled_on_three_photos_per_card": 75,
    "tests/vision/test_decks.py::test_webcam_deck_accepts_no_wrong_card": 55,
    "tests/reliability/test_sigkill.py::test_killed_daemon_finishes_every_hand_as_if_never_killed[omaha-hi-lo-fixed-limit]":
        46,
    "tests/vision/test_accuracy.py::test_single_frame_moderate": 27,
    "tests/reliability/test_sigkill.py::test_killed_daemon_finishes_every_hand_as_if_never_killed[stud-fixed-limit]":
        24,
    "tests/vision/test_real_photos.py::test_other_designs_are_refused_not_guessed": 22,
    "tests/vision/test_cardlike.py::test_leaves_a_box_and_a_plate_are_not_cards": 20,
    "tests/vision/test_decks.py::test_enrolment_refuses_no_photo_that_recognition_reads": 20,
    "tests/vision/test_bounded_work.py::test_a_part_of_a_card_accepted_in_the_frame_is_not_read_in_other_shapes":
        19,
    "tests/vision/test_decks.py::test_handheld_enrolled_with_retaken_photos": 19,
    "tests/vision/test_cli.py::test_enrol_then_recognise_json": 18,
    "tests/vision/test_cli.py::test_a_photo_with_no_card_is_skipped_not_fatal": 17,
    "tests/vision/test_decks.py::test_blackjack_scenes_accept_no_wrong_card": 17,
    "tests/daemon_extra/test_wire.py::test_no_hole_card_on_poker_before_showdown_over_hundreds_of_hands":
        16,
    "tests/web/test_whole_stack.py::test_overlay_shows_live_odds_after_the_delay": 16,
    "tests/vision/test_real_photos.py::test_rank_reading_on_cluttered_scenes": 14,
    "tests/vision/test_corners.py::test_a_deck_enrols_from_photos_with_no_card_outline": 14,
    "tests/reliability/test_sigkill.py::test_killed_daemon_finishes_every_hand_as_if_never_killed[holdem-no-limit]":
        14,
    "tests/web/test_legibility.py::test_every_page_is_legible_at_every_size": 14,
    "tests/vision/test_accuracy.py::test_four_colour_deck": 13,
    "tests/game/test_properties.py::test_random_hands_keep_every_invariant": 12,
    "tests/reliability/test_broker_restart.py::test_broker_restarts_lose_nothing_for_displays_and_auditors":
        12,
    "tests/vision/test_cli.py::test_recognise_a_missing_image_says_so": 11,
    "tests/vision/test_held_outline.py::test_held_card_found_by_colour_is_accepted[cards-[C2]-021.jpg-2c]":
        11,
    "tests/floor/test_floor_stack.py::test_every_hand_arrives_once_through_every_fault": 11,
    "tests/terminal/test_check.py::test_watch_check_across_two_demos_with_fresh_journals": 11,
    "tests/reliability/test_display_truth.py::test_displays_show_the_daemons_snapshot_or_say_they_do_not":
        11,
    "tests/terminal/test_demo_horse.py::test_the_live_demo_plays_a_horse_round": 11,
    "tests/floor/test_hostile.py::test_a_poison_message_in_the_persistent_session_is_not_replayed_after_a_restart":
        10,
    "tests/firmware_bridge/test_hostile_peers.py::test_whatever_a_device_sends_the_host_client_hands_on_events_never_raises":
        9,
    "tests/tournament/test_simulated_tournament.py::test_three_tables_play_a_tournament_to_one_winner":
        9,
    "tests/vision/test_source.py::test_board_video_one_read_per_card": 9,
    "tests/vision/test_free_corner.py::test_overlapping_cards_are_read_from_their_free_corners": 9,
    "tests/tournament/test_structure.py::test_any_body_is_a_structure_or_a_config_error": 9,
    "tests/terminal/test_demo_and_watch.py::test_demo_plays_bounded_hands_and_exits_0": 9,
    "tests/vision/test_accuracy.py::test_enrolment_verified": 8,
    "tests/foundation/test_packaging.py::test_the_project_builds_without_warnings": 8,
    "tests/terminal/test_demo_every_variant.py::test_a_demo_that_cannot_play_says_why": 7,
    "tests/odds/test_daemon_odds.py::test_the_daemon_publishes_the_odds_of_every_position_on_the_secure_root[PO-2-3]":
        7,
    "tests/daemon/test_decisions_replay.py::test_replay_under_any_later_config_reproduces_the_live_run":
        7,
    "tests/security/test_information_flow_property.py::test_no_role_ever_receives_a_hidden_card_or_a_tag_uid":
        7,
    "tests/vision/test_units.py::test_jumbo_index_is_read_through_the_wider_corner": 7,
    "tests/vision/test_cli.py::test_enrol_takes_every_photo_of_a_card_and_prints_the_spread": 7,
    "tests/vision/test_real_photos.py::test_localisation_recall_on_cluttered_scenes": 6,
    "tests/vision/test_scene.py::test_cards_found_and_read_on_harsh_1280x720_tables": 6,
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
