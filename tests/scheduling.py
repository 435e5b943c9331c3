"""The order tests are handed to the xdist workers: the longest first.

``.ci/test`` runs ``pytest -n 3 --dist worksteal``: each worker gets a share of the collection
in order, and a worker that runs out steals the later half of what another still has queued.
A long test collected last (the web and vision folders sort late) is then started when the
others have nothing left to do, and the run waits for it alone. Started first, the long
tests run while the short ones are shared out around them.

:data:`MEASURED` holds the slowest tests of one whole run of ``.ci/test``'s tier (``-n 3``,
``-m "not soak"``, on a busy machine; seconds of ``--durations``, call plus set-up and
teardown), by node id, by node id without parameters or by file; the rest keep their
collection order after them. An entry that names no file or test any more fails
``tests/foundation/test_scheduling.py``: measure again and replace the list when the slowest
tests change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

MEASURED: Final[Mapping[str, float]] = {
    "tests/reliability/test_sigkill.py::test_killed_daemon_finishes_every_hand_as_if_never_killed[holdem-no-limit]":
        33,
    "tests/reliability/test_sigkill.py::test_killed_daemon_finishes_every_hand_as_if_never_killed[omaha-hi-lo-fixed-limit]":
        30,
    "tests/vision/test_real_photos.py::test_other_designs_are_refused_not_guessed": 29,
    "tests/controller/test_payloads.py::test_everything_emitted_validates": 29,
    "tests/vision/test_decks.py::test_blackjack_scenes_accept_no_wrong_card": 29,
    "tests/foundation/test_documented_commands.py::test_the_documented_shell_set_up_finds_each_command":
        28,
    "tests/vision/test_decks.py::test_webcam_deck_accepts_no_wrong_card": 28,
    "tests/firmware_bridge/test_hostile_peers.py::test_whatever_a_device_sends_the_host_client_hands_on_events_never_raises":
        28,
    "tests/web/test_legibility.py::test_every_page_is_legible_at_every_size": 27,
    "tests/game/test_properties.py::test_random_hands_keep_every_invariant": 26,
    "tests/floor/test_floor_stack.py::test_every_hand_arrives_once_through_every_fault": 25,
    "tests/vision/test_real_photos.py::test_rank_reading_on_cluttered_scenes": 24,
    "tests/foundation/test_packaging.py::test_the_project_builds_without_warnings": 24,
    "tests/reliability/test_sigkill.py::test_killed_daemon_finishes_every_hand_as_if_never_killed[stud-fixed-limit]":
        23,
    "tests/foundation/test_scheduling.py::test_a_run_collects_the_longest_first": 23,
    "tests/reliability/test_broker_restart.py::test_broker_restarts_lose_nothing_for_displays_and_auditors":
        23,
    "tests/vision/test_accuracy.py::test_single_frame_moderate": 23,
    "tests/daemon_extra/test_wire.py::test_no_hole_card_on_poker_before_showdown_over_hundreds_of_hands":
        22,
    "tests/vision/test_source.py::test_board_video_one_read_per_card": 22,
    "tests/reliability/test_display_truth.py::test_displays_show_the_daemons_snapshot_or_say_they_do_not":
        21,
    "tests/vision/test_cardlike.py::test_leaves_a_box_and_a_plate_are_not_cards": 21,
    "tests/security/test_information_flow_property.py::test_no_role_ever_receives_a_hidden_card_or_a_tag_uid":
        21,
    "tests/ops/test_metrics.py::test_every_metric_is_there_and_moves": 19,
    "tests/vision/test_decks.py::test_enrolment_refuses_no_photo_that_recognition_reads": 18,
    "tests/floor/test_hostile.py::test_a_poison_message_in_the_persistent_session_is_not_replayed_after_a_restart":
        16,
    "tests/terminal/test_demo_every_variant.py::test_a_demo_that_cannot_play_says_why": 16,
    "tests/reliability/test_hostile_mqtt.py::test_refused_commands_cost_bounded_disk_and_leave_the_dealer_served":
        16,
    "tests/daemon/test_decisions_replay.py::test_replay_under_any_later_config_reproduces_the_live_run":
        15,
    "tests/floor/test_decode_fuzz.py::test_the_worker_stores_what_it_accepts_and_a_refusal_changes_no_history":
        15,
    "tests/vision/test_real_photos.py::test_localisation_recall_on_cluttered_scenes": 15,
    "tests/web/test_whole_stack.py::test_console_plays_a_complete_hand_by_clicks": 14,
    "tests/reliability/test_hostile_two_daemons.py::test_its_own_journal_left_online_by_a_crash_is_fine":
        14,
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
