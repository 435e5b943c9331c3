"""Deck files: 52 distinct cards, unique UIDs, and the line of every problem."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablectl.domain.cards import FULL_DECK, Card, CardParseError, parse_cards
from tablectl.domain.deck import Deck, normalise_uid
from tablectl.domain.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]
DECKS = sorted((ROOT / "config" / "decks").glob("*.csv"))


@pytest.mark.parametrize("path", DECKS, ids=lambda p: p.name)
def test_shipped_decks_are_complete(path: Path) -> None:
    deck = Deck.load(path)
    assert deck.is_complete and deck.deck_id == path.stem


def test_shipped_decks_share_no_uid() -> None:
    sets = [set(Deck.load(p).cards_by_uid) for p in DECKS]
    assert len(sets) >= 2
    assert not set.intersection(*sets)


def _lines() -> list[str]:
    return (ROOT / "config" / "decks" / "demo-red.csv").read_text().splitlines()


def test_duplicate_card_names_both_lines() -> None:
    lines = _lines()
    lines[5] = lines[5].split(",")[0] + "," + lines[2].split(",")[1]
    with pytest.raises(ConfigError) as info:
        Deck.from_text("\n".join(lines), deck_id="x")
    assert info.value.problems[0][0] == "line 6"
    assert "already registered on line 3" in info.value.problems[0][1]


def test_duplicate_uid_and_bad_card_and_missing_cards() -> None:
    lines = _lines()
    lines[4] = lines[3].split(",")[0] + ",Qx"
    lines[7] = lines[6].split(",")[0] + ",9z"
    lines[9] = lines[8]
    with pytest.raises(ConfigError) as info:
        Deck.from_text("\n".join(lines), deck_id="x")
    where = [p for p, _ in info.value.problems]
    assert where == ["line 5", "line 8", "line 10"]
    with pytest.raises(ConfigError, match="missing: 2c"):
        Deck.from_text("\n".join(_lines()[:2] + _lines()[3:]), deck_id="x")


def test_bad_uid_and_header() -> None:
    with pytest.raises(ConfigError, match="line 1: expected the header"):
        Deck.from_text("04AA,As\n", deck_id="x", require_full=False)
    with pytest.raises(ConfigError, match="line 2: not a tag UID"):
        Deck.from_text("uid,card\nXYZ,As\n", deck_id="x", require_full=False)


def test_round_trip_and_lookup() -> None:
    deck = Deck.load(DECKS[0])
    again = Deck.from_text(deck.to_text(), deck_id=deck.deck_id)
    assert again == deck
    for card in FULL_DECK:
        assert deck.card_for(deck.uid_for(card).lower()) == card
    assert deck.card_for("00") is None and deck.card_for("not hex") is None


@given(st.sampled_from(FULL_DECK))
def test_card_text_round_trips(card: Card) -> None:
    assert Card.parse(str(card)) == card
    assert FULL_DECK[card.index] == card


@given(st.text(max_size=4))
def test_card_parse_never_crashes(text: str) -> None:
    try:
        card = Card.parse(text)
    except CardParseError:
        return
    assert str(card) in (text.strip().upper()[:-1] + text.strip()[-1:].lower()).replace("10", "T")


def test_ten_is_one_rank() -> None:
    assert [str(c) for c in parse_cards("10h Td")] == ["Th", "Td"]
    assert normalise_uid("04:a1:b2") == "04A1B2"
