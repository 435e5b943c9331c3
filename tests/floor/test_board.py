"""The floor page's board: snapshots and statuses in, one line per table out; an older
snapshot and a late will of an earlier run change nothing."""

from __future__ import annotations

import json

from tablectl.floor.board import FloorBoard


def snap(epoch: object, seq: int, number: int, errors: int = 0, journal: str | None = None,
         **extra: object) -> bytes:
    return json.dumps({"v": 1, "table": "t1", "journal": journal, "epoch": epoch, "seq": seq,
                       "type": "snapshot",
                       "ts": "2026-12-01T20:00:00Z", "hand": number, "data": {
                           "game": {"label": "No-Limit Hold'em", "variant": "holdem"},
                           "stakes": {"small_blind": 50, "big_blind": 100, "currency": "EUR",
                                      "units_per_currency": 100},
                           "hand": {"id": f"t1-{number}", "number": number},
                           "phase": "betting", "street": "flop",
                           "seats": [{"seat": 1, "name": "Ada", "stack": 900, "bet": 50,
                                      "status": "active"},
                                     {"seat": 2, "name": "", "stack": 0, "bet": 0,
                                      "status": "empty"}],
                           "pots": [{"amount": 200, "eligible": [1]}],
                           "devices": [{"name": "shoe", "status": "online"}],
                           "errors": [{"code": "unknown_tag", "message": "x", "since": "t"}]
                           * errors, **extra}}).encode()


def status(epoch: object, state: str, journal: str | None = None) -> bytes:
    return json.dumps({"v": 1, "table": "t1", "state": state, "version": "0.1.0",
                       "journal": journal, "epoch": epoch}).encode()


def test_one_line_per_table_from_its_snapshot_and_status() -> None:
    board = FloorBoard()
    assert board.on_message("poker/v1/tables/t1/status", status(1, "online"))
    assert board.on_message("poker/v1/tables/t1/state", snap(1, 10, 4, errors=1))
    (line,) = board.to_json()["tables"]
    assert line == {"table": "t1", "name": "t1", "epoch": "1", "controller": "online",
                    "game": "No-Limit Hold'em", "stakes": "0.50/1.00 EUR", "hand": 4,
                    "phase": "betting", "street": "flop", "boards": [], "bomb": None,
                    "pot": 250, "pot_text": "2.50",
                    "players": [{"seat": 1, "name": "Ada", "stack": 900, "status": "active",
                                 "stack_text": "9.00"}],
                    "readers": [{"name": "shoe", "status": "online"}],
                    "errors": [{"code": "unknown_tag", "message": "x", "since": "t"}]}
    assert not board.on_message("poker/v1/tables/t1/state", snap(1, 9, 3))  # older
    assert board.to_json()["tables"][0]["hand"] == 4
    # a new run of the daemon: its status and snapshot replace the view; the old run's will
    # is late, and so is a snapshot of it
    assert board.on_message("poker/v1/tables/t1/status", status(2, "online"))
    assert board.on_message("poker/v1/tables/t1/state", snap(2, 2, 5))
    assert not board.on_message("poker/v1/tables/t1/status", status(1, "offline"))
    assert not board.on_message("poker/v1/tables/t1/state", snap(1, 11, 4))
    assert board.to_json()["tables"][0]["controller"] == "online"
    assert board.to_json()["tables"][0]["hand"] == 5
    assert board.on_message("poker/v1/tables/t1/status", status(2, "offline"))
    assert board.to_json()["tables"][0]["controller"] == "offline"


def test_names_not_ids_and_one_money_format() -> None:
    """The table's name from its snapshot, a flag with the table's and the player's names;
    the stakes decide cents (a $1/$2 table is 1/2 on every hand, whatever its amounts)."""
    board = FloorBoard()
    board.on_message("poker/v1/tables/t1/status", status(1, "online"))
    whole = {"small_blind": 100, "big_blind": 200, "currency": "USD", "units_per_currency": 100}
    assert board.on_message("poker/v1/tables/t1/state",
                            snap(1, 10, 4, table_name="Main room 1", stakes=whole))
    assert board.on_message("poker/v1/floor/flags", json.dumps(
        {"v": 1, "type": "flag", "hand": "t1:1:1", "rule": "bad-beat", "kind": "bad_beat",
         "seat": 1, "detail": "quads", "ts": "t"}).encode())
    assert board.on_message("poker/v1/floor/flags", json.dumps(
        {"v": 1, "type": "flag", "hand": "t9:1:1", "rule": "bad-beat", "kind": "bad_beat",
         "seat": 4, "detail": "quads", "ts": "t"}).encode())
    page = board.to_json()
    (line,) = page["tables"]
    assert line["name"] == "Main room 1" and line["stakes"] == "1/2 USD"
    assert line["pot_text"] == "2.50" and line["players"][0]["stack_text"] == "9"
    assert [(f["table_name"], f["player"]) for f in page["flags"]] == [
        ("t9", "seat 4"), ("Main room 1", "Ada")]   # newest first; t9 never seen


