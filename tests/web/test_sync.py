"""Sans-IO resync rules of the public view and the overlay delay line (no broker, no clock)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tablectl.web.link import LinkChange, LinkState, Message
from tablectl.web.sync import DelayLine, OverlaySync, PublicSync

T = "poker/v1/tables/t01"


def msg(kind: str, obj: dict[str, Any]) -> Message:
    return Message(f"{T}/{kind}", json.dumps(obj).encode())


def state(epoch: int, seq: int, **over: Any) -> Message:
    """A snapshot as the daemon publishes it: the envelope, the body under ``data``."""
    body = {"table": "t01", "phase": "betting", "seats": [], "board": [],
            "hand": {"id": "h1", "number": 1}}
    body.update(over)
    return msg("state", {"v": 1, "table": "t01", "epoch": epoch, "seq": seq,
                         "type": "snapshot", "ts": "2026-11-29T18:00:00Z", "hand": 1,
                         "data": body})


def event(epoch: int, seq: int, etype: str = "action", **fields: Any) -> Message:
    data: dict[str, Any] = {"seat": 1, "kind": "check", "amount": 0, "to": 0,
                            "all_in": False, "stack": 100} if etype == "action" else {}
    data.update(fields)
    return msg("events", {"v": 1, "table": "t01", "epoch": epoch, "seq": seq, "type": etype,
                          "ts": "2026-11-29T18:00:00Z", "hand": 1, "data": data})


def status(value: str, epoch: int) -> Message:
    return msg("status", {"v": 1, "table": "t01", "state": value, "version": "0.1.0",
                          "epoch": epoch})


def synced(epoch: int = 1, seq: int = 10) -> PublicSync:
    sync = PublicSync("t01")
    sync.feed(LinkChange(LinkState.UP))
    sync.feed(status("online", epoch))
    sync.feed(state(epoch, seq))
    return sync


def test_events_in_order_are_logged_and_advance_seq() -> None:
    sync = synced()
    assert sync.feed(event(1, 11))
    assert sync.feed(event(1, 12))
    assert sync.seq == 12
    assert [e["seq"] for e in sync.view()["log"]] == [11, 12]  # type: ignore[index]
    assert not sync.stale and not sync.resyncing


def test_the_log_and_the_name_come_from_the_snapshot_when_it_has_them() -> None:
    """A daemon whose snapshot carries the hand's log: the view shows that log (whole, also
    to a page that came mid-hand), not what this server happened to see of the events; its
    ``table_name`` titles the pages unless the server was given one."""
    sync = synced()
    log = [{"type": "hand_started", "hand": {"id": "h1", "number": 1}, "n": 1},
           {"type": "forced_bet", "seat": 1, "kind": "small_blind", "amount": 50, "n": 2}]
    assert sync.feed(state(1, 11, log=log, log_omitted=0, table_name="Main room 1"))
    view = sync.view()
    assert view["log"] == log and view["log_omitted"] == 0
    assert view["title"] == "Main room 1"
    assert sync.feed(event(1, 12))           # the event's own line comes with the next snapshot
    assert sync.view()["log"] == log
    assert PublicSync("t01", title="Given").title == "Given"
    # a hostile log: not a list (the events' log instead), or not objects (left out)
    sync.feed(state(1, 13, log="x", log_omitted=True))
    assert [e["seq"] for e in sync.view()["log"]] == [12]  # type: ignore[index]
    sync.feed(state(1, 14, log=[1, "a", {"type": "action", "n": 3}], log_omitted=True))
    assert sync.view()["log"] == [{"type": "action", "n": 3}]
    assert sync.view()["log_omitted"] == 0


def test_log_entries_are_the_event_bodies_and_a_street_is_one_board_line() -> None:
    sync = synced()
    sync.feed(event(1, 11, seat=3, kind="raise", amount=500, to=600))
    for seq, cards in ((12, ["Ah"]), (13, ["Ah", "7c"]), (14, ["Ah", "7c", "2d"])):
        sync.feed(event(1, seq, "board", cards=cards, street="flop"))
    sync.feed(event(1, 15, "board", cards=["Ah", "7c", "2d", "Kd"], street="turn"))
    log = sync.view()["log"]
    assert log[0] == {"seat": 3, "kind": "raise", "amount": 500, "to": 600,  # type: ignore[index]
                      "all_in": False, "stack": 100, "type": "action", "seq": 11,
                      "ts": "2026-11-29T18:00:00Z"}
    assert [(e["street"], e["cards"]) for e in log[1:]] == [  # type: ignore[index]
        ("flop", ["Ah", "7c", "2d"]), ("turn", ["Ah", "7c", "2d", "Kd"])]


def test_the_snapshot_in_the_view_is_the_body_and_a_status_without_state_is_ignored() -> None:
    sync = synced()
    assert sync.view()["snapshot"] == {"table": "t01", "phase": "betting", "seats": [],
                                       "board": [], "hand": {"id": "h1", "number": 1}}
    # the contract draft's spelling {"status": ...} is not the daemon's: ignored
    assert not sync.feed(msg("status", {"table": "t01", "status": "offline", "epoch": 1}))
    assert not sync.stale
    # a body at the top level (no envelope) is not a snapshot
    assert not sync.feed(msg("state", {"table": "t01", "epoch": 1, "seq": 11, "seats": []}))


def test_a_seq_gap_waits_for_the_next_snapshot() -> None:
    sync = synced()
    sync.feed(event(1, 11))
    assert sync.feed(event(1, 13))  # 12 was lost
    assert sync.resyncing
    assert not sync.feed(event(1, 14))  # not trusted while resyncing
    assert [e["seq"] for e in sync.view()["log"]] == [11]  # type: ignore[index]
    sync.feed(state(1, 14))
    assert not sync.resyncing and sync.seq == 14
    assert sync.feed(event(1, 15))


def test_a_new_epoch_resets_the_view() -> None:
    sync = synced()
    sync.feed(event(1, 11))
    sync.feed(state(2, 3))  # the daemon restarted
    assert sync.epoch == 2 and sync.seq == 3
    assert sync.view()["log"] == []
    assert not sync.feed(event(1, 12))  # a straggler of the old run changes nothing
    assert sync.seq == 3


def test_an_event_of_a_new_epoch_before_its_snapshot_waits_for_it() -> None:
    sync = synced()
    sync.feed(event(2, 1))
    assert sync.resyncing and sync.snapshot is None and sync.stale
    sync.feed(state(2, 1))
    assert not sync.resyncing and not sync.stale


def test_offline_status_or_lost_link_is_stale_and_keeps_the_last_state() -> None:
    sync = synced()
    sync.feed(status("offline", 1))
    assert sync.stale and sync.snapshot is not None
    sync.feed(status("online", 1))
    assert not sync.stale
    sync.feed(LinkChange(LinkState.DOWN))
    assert sync.stale and sync.view()["connected"] is False


def test_a_late_will_of_a_previous_run_is_ignored() -> None:
    sync = synced(epoch=4)
    assert not sync.feed(status("offline", 3))
    assert not sync.stale


def test_an_older_snapshot_is_ignored() -> None:
    sync = synced(seq=10)
    assert not sync.feed(state(1, 9))
    assert sync.seq == 10


@pytest.mark.parametrize("payload", [b"not json", b"[1, 2]", b'{"table": "t01"}',
                                     b'{"table": "t01", "epoch": "1", "seq": 2, "seats": []}'])
def test_bad_payloads_change_nothing(payload: bytes) -> None:
    sync = synced()
    before = sync.view()
    assert not sync.feed(Message(f"{T}/state", payload))
    assert not sync.feed(Message(f"{T}/events", payload))
    assert sync.view() == before


def test_other_tables_are_ignored() -> None:
    sync = synced()
    assert not sync.feed(Message("poker/v1/tables/t02/state", state(1, 99).payload))
    assert sync.seq == 10


def test_a_hidden_card_in_a_public_snapshot_never_reaches_the_view() -> None:
    sync = synced()
    seats = [{"seat": 1, "cards": [{"card": "Ah", "up": False}, {"card": "Kd", "up": True}]}]
    sync.feed(state(1, 11, seats=seats))
    cards = sync.view()["snapshot"]["seats"][0]["cards"]  # type: ignore[index]
    assert cards == [{"card": None, "up": False}, {"card": "Kd", "up": True}]


def test_delay_line_releases_in_order_only_when_due() -> None:
    line: DelayLine[int] = DelayLine(2.0)
    line.push(1, 0.0)
    line.push(2, 0.5)
    assert line.pop_due(1.999) == []
    assert line.pop_due(2.0) == [1]
    assert line.next_due() == 2.5
    assert line.pop_due(10) == [2]
    assert line.next_due() is None
    with pytest.raises(ValueError, match="negative"):
        DelayLine(-1)


def holecards(hand: str, seat: int, cards: list[str | None], seq: int = 1) -> Message:
    return Message("secure/v1/tables/t01/holecards", json.dumps(
        {"v": 1, "table": "t01", "epoch": 1, "seq": seq, "type": "holecards",
         "ts": "2026-11-29T18:00:00Z", "hand": 1,
         "data": {"hand": {"id": hand, "number": 1}, "seat": seat, "cards": cards}}).encode())


def test_overlay_holds_hole_cards_until_the_delay() -> None:
    overlay = OverlaySync("t01", 30.0)
    overlay.receive(holecards("h1", 3, ["As", None]), now=99.0)  # second card unread so far
    overlay.receive(holecards("h1", 3, ["As", "Kd"], 2), now=100.0)
    assert overlay.view()["holecards"] == {}
    assert overlay.release(129.5)
    assert overlay.view()["holecards"] == {"3": ["As", None]}
    assert not overlay.release(129.9)
    assert overlay.release(130.0)
    assert overlay.view()["holecards"] == {"3": ["As", "Kd"]}
    # A new hand clears the previous hand's cards once it is released.
    overlay.receive(holecards("h2", 1, ["2c", "2d"], 3), 131.0)
    overlay.release(161.0)
    assert overlay.view()["holecards"] == {"1": ["2c", "2d"]}


def secure(kind: str, journal: str, seq: int, data: dict[str, object]) -> Message:
    return Message(f"secure/v1/tables/t01/{kind}", json.dumps(
        {"v": 1, "table": "t01", "journal": journal, "epoch": 1, "seq": seq, "type": kind,
         "ts": "2026-11-29T18:00:00Z", "hand": 1, "data": data}).encode())


def test_overlay_resets_on_a_fresh_journal_whose_hand_ids_start_again() -> None:
    """Both journals' first hand is t01-000001: the old one's hole cards must not stay on the
    overlay (it draws every seat it has cards for), and nothing of the old run comes back."""
    hand = {"id": "t01-000001", "number": 1}
    overlay = OverlaySync("t01", 0.0)
    overlay.receive(secure("state", "aaaa", 40, {"hand": hand, "seats": [{"seat": 3}]}), 0.0)
    overlay.receive(secure("holecards", "aaaa", 41, {"hand": hand, "seat": 3,
                                                     "cards": ["As", "Ad"]}), 0.0)
    overlay.release(0.0)
    assert overlay.view()["holecards"] == {"3": ["As", "Ad"]}
    overlay.receive(secure("state", "bbbb", 2, {"hand": hand, "seats": [{"seat": 4}]}), 1.0)
    overlay.receive(secure("holecards", "bbbb", 3, {"hand": hand, "seat": 4,
                                                    "cards": ["7c", "2d"]}), 1.0)
    overlay.receive(secure("state", "aaaa", 40, {"hand": hand, "seats": [{"seat": 3}]}), 1.0)
    overlay.receive(secure("holecards", "aaaa", 41, {"hand": hand, "seat": 3,
                                                     "cards": ["As", "Ad"]}), 1.0)
    overlay.receive(secure("state", "bbbb", 1, {"hand": hand, "seats": []}), 1.0)
    overlay.release(1.0)
    view: Any = overlay.view()
    assert view["holecards"] == {"4": ["7c", "2d"]}
    assert view["snapshot"]["seats"] == [{"seat": 4}]   # not the late seq 1 nor the old run


def test_overlay_drops_malformed_hole_cards_at_once() -> None:
    overlay = OverlaySync("t01", 1.0)
    overlay.receive(Message("secure/v1/tables/t01/holecards", b'{"seat": "x"}'), 0.0)
    overlay.receive(Message("secure/v1/tables/t01/holecards",
                            b'{"data": {"seat": 1, "cards": [7]}}'), 0.0)
    overlay.receive(Message("secure/v1/tables/t01/state", b'{"data": {}}'), 0.0)
    overlay.receive(Message("poker/v1/tables/t01/state", b"{}"), 0.0)
    assert overlay.next_due() is None


def floor_stats(through: str | None, vpip: int, table: str = "t01") -> Message:
    """The floor's statistics message (docs/floor.md), one seated player."""
    return Message(f"poker/v1/floor/tables/{table}/stats", json.dumps(
        {"v": 1, "type": "stats", "table": table, "ts": "2026-12-03T10:00:00+00:00",
         "through": through, "game": {"variant": "holdem"},
         "players": [{"seat": 1, "name": "Ada", "hands": vpip,
                      "vpip": {"made": vpip, "chances": 10, "percent": vpip * 10.0}}]}).encode())


