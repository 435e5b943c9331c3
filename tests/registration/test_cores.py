"""The sans-IO cores: DeckRegistration, DeckVerification, Calibration, load_card_order.
No device, no clock: values in, values (or a refusal that changes nothing) out."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablectl.controller.inputs import Location, LocationKind
from tablectl.domain.cards import FULL_DECK, Card
from tablectl.domain.deck import Deck
from tablectl.domain.errors import ConfigError
from tablectl.setup.calibrate import Calibration
from tablectl.setup.errors import CalibrationError, RegistrationError
from tablectl.setup.register import DeckRegistration, RegistrationMode, load_card_order
from tablectl.setup.verify import DeckVerification, Verdict
from tablectl.sources.base import load_antenna_map


def fresh_uids(n: int = 52, prefix: str = "E0") -> list[str]:
    """Seven-byte UIDs that no demo deck uses (demo UIDs start with 04)."""
    return [f"{prefix}{i:012X}" for i in range(1, n + 1)]


def state(reg: DeckRegistration) -> tuple[object, ...]:
    return reg.count, reg.expected, reg.pending, reg.assignments, reg.remaining


# --- registration -------------------------------------------------------------------------


def test_ordered_registration_gives_each_tag_the_next_card_of_full_deck_order() -> None:
    reg = DeckRegistration()
    uids = fresh_uids()
    for i, uid in enumerate(uids):
        assert reg.expected == FULL_DECK[i]
        done = reg.read(uid.lower())                    # any case: stored upper-case
        assert done is not None and done.card == FULL_DECK[i] and done.count == i + 1
    assert reg.complete and reg.expected is None
    deck = reg.deck("new-deck")
    assert dict(deck.cards_by_uid) == dict(zip(uids, FULL_DECK, strict=True))
    again = Deck.from_text(deck.to_text(), deck_id="new-deck")
    assert again.cards_by_uid == deck.cards_by_uid


def test_a_stated_order_is_followed() -> None:
    order = tuple(reversed(FULL_DECK))
    reg = DeckRegistration(order=order)
    uids = fresh_uids()
    for uid in uids:
        reg.read(uid)
    deck = reg.deck("d")
    assert deck.card_for(uids[0]) == Card.parse("As")
    assert deck.card_for(uids[-1]) == Card.parse("2c")


def test_a_repeated_tag_is_refused_and_changes_nothing() -> None:
    reg = DeckRegistration()
    reg.read("E0000000000001")
    before = state(reg)
    with pytest.raises(RegistrationError, match="already registered as 2c") as info:
        reg.read("e0:00:00:00:00:00:01")
    assert info.value.uid == "E0000000000001"
    assert state(reg) == before
    assert reg.expected == Card.parse("2d")


def test_a_tag_of_a_known_deck_is_refused_naming_the_deck(red_deck: Deck) -> None:
    reg = DeckRegistration(known=[red_deck])
    uid = red_deck.uid_for(Card.parse("Kh"))
    before = state(reg)
    with pytest.raises(RegistrationError, match=r"belongs to deck demo-red \(Kh\)"):
        reg.read(uid)
    assert state(reg) == before
    assert not reg.can_read(uid) and reg.can_read("E0000000000001")


def test_a_malformed_uid_is_refused() -> None:
    reg = DeckRegistration()
    with pytest.raises(RegistrationError, match="not a tag UID"):
        reg.read("xyz")
    assert reg.count == 0


def test_undo_takes_back_the_last_card_so_it_is_expected_again() -> None:
    reg = DeckRegistration()
    reg.read("E0000000000001")
    reg.read("E0000000000002")
    undone = reg.undo()
    assert undone.card == Card.parse("2d") and undone.uid == "E0000000000002"
    assert reg.expected == Card.parse("2d")
    assert reg.read("E0000000000002") is not None     # the tag is free again
    reg2 = DeckRegistration()
    with pytest.raises(RegistrationError, match="nothing to undo"):
        reg2.undo()


def test_the_deck_of_an_incomplete_registration_is_refused() -> None:
    reg = DeckRegistration()
    reg.read("E0000000000001")
    with pytest.raises(RegistrationError, match="only 1 of 52"):
        reg.deck("d")


def test_a_full_registration_refuses_a_53rd_tag() -> None:
    reg = DeckRegistration()
    for uid in fresh_uids():
        reg.read(uid)
    with pytest.raises(RegistrationError, match="all 52 cards are registered"):
        reg.read("E1000000000001")


def test_a_stated_order_must_be_the_52_cards() -> None:
    with pytest.raises(ValueError, match="52 cards once"):
        DeckRegistration(order=FULL_DECK[:51])
    with pytest.raises(ValueError, match="52 cards once"):
        DeckRegistration(order=(*FULL_DECK[:51], FULL_DECK[0]))


def test_confirm_mode_waits_for_the_dealer_to_name_each_card() -> None:
    reg = DeckRegistration(mode=RegistrationMode.CONFIRM)
    assert reg.expected is None
    assert reg.read("E0000000000001") is None
    assert reg.pending == "E0000000000001"
    before = state(reg)
    with pytest.raises(RegistrationError, match="waiting for its card"):
        reg.read("E0000000000002")                   # a second read while one waits
    with pytest.raises(RegistrationError, match="not a card: 'Zz'"):
        reg.confirm("Zz")
    assert state(reg) == before
    done = reg.confirm("Qh")
    assert done.card == Card.parse("Qh") and state(reg)[2] is None
    reg.read("E0000000000002")
    with pytest.raises(RegistrationError, match=r"Qh is already registered \(tag E0000000000001\)"):
        reg.confirm(Card.parse("Qh"))
    assert reg.pending == "E0000000000002"             # still waiting
    assert reg.reject() == "E0000000000002"
    assert state(reg)[2] is None and reg.count == 1
    with pytest.raises(RegistrationError, match="no tag is waiting"):
        reg.confirm("As")


def test_confirm_mode_registers_a_whole_deck_in_any_order() -> None:
    reg = DeckRegistration(mode=RegistrationMode.CONFIRM)
    uids = fresh_uids()
    shuffled = FULL_DECK[26:] + FULL_DECK[:26]
    for uid, card in zip(uids, shuffled, strict=True):
        reg.read(uid)
        reg.confirm(str(card))
    assert reg.deck("x").card_for(uids[0]) == FULL_DECK[26]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["undo", "known", "bad"]) | st.integers(0, 60),
                max_size=120))
def test_refused_operations_never_change_the_registration(ops: list[object]) -> None:
    known = Deck.from_pairs("other", [("AB00000000000001", Card.parse("As"))])
    reg = DeckRegistration(known=[known])
    pool = fresh_uids(61)
    for op in ops:
        before = state(reg)
        try:
            if op == "undo":
                reg.undo()
            elif op == "known":
                reg.read("AB00000000000001")
            elif op == "bad":
                reg.read("not-a-uid")
            else:
                assert isinstance(op, int)
                reg.read(pool[op])
        except RegistrationError:
            assert state(reg) == before
        registered = [a.uid for a in reg.assignments]
        assert len(set(registered)) == len(registered) == reg.count
        assert [a.card for a in reg.assignments] == list(FULL_DECK[:reg.count])


# --- card order files ---------------------------------------------------------------------


def test_load_card_order_reads_52_cards_in_any_layout(tmp_path: Path) -> None:
    path = tmp_path / "order.txt"
    spades_first = [c for c in FULL_DECK if c.suit.value == "s"] + \
                   [c for c in FULL_DECK if c.suit.value != "s"]
    text = "# spades first\n" + " ".join(map(str, spades_first[:13])) + "\n" + \
           ",".join(map(str, spades_first[13:])) + "  # the rest\n"
    path.write_text(text, encoding="utf-8")
    assert load_card_order(path) == tuple(spades_first)


def test_load_card_order_names_each_problem(tmp_path: Path) -> None:
    path = tmp_path / "order.txt"
    path.write_text("As Kd\nAs Xx\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_card_order(path)
    paths = [p for p, _ in info.value.problems]
    assert paths == ["line 2"]                          # the bad word spoils line 2
    path.write_text("As Kd\nAs\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="As is already on line 1"):
        load_card_order(path)
    path.write_text("As Kd\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="2 cards, expected 52; missing: 2c"):
        load_card_order(path)
    with pytest.raises(ConfigError, match="cannot read"):
        load_card_order(tmp_path / "absent.txt")


# --- verification -------------------------------------------------------------------------


def test_a_whole_deck_read_once_is_ok(blue_deck: Deck) -> None:
    ver = DeckVerification(blue_deck)
    for card in reversed(FULL_DECK):
        seen = ver.read(blue_deck.uid_for(card))
        assert seen.verdict is Verdict.OK and seen.card == card
    report = ver.report()
    assert ver.complete and report.ok and report.problems() == []
    assert len(report.present) == 52 and report.missing == ()


def test_missing_duplicate_foreign_and_unknown_are_each_reported(
        blue_deck: Deck, red_deck: Deck) -> None:
    ver = DeckVerification(blue_deck, others=[red_deck])
    missing = {Card.parse("7h"), Card.parse("Ac")}
    for card in FULL_DECK:
        if card not in missing:
            ver.read(blue_deck.uid_for(card))
    dup = ver.read(blue_deck.uid_for(Card.parse("Td")))
    assert dup.verdict is Verdict.DUPLICATE and dup.count == 2
    foreign = ver.read(red_deck.uid_for(Card.parse("Kh")).lower())
    assert foreign.verdict is Verdict.FOREIGN and foreign.deck_id == "demo-red"
    assert foreign.card == Card.parse("Kh")
    unknown = ver.read("E0000000000001")
    assert unknown.verdict is Verdict.UNKNOWN and unknown.card is None
    report = ver.report()
    assert not ver.complete and not report.ok
    assert set(report.missing) == missing and len(report.present) == 50
    assert report.duplicates == ((Card.parse("Td"), 2),)
    assert report.foreign == ((red_deck.uid_for(Card.parse("Kh")), "demo-red",
                               Card.parse("Kh")),)
    assert report.unknown == ("E0000000000001",)
    text = "\n".join(report.problems())
    assert "missing 2: 7h Ac" in text and "Td read 2 times" in text
    assert "Kh of deck demo-red" in text and "unknown tag E0000000000001" in text


def test_without_the_other_deck_a_foreign_tag_is_unknown(blue_deck: Deck,
                                                         red_deck: Deck) -> None:
    ver = DeckVerification(blue_deck)
    assert ver.read(red_deck.uid_for(Card.parse("2c"))).verdict is Verdict.UNKNOWN
    assert ver.read("garbage!").verdict is Verdict.UNKNOWN


# --- calibration --------------------------------------------------------------------------


def test_standard_positions_of_a_ten_seat_table() -> None:
    positions = Calibration.positions(10)
    assert [str(p) for p in positions] == (
        [f"seat {n}" for n in range(1, 11)] + [f"board {n}" for n in range(1, 6)]
        + ["muck", "burn"])
    two = Calibration.positions(2, slots=2, board=0, muck=False, burn=False)
    assert [str(p) for p in two] == ["seat 1 slot 1", "seat 1 slot 2", "seat 2 slot 1",
                                     "seat 2 slot 2"]
    with pytest.raises(ValueError, match="slots"):
        Calibration.positions(2, slots=0)
    with pytest.raises(ValueError, match="twice"):
        Calibration([Location(LocationKind.MUCK), Location(LocationKind.MUCK)])


def test_calibration_records_the_antenna_of_each_position_and_refuses_a_reused_one(
        tmp_path: Path) -> None:
    cal = Calibration(Calibration.positions(3, board=1))   # seat 1-3, board 1, muck, burn
    antennas = [12, 4, 9, 0, 7]
    for antenna in antennas:
        cal.read(antenna)
    assert cal.current == Location(LocationKind.BURN)
    with pytest.raises(CalibrationError, match="antenna 4 is already seat 2"):
        cal.read(4)
    assert cal.current == Location(LocationKind.BURN) and cal.progress == (5, 6)
    with pytest.raises(CalibrationError, match=r"0\.\.255"):
        cal.read(300)
    assert cal.skip() == Location(LocationKind.BURN)
    assert cal.complete and cal.skipped == (Location(LocationKind.BURN),)
    with pytest.raises(CalibrationError, match="complete"):
        cal.read(3)
    expected = {12: "seat 1", 4: "seat 2", 9: "seat 3", 0: "board 1", 7: "muck"}
    assert {a: str(loc) for a, loc in cal.antenna_map().items()} == expected
    path = tmp_path / "map.toml"
    path.write_text(cal.to_toml(title="test"), encoding="utf-8")
    assert {a: str(loc) for a, loc in load_antenna_map(path).items()} == expected
    assert "# no antenna: burn" in path.read_text(encoding="utf-8")


def test_the_example_ten_seat_map_matches_the_standard_positions() -> None:
    path = Path(__file__).resolve().parents[2] / "config" / "antennas" / "ten-seat.toml"
    roles = load_antenna_map(path)
    assert [str(roles[a]) for a in sorted(roles)] == [
        str(p) for p in Calibration.positions(10)]
    assert sorted(roles) == list(range(17))