def test_readers_are_unknown_while_the_controller_is_offline() -> None:
    """The retained snapshot still says 'shoe online'; with its controller gone nobody
    reports the shoe, so the page says unknown (and what was last known)."""
    board = FloorBoard()
    board.on_message("poker/v1/tables/t1/status", status(1, "online"))
    board.on_message("poker/v1/tables/t1/state", snap(1, 10, 4))
    assert board.to_json()["tables"][0]["readers"] == [{"name": "shoe", "status": "online"}]
    assert board.on_message("poker/v1/tables/t1/status", status(1, "offline"))
    assert board.to_json()["tables"][0]["readers"] == [
        {"name": "shoe", "status": "unknown", "last": "online"}]
    assert board.on_message("poker/v1/tables/t1/status", status(1, "online"))
    assert board.to_json()["tables"][0]["readers"] == [{"name": "shoe", "status": "online"}]


def test_a_fresh_journal_is_a_new_run_whatever_its_epoch_and_seq() -> None:
    """Journal "bb" replaced journal "aa" (a new disk): its epoch and seq start again, lower
    than the old journal's; the board shows it, and the old journal's stragglers are old."""
    board = FloorBoard()
    assert board.on_message("poker/v1/tables/t1/status", status(1, "online", "aa"))
    assert board.on_message("poker/v1/tables/t1/state", snap(1, 91, 40, journal="aa"))
    assert board.on_message("poker/v1/tables/t1/state", snap(1, 8, 2, journal="bb"))
    line = board.to_json()["tables"][0]
    assert (line["hand"], line["epoch"], line["controller"]) == (2, "bb:1", "unknown")
    assert board.on_message("poker/v1/tables/t1/status", status(1, "online", "bb"))
    # the old journal's late will and a late snapshot of it change nothing
    assert not board.on_message("poker/v1/tables/t1/status", status(1, "offline", "aa"))
    assert not board.on_message("poker/v1/tables/t1/state", snap(1, 92, 41, journal="aa"))
    line = board.to_json()["tables"][0]
    assert (line["hand"], line["epoch"], line["controller"]) == (2, "bb:1", "online")


def test_an_older_epoch_of_the_journal_shown_is_ignored() -> None:
    board = FloorBoard()
    assert board.on_message("poker/v1/tables/t1/state", snap(3, 5, 7, journal="aa"))
    assert not board.on_message("poker/v1/tables/t1/state", snap(2, 50, 6, journal="aa"))
    assert not board.on_message("poker/v1/tables/t1/status", status(2, "offline", "aa"))
    line = board.to_json()["tables"][0]
    assert (line["hand"], line["epoch"], line["controller"]) == (7, "aa:3", "unknown")


def test_what_is_not_for_the_board_is_ignored() -> None:
    board = FloorBoard()
    assert not board.on_message("poker/v1/tables/t1/state", b"not json")
    assert not board.on_message("poker/v1/tables/t1/state", b"[1]")
    assert not board.on_message("poker/v1/tables/t1/events", snap(1, 1, 1))
    assert not board.on_message("poker/v1/replies/x/y", b"{}")
    assert not board.on_message("poker/v1/tables/t1/state", snap(None, 1, 1))  # names no run
    assert board.to_json() == {"tables": [], "flags": []}


def test_amounts_are_money_in_the_currency_the_stakes_are_shown_in() -> None:
    """Stakes of 50/100 cents read '0.50/1.00 EUR': a pot of 40000 chip units is 400.00, not
    40000; the stakes need cents, so every amount has them, whole or not (docs/web.md)."""
    board = FloorBoard()
    assert board.on_message("poker/v1/tables/t1/state", snap(1, 10, 4))
    line = board.to_json()["tables"][0]
    assert (line["pot_text"], line["players"][0]["stack_text"]) == ("2.50", "9.00")
    payload = json.loads(snap(1, 11, 4))
    payload["data"]["pots"] = [{"amount": 39950, "eligible": [1]}]
    payload["data"]["seats"][0]["stack"] = 1_234_500
    assert board.on_message("poker/v1/tables/t1/state", json.dumps(payload).encode())
    line = board.to_json()["tables"][0]
    assert (line["pot_text"], line["players"][0]["stack_text"]) == ("400.00", "12,345.00")


def test_a_hostile_snapshot_changes_nothing_and_the_page_stays_json() -> None:
    """Before, a NaN went into the page's JSON (every browser's JSON.parse refuses it) and
    1,200 levels of nesting raised RecursionError out of the page's consumer."""
    board = FloorBoard()
    assert board.on_message("poker/v1/tables/t1/state", snap(1, 10, 4))
    page = json.dumps(board.to_json(), allow_nan=False)
    for bad in (snap(1, 11, 4).replace(b'"bet": 50', b'"bet": NaN'),
                snap(1, 11, 4).replace(b'"bet": 50', b'"bet": ' + b"[" * 1200 + b"]" * 1200),
                snap(1, 11, 4).replace(b'"Ada"', b'"A\\u0000da"'), b"\xff", b"[]"):
        assert not board.on_message("poker/v1/tables/t1/state", bad)
        assert json.dumps(board.to_json(), allow_nan=False) == page
    assert board.on_message("poker/v1/tables/t1/state", snap(1, 11, 5))
