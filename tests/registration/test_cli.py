"""``tablectl deck register``, ``deck verify`` and ``table calibrate`` end to end: the command
runs as a subprocess, opens a simulated reader through a real pty with pyserial, and is
driven through its stdin and stdout as a dealer would. Every wait is bounded."""

from __future__ import annotations

import asyncio
import json
import random
import re
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from firmware_bridge.messages import SnapshotReq
from hardware_sim.devices import AntennaRole, SimShoe, SimTable, standard_roles
from hardware_sim.serve import PtyDevice
from tablectl.clock import SystemClock
from tablectl.controller.inputs import Location
from tablectl.domain.cards import FULL_DECK, Card
from tablectl.domain.deck import Deck
from tablectl.sources.base import load_antenna_map
from tests.conftest import free_port
from tests.registration.conftest import DECKS, Cli

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")

Start = Callable[..., Awaitable[Cli]]


def fresh_deck() -> Deck:
    """A new deck's tags: UIDs no demo deck uses, one per card in FULL_DECK order."""
    rng = random.Random(2026)
    uids = [bytes([0x04, *rng.randbytes(6)]).hex().upper() for _ in FULL_DECK]
    return Deck.from_pairs("fresh", zip(uids, FULL_DECK, strict=True))


async def test_register_in_stated_order_refuses_a_double_read_and_a_known_tag(
        tmp_path: Path, tablectl: Start, blue_deck: Deck) -> None:
    deck = fresh_deck()
    shoe = SimShoe(deck, clock=SystemClock(), shuffle=False)   # passes cards in FULL_DECK order
    port = tmp_path / "usb-Sim_Shoe-if00"
    out = tmp_path / "club-night.csv"
    async with PtyDevice(shoe, port, clock=SystemClock()):
        cli = await tablectl("deck", "register", "--device", str(port), "--out", str(out),
                             "--known", str(DECKS / "demo-blue.csv"), "--timeout", "10")
        await cli.expect("reader online")
        for _ in range(10):
            shoe.draw()
        shoe.duplicate_read()                                     # the 10th card seen twice
        blue_tag = blue_deck.uid_for(Card.parse("Qs"))
        shoe.foreign_tag(bytes.fromhex(blue_tag))                 # a card of the blue deck
        while shoe.remaining:
            shoe.draw()
        code, _, err = await cli.finish()
    assert code == 0, err
    text = "\n".join(cli.lines)
    tenth = FULL_DECK[9]
    assert f"refused: tag {deck.uid_for(tenth)} is already registered as {tenth}" in text
    assert f"refused: tag {blue_tag} belongs to deck demo-blue (Qs)" in text
    assert f"wrote {out}: deck club-night, 52 cards" in text
    written = Deck.load(out)
    assert written.deck_id == "club-night"
    assert dict(written.cards_by_uid) == dict(deck.cards_by_uid)


async def test_register_with_confirmations_typed_on_stdin(
        tmp_path: Path, tablectl: Start) -> None:
    deck = fresh_deck()
    shoe = SimShoe(deck, clock=SystemClock(), seed=5)            # shuffled
    port = tmp_path / "usb-Sim_Shoe-if00"
    out = tmp_path / "confirmed.csv"
    async with PtyDevice(shoe, port, clock=SystemClock()):
        cli = await tablectl("deck", "register", "--confirm", "--device", str(port),
                             "--out", str(out), "--timeout", "10")
        await cli.expect("reader online")
        answered: list[Card] = []
        while shoe.remaining:
            shoe.draw()
            m = await cli.expect(r"tag ([0-9A-F]+): which card\?")
            card = deck.card_for(m.group(1))
            assert card is not None
            if len(answered) == 12:                          # a card already registered
                await cli.send(str(answered[0]))
                await cli.expect(rf"refused: {answered[0]} is already registered")
                await cli.expect(rf"tag {m.group(1)}: which card\?")   # asked again
            await cli.send(str(card).lower())
            answered.append(card)
        code, _, err = await cli.finish()
    assert code == 0, err
    assert dict(Deck.load(out).cards_by_uid) == dict(deck.cards_by_uid)