def test_overlay_holds_the_floor_statistics_for_the_delay_and_keeps_the_newest() -> None:
    """They count showdowns of hands the broadcast has not shown yet (docs/floor.md, "What
    the broadcast delay allows"); a later message counting fewer hands (an older ``through``,
    from another floor worker) does not replace them, nor does a new run of the daemon clear
    them; a malformed one, or another table's, is dropped at once."""
    overlay = OverlaySync("t01", 30.0)
    overlay.receive(floor_stats("2026-12-03T10:00:00+00:00", 3), now=100.0)
    assert overlay.view()["stats"] is None and not overlay.release(129.9)
    assert overlay.release(130.0)
    stats: Any = overlay.view()["stats"]
    assert stats["players"][0]["vpip"]["made"] == 3
    overlay.receive(floor_stats("2026-12-03T10:59:00+01:00", 2), now=131.0)  # 09:59 UTC
    overlay.receive(secure("state", "bbbb", 1, {"hand": None, "seats": []}), 131.0)
    overlay.release(161.0)
    stats = overlay.view()["stats"]
    assert stats["players"][0]["vpip"]["made"] == 3
    for bad in (floor_stats("yesterday", 4), floor_stats(None, 4, table="t02"),
                Message("poker/v1/floor/tables/t01/stats", b'{"type": "stats"}'),
                Message("poker/v1/floor/tables/t01/stats", b"\xff")):
        overlay.receive(bad, 200.0)
    assert overlay.next_due() is None
    overlay.receive(floor_stats("2026-12-03T10:05:00+00:00", 5), now=300.0)
    overlay.release(330.0)
    stats = overlay.view()["stats"]
    assert stats["players"][0]["vpip"]["made"] == 5
