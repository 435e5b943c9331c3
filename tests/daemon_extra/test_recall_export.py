"""``tablectl recall`` and ``tablectl history export`` against the journal of a running daemon
with an error active: twelve hands played through the real daemon, a card of the other deck in
the shoe (``second_deck``, which blocks the table), then both commands run while it is so."""

from __future__ import annotations

import asyncio
import json
import re
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest

from hardware_sim.devices import SimShoe
from tablectl.app import table_setup
from tablectl.cli import main
from tablectl.daemon import TableDaemon
from tablectl.domain.cards import Card
from tablectl.domain.deck import Deck
from tablectl.history.export import ExportError, export_hand, finished_hands, open_readonly
from tests.conftest import Broker
from tests.daemon_extra.checks import pokerkit_stacks
from tests.daemon_extra.session import ROOT, Endpoint, Session, play_session, write_config

HANDS = 12


def _shm() -> str | None:
    return "/dev/shm" if Path("/dev/shm").is_dir() else None


def _run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


async def test_recall_and_export_while_the_daemon_runs_with_an_error_active(
        tmp_path: Path, mosquitto: Broker, capsys: pytest.CaptureFixture[str]) -> None:
    config_file = tmp_path / "table.toml"
    outputs: dict[str, tuple[int, str, str]] = {}
    phh_dir = tmp_path / "phh"

    async def with_error_active(daemon: TableDaemon, shoe: SimShoe) -> None:
        blue = Deck.load(ROOT / "config/decks/demo-blue.csv")
        applied = asyncio.Event()
        daemon.on_outcome = lambda _inp, _out: applied.set()
        shoe.foreign_tag(bytes.fromhex(blue.uid_for(Card.parse("As"))))
        await asyncio.wait_for(applied.wait(), 10)
        assert [e.code.value for e in daemon.controller.active_errors] == ["second_deck"]
        for name, argv in (
                ("json", ["recall", "--config", str(config_file), str(HANDS), "--json"]),
                ("text", ["recall", "--config", str(config_file), "3"]),
                ("one", ["recall", "--config", str(config_file), "--hand", "2", "--json"]),
                ("export", ["history", "export", "--config", str(config_file),
                            "--out", str(phh_dir)])):
            outputs[name] = await asyncio.to_thread(_run_cli, argv, capsys)
        assert daemon.controller.active_errors, "the error is still active"

    with tempfile.TemporaryDirectory(dir=_shm()) as journals:
        session: Session = await play_session(
            tmp_path, Endpoint(mosquitto.host, mosquitto.port), "NT", HANDS, seed=21,
            journal_dir=Path(journals), then=with_error_active, undo_every=7)
        with open_readonly(session.config.journal.path) as journal:
            last = finished_hands(journal, 1)[0]
    # a journal that disagrees with itself is refused, not exported
    setup = table_setup(session.config)
    assert export_hand(setup, last).number == HANDS
    wrong = replace(last, hand=replace(last.hand, summary={
        **last.hand.summary, "stacks": [{"seat": 1, "stack": 1}]}))
    with pytest.raises(ExportError, match="differ from the journal"):
        export_hand(setup, wrong)
    lost = replace(last, events=tuple(e for e in last.events if e.type != "action"))
    with pytest.raises(ExportError):
        export_hand(setup, lost)

    played = {h.number: h for h in session.hands}
    code, out, err = outputs["json"]
    assert code == 0, err
    recall = json.loads(out)
    assert [e["code"] for e in recall["active_errors"]] == ["second_deck"]
    hands = recall["hands"]
    assert [h["number"] for h in hands] == sorted(played, reverse=True)[:HANDS]
    assert sum(h.undos for h in session.hands) >= 5, "the export saw undone decisions"
    for hand in hands:
        dealt = played[hand["number"]]
        steps = hand["steps"]
        kinds = [s["what"] for s in steps]
        assert kinds[0] == "start_hand" and steps[0]["actor"] == "floor-wire"
        assert kinds.count("card_read") == dealt.cards, hand["number"]
        assert kinds.count("action") == dealt.decisions, hand["number"]
        assert kinds.count("undo") == dealt.undos, hand["number"]
        assert [s["seq"] for s in steps] == sorted(s["seq"] for s in steps)
        events = [e["type"] for s in steps for e in s["events"]]
        assert steps[0]["events"][0]["type"] == "hand_started"
        assert events.count("hand_ended") == 1 and "holecards" not in events
        # each card read caused the event that shows it (a card to a seat, a board card) or
        # that a card was burned (which card is never public)
        for step in steps:
            if step["kind"] == "card_read":
                assert {e["type"] for e in step["events"]} <= {
                    "cards_dealt", "board", "pot", "showdown", "winner", "hand_ended",
                    "bet_returned", "burn"}, step
        assert hand["result"] == "settled"

    code, out, err = outputs["text"]
    assert code == 0, err
    assert out.startswith("ACTIVE ERROR second_deck since ")
    assert out.count("\nhand ") == 3
    assert "start_hand" in out and "-> hand_started" in out and "card_read" in out
    # readable: cards by name beside their tag, no JSON
    assert re.search(r"shoe card_read: [0-9A-F]{8,20} = [2-9TJQKA][cdhs]", out), out
    assert "{" not in out and '"' not in out

    code, out, err = outputs["one"]
    assert code == 0, err
    assert [h["number"] for h in json.loads(out)["hands"]] == [2]

    code, out, err = outputs["export"]
    assert code == 0, err
    assert out.strip() == f"{HANDS} hands written to {phh_dir}"
    files = sorted(phh_dir.glob("*.phh"))
    assert len(files) == HANDS
    for path in files:
        text = path.read_text()
        number = int(path.stem.rsplit("-", 1)[1])
        seats = json.loads(text.split("_tablectl_seats = ", 1)[1].split("\n", 1)[0])
        want = played[number].final_stacks
        assert dict(zip(seats, pokerkit_stacks(text), strict=True)) == {
            s: want[s] for s in seats}, path.name


def test_recall_and_export_refuse_bad_input(tmp_path: Path, mosquitto: Broker,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    write_config(tmp_path, Endpoint(mosquitto.host, mosquitto.port), "NT")
    config = str(tmp_path / "table.toml")
    code, _, err = _run_cli(["recall", "--config", config], capsys)
    assert code == 1 and "no journal file (tablectl run creates it on its first start" in err
    assert not (tmp_path / "journal.sqlite").exists(), "a recall never creates a journal"
    for argv in (["recall", "--config", config, "0"],
                 ["history", "export", "--config", config, "--hands", "0"]):
        with pytest.raises(SystemExit) as ended:   # argparse's usage line
            main(argv)
        assert ended.value.code == 2
        assert "0: not a whole number from 1" in capsys.readouterr().err
    (tmp_path / "journal.sqlite").write_text("not a database")
    code, _, err = _run_cli(["history", "export", "--config", config,
                             "--out", str(tmp_path / "out")], capsys)
    assert code == 1 and "not a tablectl journal" in err
    assert not (tmp_path / "out").exists()