async def test_register_refuses_to_overwrite_without_force(tmp_path: Path,
                                                           tablectl: Start) -> None:
    out = tmp_path / "exists.csv"
    out.write_text("keep me\n", encoding="utf-8")
    cli = await tablectl("deck", "register", "--device", str(tmp_path / "no-such-port"),
                         "--out", str(out))
    code, _, err = await cli.finish()
    assert code == 2 and "exists (use --force" in err
    assert out.read_text(encoding="utf-8") == "keep me\n"


async def test_register_times_out_and_writes_nothing(tmp_path: Path, tablectl: Start) -> None:
    # a reader that never answers (a path that cannot be opened is bad usage at once: below)
    out = tmp_path / "never.csv"
    cli = await tablectl("deck", "register", "--device",
                         f"socket://127.0.0.1:{free_port()}", "--out", str(out),
                         "--timeout", "1")
    code, _, err = await cli.finish()
    assert code == 1 and "never came online" in err and "nothing written" in err
    assert not out.exists()


async def verify(tablectl: Start, tmp_path: Path, shoe: SimShoe, act: Callable[[], None],
                 *extra: str) -> tuple[int, str]:
    port = tmp_path / "usb-Sim_Shoe-if00"
    async with PtyDevice(shoe, port, clock=SystemClock()):
        cli = await tablectl("deck", "verify", str(DECKS / "demo-blue.csv"), "--device",
                             str(port), "--settle", "0.3", *extra)
        await cli.expect("reader online")
        act()
        code, _, _ = await cli.finish()
    return code, "\n".join(cli.lines)


async def test_verify_a_good_deck(tmp_path: Path, tablectl: Start, blue_deck: Deck) -> None:
    shoe = SimShoe(blue_deck, clock=SystemClock(), seed=1)

    def pass_all() -> None:
        while shoe.remaining:
            shoe.draw()

    code, text = await verify(tablectl, tmp_path, shoe, pass_all)
    assert code == 0, text
    assert "deck demo-blue: 52/52 present, ok" in text


async def test_verify_reports_a_missing_card(tmp_path: Path, tablectl: Start,
                                             blue_deck: Deck) -> None:
    shoe = SimShoe(blue_deck, clock=SystemClock(), seed=2)

    def pass_all_but_one() -> None:
        while shoe.remaining > 1:
            shoe.draw()

    code, text = await verify(tablectl, tmp_path, shoe, pass_all_but_one, "--timeout", "1.5")
    left = shoe.order[0]                              # the card still in the shoe
    assert code == 1
    assert f"missing 1: {left}" in text and "51/52 present" in text


async def test_verify_reports_a_duplicate_read_as_json(tmp_path: Path, tablectl: Start,
                                                       blue_deck: Deck) -> None:
    shoe = SimShoe(blue_deck, clock=SystemClock(), seed=3)
    doubled: list[Card] = []

    def pass_with_a_double_read() -> None:
        for _ in range(20):
            shoe.draw()
        read = shoe.duplicate_read()
        card = blue_deck.card_for(read.uid_hex)
        assert card is not None
        doubled.append(card)
        while shoe.remaining:
            shoe.draw()

    code, text = await verify(tablectl, tmp_path, shoe, pass_with_a_double_read, "--json")
    assert code == 1
    report = json.loads(text.splitlines()[-1])
    assert report["ok"] is False and report["present"] == 52 and report["missing"] == []
    assert report["duplicates"] == [{"card": str(doubled[0]), "reads": 2}]


