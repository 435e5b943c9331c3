"""The order tests are handed to the two xdist workers: the longest first.

``.ci/test`` runs ``pytest -n 2 --dist worksteal``: each worker gets half of the collection in
order, and a worker that runs out steals the later half of what the other still has queued.
A long test collected last (the web and vision folders sort late) is then started when the
other worker has nothing left to do, and the run waits for it alone. Started first, the long
tests run while the short ones are shared out around them.

:data:`MEASURED` holds the slowest tests measured on the shared 2-core machine under load (load
average about 20: seconds of ``--durations``, call plus set-up and teardown, the longest of
two runs of ``tests/web`` and ``tests/firmware_reference`` and one of every ``slow`` test), by
node id, by node id without parameters or by file; the rest keep their collection order after
them. An entry that names no file or test any more fails
``tests/foundation/test_scheduling.py``: measure again and replace the list when the slowest
tests change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

MEASURED: Final[Mapping[str, float]] = {
    "tests/terminal/test_demo_every_variant.py::test_twenty_hands_of_every_variant": 192,
    "tests/bench/test_benches_run.py::test_bench_prints_its_figures[camera.py]": 162,
    "tests/bench/test_benches_run.py::test_bench_prints_its_figures[soak.py]": 73,
    "tests/bench/test_benches_run.py::test_bench_prints_its_figures[hostile.py]": 49,
    "tests/floor/test_floor_stack.py::test_every_hand_arrives_once_through_every_fault": 40,
    "tests/bench/test_benches_run.py::test_bench_prints_its_figures[latency.py]": 38,
    "tests/bench/test_benches_run.py::test_bench_prints_its_figures[floor.py]": 35,
    "tests/firmware_reference/test_conformance.py::test_the_emulated_firmware_passes_every_check":
        34,
    "tests/firmware_reference/test_daemon.py::test_hands_dealt_from_the_firmware_settle_in_the_daemon[emulated]":
        32,
    "tests/web/test_whole_stack.py::test_overlay_shows_live_odds_after_the_delay": 30,
    "tests/bench/test_benches_run.py::test_bench_prints_its_figures[publish.py]": 30,
    "tests/web/test_production_broker.py::test_web_server_under_the_production_acl_and_mtls": 27,
    "tests/web/test_whole_stack.py::test_console_plays_a_complete_hand_by_clicks": 26,
    "tests/bench/test_benches_run.py::test_bench_prints_its_figures[bridge.py]": 25,
    "tests/firmware_reference/test_daemon.py::test_hands_dealt_from_the_firmware_settle_in_the_daemon[host]":
        23,
    "tests/web/test_api_fuzz.py::test_only_bad_request_escapes_the_body_decoder": 22,
    "tests/floor/test_web.py::test_the_floor_page_shows_every_table_live": 21,
    "tests/ops/test_metrics.py::test_every_metric_is_there_and_moves": 20,
    "tests/web/test_api_fuzz.py::test_every_post_is_answered_and_a_refusal_sends_nothing": 17,
    "tests/web/test_whole_stack.py::test_display_shows_the_engines_board_pots_and_winners": 17,
    "tests/web/test_console_play.py::test_floor_login_seats_adjusts_in_money_and_unseats": 17,
    "tests/web/test_console_play.py::test_whole_hands_with_only_enabled_controls": 15,
    "tests/web/test_console.py::test_console_plays_a_complete_hand_by_clicks": 14,
    "tests/firmware_reference/test_fuzz.py::test_fuzzed_streams_decode_as_the_host_decodes_them":
        13,
    "tests/web/test_console_user.py::test_a_console_user_without_a_role_is_told": 11,
    "tests/web/test_overlay.py::test_roles_keep_pages_apart": 11,
    "tests/web/test_fresh_journal.py::test_a_fresh_journal_on_the_same_table_is_shown_at_once": 11,
    "tests/web/test_cli.py::test_tablectl_web_without_a_web_section_is_a_config_error": 10,
    "tests/bench/test_benches_run.py::test_bench_prints_its_figures[equity.py]": 9,
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