async def test_verify_names_the_deck_of_a_foreign_tag(tmp_path: Path, tablectl: Start,
                                                      blue_deck: Deck, red_deck: Deck) -> None:
    shoe = SimShoe(blue_deck, clock=SystemClock(), seed=4)
    red_kh = red_deck.uid_for(Card.parse("Kh"))
    stranger = "E0E1E2E3E4E5E6"

    def pass_with_strangers() -> None:
        for _ in range(10):
            shoe.draw()
        shoe.foreign_tag(bytes.fromhex(red_kh))           # a red card slipped into the deck
        shoe.foreign_tag(bytes.fromhex(stranger))         # a tag of no registered deck
        while shoe.remaining:
            shoe.draw()

    code, text = await verify(tablectl, tmp_path, shoe, pass_with_strangers,
                              "--other", str(DECKS / "demo-red.csv"))
    assert code == 1
    assert f"foreign tag {red_kh}: Kh of deck demo-red" in text
    assert f"unknown tag {stranger}" in text
    assert "52/52 present, 2 problem(s)" in text


async def test_calibrate_a_ten_seat_table(tmp_path: Path, tablectl: Start,
                                          blue_deck: Deck) -> None:
    roles = standard_roles(10)
    random.Random(7).shuffle(roles)                   # the reader's wiring is arbitrary
    table = SimTable(roles, clock=SystemClock(), deck=blue_deck)
    card = Card.parse("As")
    port = tmp_path / "usb-Sim_Table-if00"
    out = tmp_path / "t01.toml"

    def sim_role(position: str) -> str:
        return re.sub(r"^(seat|board) (\d+)$", r"\1\2", position)

    async with PtyDevice(table, port, clock=SystemClock()):
        cli = await tablectl("table", "calibrate", "--device", str(port), "--out", str(out),
                             "--seats", "10", "--timeout", "10")
        prompt = r"place a card on (.+) \(or type 'skip'\)"
        m = await cli.expect(prompt)                  # asked at once, the reader still opening
        for _ in range(1000):                         # connected, and the snapshot queued first
            if any(isinstance(c, SnapshotReq) for c in table.commands):
                break
            await asyncio.sleep(0.01)
        seat1 = table.antenna("seat1")
        while True:
            position = m.group(1)
            if position == "burn":
                await cli.send("skip")
                break
            if position == "seat 2":                  # the card put back on seat 1: refused
                table.place(seat1, card)
                await cli.expect(f"refused: antenna {seat1} is already seat 1")
                table.remove(seat1, card)
            antenna = table.antenna(sim_role(position))
            table.place(antenna, card)
            await cli.expect(f"{position} = antenna {antenna}$")
            table.remove(antenna, card)
            m = await cli.expect(prompt)
        code, _, err = await cli.finish()
    assert code == 0, err
    expected = {i: Location.parse(role_text(r)) for i, r in enumerate(roles)
                if r.kind != "burn"}
    assert load_antenna_map(out) == expected
    assert "no antenna for burn" in "\n".join(cli.lines)


def role_text(role: AntennaRole) -> str:
    """The calibration-map text of a simulator role (``seat3`` -> ``seat 3``)."""
    return role.kind if role.kind in ("muck", "burn") else f"{role.kind} {role.number}"


@pytest.mark.parametrize("command", [
    ("deck", "verify", str(DECKS / "demo-red.csv")),
    ("deck", "register", "--out", "{tmp}/new.csv"),
    ("table", "calibrate", "--out", "{tmp}/map.toml"),
])
async def test_a_device_that_cannot_be_opened_is_bad_usage_at_once(
        tablectl: Callable[..., Awaitable[Cli]], tmp_path: Path,
        command: tuple[str, ...]) -> None:
    # a typo in --device used to wait the whole timeout, then report 52 cards missing
    args = [a.format(tmp=tmp_path) for a in command]
    cli = await tablectl(*args, "--device", str(tmp_path / "nonexist"), "--timeout", "60")
    code, _, err = await cli.finish(within=30)
    assert code == 2, err
    assert err.strip() == (f"tablectl {command[0]} {command[1]}: cannot open the device "
                           f"{tmp_path / 'nonexist'}: No such file or directory")
