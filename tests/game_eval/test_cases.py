"""Hand-picked hands with the result reasoned out by hand (the reasoning is in each case)."""

from __future__ import annotations

import pytest

from tablectl.domain.cards import Card, parse_cards
from tablectl.game.evaluate import (
    HandCategory,
    HighHand,
    LowHand,
    best_high,
    best_low8,
    best_omaha_high,
    best_omaha_low8,
    best_razz,
    high_key,
    stud_up_card_key,
)


def _cards(hand: HighHand | LowHand) -> str:
    return " ".join(map(str, hand.cards))


# (cards, category, description, best five in describing order)
HIGH_CASES = [
    # Ace-high straight flush in spades; the 2d and 3c play no part.
    ("As Ks Qs Js Ts 2d 3c", HandCategory.STRAIGHT_FLUSH, "Royal flush", "As Ks Qs Js Ts"),
    # 9-8-7-6-5 and 8-7-6-5-4 of diamonds: the higher one; the Ac makes nothing better.
    (
        "9d 8d 7d 6d 5d 4d Ac",
        HandCategory.STRAIGHT_FLUSH,
        "Straight flush, nine high",
        "9d 8d 7d 6d 5d",
    ),
    # Steel wheel: A-2-3-4-5 suited, the ace plays low and is named last.
    (
        "5h 4h 3h 2h Ah Kd Kc",
        HandCategory.STRAIGHT_FLUSH,
        "Straight flush, five high",
        "5h 4h 3h 2h Ah",
    ),
    # Four queens, the ace is the best kicker.
    (
        "Qc Qd Qh Qs 2c 3d Ah",
        HandCategory.FOUR_OF_A_KIND,
        "Four of a kind, queens",
        "Qs Qh Qd Qc Ah",
    ),
    # Two sets: the higher one is the three, the lower one gives the pair (higher suits shown).
    (
        "Kh Kd Kc 4s 4h 4d 9c",
        HandCategory.FULL_HOUSE,
        "Full house, kings full of fours",
        "Kh Kd Kc 4s 4h",
    ),
    # Trips and two pairs: the higher pair fills.
    (
        "7c 7d 7h 9s 9c 2d 2h",
        HandCategory.FULL_HOUSE,
        "Full house, sevens full of nines",
        "7h 7d 7c 9s 9c",
    ),
    # Five hearts and a wheel: the flush wins.
    ("Ah 9h 7h 4h 2h 3c 5d", HandCategory.FLUSH, "Flush, ace high", "Ah 9h 7h 4h 2h"),
    # Six hearts: the top five play.
    ("Ah Kh 9h 7h 4h 2h Qs", HandCategory.FLUSH, "Flush, ace high", "Ah Kh 9h 7h 4h"),
    # The wheel: ace low, named as five high, ace last.
    ("Ah 2d 3c 4s 5h 9d Kc", HandCategory.STRAIGHT, "Straight, five high", "5h 4s 3c 2d Ah"),
    # 6-5-4-3-2 beats the wheel that is also there.
    ("6c 5h 4s 3d 2c Ah Kd", HandCategory.STRAIGHT, "Straight, six high", "6c 5h 4s 3d 2c"),
    # Broadway with a paired ten: one ten plays (the higher suit).
    ("Ac Kd Qh Js Td Ts 2c", HandCategory.STRAIGHT, "Straight, ace high", "Ac Kd Qh Js Ts"),
    (
        "7c 7d 7h Ks 9c 3d 2h",
        HandCategory.THREE_OF_A_KIND,
        "Three of a kind, sevens",
        "7h 7d 7c Ks 9c",
    ),
    # Three pairs: the third pair's six beats the lone deuce as kicker.
    ("Ah Ad 8c 8s 6d 6c 2h", HandCategory.TWO_PAIR, "Two pair, aces and eights", "Ah Ad 8s 8c 6d"),
    ("Jc Jd 9h 7s 4c 3d 2h", HandCategory.PAIR, "Pair of jacks", "Jd Jc 9h 7s 4c"),
    # Five cards only, nothing made.
    ("Ac Qd 9h 7s 4c", HandCategory.HIGH_CARD, "High card, ace", "Ac Qd 9h 7s 4c"),
    # Six cards: four to a straight (no 8), best five high cards.
    ("Ac Qd Th 7s 6c 5d", HandCategory.HIGH_CARD, "High card, ace", "Ac Qd Th 7s 6c"),
]


@pytest.mark.parametrize(("text", "category", "description", "five"), HIGH_CASES)
def test_high_cases(text: str, category: HandCategory, description: str, five: str) -> None:
    hand = best_high(parse_cards(text))
    assert (hand.category, hand.description, _cards(hand)) == (category, description, five)


def test_high_comparisons() -> None:
    def key(text: str) -> HighHand:
        return best_high(parse_cards(text))

    # Same two pair, kicker decides; the 2 vs 3 of the unused sixth/seventh cards does not.
    assert key("Ah Ad 8c 8s Kd 2c 3h") > key("As Ac 8d 8h Qd 2d 3c")
    assert key("Ah Ad 8c 8s Kd 2c 3h") == key("As Ac 8d 8h Kc 2d 4c")
    # Wheel loses to six-high straight; steel wheel beats four aces.
    assert key("Ah 2d 3c 4s 5h") < key("2h 3d 4c 5s 6h")
    assert key("Ah 2h 3h 4h 5h") > key("Ac Ad Ah As Kc")
    # Kings full of twos beat queens full of aces.
    assert key("Kc Kd Kh 2c 2d") > key("Qc Qd Qh Ac Ad")
    # Flush comparisons go card by card: A-K-9-7-3 beats A-K-9-7-2.
    assert key("Ah Kh 9h 7h 3h") > key("As Ks 9s 7s 2s")


# (hole, board, description, five)
OMAHA_HIGH_CASES = [
    # Four spades on board and one in the hand: no flush in Omaha (a hold'em flush).
    # Two hole + three board: 2c pairs the 2s; the As and two board cards are the kickers.
    ("As Kd Qc 2c", "Ts 8s 6s 4s 2s", "Pair of twos", "2s 2c As Ts 8s"),
    # Four kings on board: only three of them may play, with the aces in the hand.
    ("Ah Ad 3c 4c", "Kc Kd Kh Ks 2c", "Full house, kings full of aces", "Kh Kd Kc Ah Ad"),
    # Two hearts in hand, three on board: A-K-9-7-2 flush beats the trip kings (Kc Kd Kh).
    ("Ah 2h Kc Qd", "9h 7h 3h Kd Kh", "Flush, ace high", "Ah Kh 9h 7h 2h"),
    # Straight needs exactly two hole cards: 9-8 with board 7-6-5, not the 4-card run A-2-3-4.
    ("9c 8d Ah 2h", "7s 6c 5d Ks Qs", "Straight, nine high", "9c 8d 7s 6c 5d"),
    # Three board cards only (the flop): 2 + 3 still, trips with a pocket pair.
    ("Jc Jd 4h 5h", "Js 9c 2d", "Three of a kind, jacks", "Js Jd Jc 9c 2d"),
]


@pytest.mark.parametrize(("hole", "board", "description", "five"), OMAHA_HIGH_CASES)
def test_omaha_high_cases(hole: str, board: str, description: str, five: str) -> None:
    hand = best_omaha_high(parse_cards(hole), parse_cards(board))
    assert (hand.description, _cards(hand)) == (description, five)


def test_omaha_is_not_holdem() -> None:
    hole, board = parse_cards("As Kd Qc 2c"), parse_cards("Ts 8s 6s 4s 2s")
    holdem = best_high([hole[0], *board[:4], hole[3]])  # any five of these seven: a flush
    assert holdem.category is HandCategory.FLUSH
    assert best_omaha_high(hole, board) < holdem


LOW8_CASES = [
    ("Ah 2d 4c 6s 8h Kd Kc", "8-6-4-2-A low", "8h 6s 4c 2d Ah"),
    # Steel wheel: straights and flushes do not count against a low.
    ("5h 4h 3h 2h Ah Kd Kc", "5-4-3-2-A low", "5h 4h 3h 2h Ah"),
    # A pair of aces does not hurt: the other ace is simply not used.
    ("Ac Ad 2c 3d 4h 5s Kc", "5-4-3-2-A low", "5s 4h 3d 2c Ad"),
    # Six low ranks: the lowest five.
    ("8c 7d 6h 4s 3c 2d Kh", "7-6-4-3-2 low", "7d 6h 4s 3c 2d"),
]


@pytest.mark.parametrize(("text", "description", "five"), LOW8_CASES)
def test_low8_cases(text: str, description: str, five: str) -> None:
    hand = best_low8(parse_cards(text))
    assert hand is not None
    assert (hand.description, _cards(hand)) == (description, five)


@pytest.mark.parametrize(
    "text",
    [
        "Ah 2d 4c 9s Th Kd Kc",  # four low ranks only: a nine does not qualify
        "Ah Ad 2c 2d 3h 4s Kc",  # five low cards but four ranks
        "9h 9d Tc Js Qh",
    ],
)
def test_low8_none(text: str) -> None:
    assert best_low8(parse_cards(text)) is None


def test_low8_order() -> None:
    def low(text: str) -> LowHand:
        hand = best_low8(parse_cards(text))
        assert hand is not None
        return hand

    # The highest card decides first: 7-6-5-4-3 beats 8-4-3-2-A; then the next: 8-5 beats 8-6.
    assert low("7c 6d 5h 4s 3c") < low("8c 4d 3h 2s Ac")
    assert low("8c 5d 3h 2s Ac") < low("8d 6d 3c 2h Ad")
    assert low("8c 5d 3h 2s Ac") == low("8d 5c 3c 2h Ad")


OMAHA_LOW_CASES = [
    # The board gives three low ranks, the hand A-2.
    ("Ac 2d Kh Ks", "3c 4d 5h Qs 8c", "5-4-3-2-A low", "5h 4d 3c 2d Ac"),
    # Four low hole cards, but only two of them play: 7-6-5 from the board with A-2.
    ("Ac 2d 3h 4s", "5c 6d 7h Ks Qd", "7-6-5-2-A low", "7h 6d 5c 2d Ac"),
    # A-4 plays with the board's 7-3-2.
    ("Ac 4d Kh Ks", "2c 3h 7d Qs 9c", "7-4-3-2-A low", "7d 4d 3h 2c Ac"),
]


@pytest.mark.parametrize(("hole", "board", "description", "five"), OMAHA_LOW_CASES)
def test_omaha_low_cases(hole: str, board: str, description: str, five: str) -> None:
    hand = best_omaha_low8(parse_cards(hole), parse_cards(board))
    assert hand is not None
    assert (hand.description, _cards(hand)) == (description, five)


def test_omaha_low_counterfeited() -> None:
    # A-2 in hand, board 2-3-7: the board deuce counterfeits the hand's deuce, leaving only 3-7
    # as new low ranks: no low (a hold'em player would have 7-3-2-A plus any low card).
    assert best_omaha_low8(parse_cards("Ac 2d Kh Ks"), parse_cards("2c 3h 7d Qs 9c")) is None
    # Only two low board cards: no Omaha low, whatever the hand.
    assert best_omaha_low8(parse_cards("Ac 2d 3h 4s"), parse_cards("5c 6d Th Ks Qd")) is None
    # Only one low hole card.
    assert best_omaha_low8(parse_cards("Ac Kd Qh Js"), parse_cards("2c 3d 4h Ks 9d")) is None


RAZZ_CASES = [
    # Six different ranks: the lowest five, the king is out.
    ("Kc Qd 6s 3h 7d 2c 6h", "Q-7-6-3-2 low", "Qd 7d 6s 3h 2c"),
    ("Ac 2d 3h 4s 5c 5d 5h", "5-4-3-2-A low", "5h 4s 3h 2d Ac"),
    # Four ranks only (6 7 3 2 with the six four times): a pair of sixes is forced.
    ("6s 6h 6d 6c 7h 3d 2c", "Pair of sixes, 7-6-6-3-2", "7h 6s 6h 3d 2c"),
    # Four ranks, three of them paired: pair the lowest (twos), keep 7-6-3.
    ("6h 6d 7c 3s 2h 3d 2c", "Pair of twos, 7-6-3-2-2", "7c 6h 3s 2h 2c"),
    # Three ranks, all paired: two pair is forced; the lowest high pair wins: twos and aces
    # (2-2-A-A with a 3) beats threes and aces (3-3-A-A-2) and threes and twos.
    ("3s 3d 2h 2c Ah Ad 3c", "Two pair, twos and aces, 3-2-2-A-A", "3s 2h 2c Ah Ad"),
    # Five cards: trips, full house and quads have to play.
    ("Kc Kd Kh 7h 2c", "Three of a kind, kings, K-K-K-7-2", "Kh Kd Kc 7h 2c"),
    # Four kings and three sevens: sevens full of kings is lower than kings full of sevens.
    ("Kc Kd Kh Ks 7h 7d 7c", "Full house, sevens full of kings, K-K-7-7-7", "Ks Kh 7h 7d 7c"),
    ("Kc Kd Kh Ks 2c", "Four of a kind, kings, K-K-K-K-2", "Ks Kh Kd Kc 2c"),
]


@pytest.mark.parametrize(("text", "description", "five"), RAZZ_CASES)
def test_razz_cases(text: str, description: str, five: str) -> None:
    hand = best_razz(parse_cards(text))
    assert (hand.description, _cards(hand)) == (description, five)


def test_razz_order() -> None:
    def razz(text: str) -> LowHand:
        return best_razz(parse_cards(text))

    # Any unpaired hand beats any paired one, even K-Q-J-T-9 against A-A-2-3-4.
    assert razz("Kc Qd Jh Ts 9c") < razz("Ac Ad 2c 3d 4h")
    # Straights and flushes do not count: the wheel in one suit is the nuts.
    assert razz("Ah 2h 3h 4h 5h") < razz("Ac 2d 3h 4s 6c")
    # Aces are low: a pair of aces beats a pair of twos with the same kickers.
    assert razz("Ac Ad 5c 4d 3h") < razz("2c 2d 5h 4s 3c")
    # Pair first, then kickers from the highest down: 4-4-K-Q-J beats 5-5-3-2-A.
    assert razz("4c 4d Kh Qs Jc") < razz("5c 5d 3h 2s Ac")
    assert razz("8c 8d 5h 4s 2c") < razz("8h 8s 6h 2s Ac")


def test_stud_up_cards() -> None:
    def bring_in(text: str, *, low: bool) -> str:
        cards = parse_cards(text)
        return str(min(cards, key=lambda c: stud_up_card_key(c, low=low)))

    # Stud: lowest card, ties broken by suit, clubs lowest; aces are high.
    assert bring_in("2s 2c 9h", low=False) == "2c"
    assert bring_in("3d 3h Ac", low=False) == "3d"
    assert bring_in("Ac Kd", low=False) == "Kd"
    # Razz: highest card, aces low, ties broken by suit with spades the highest.
    assert bring_in("Kh Ks 7h", low=True) == "Ks"
    assert bring_in("Qc Qd 2s", low=True) == "Qd"
    assert bring_in("Ac 2c", low=True) == "2c"
    keys_high = sorted(stud_up_card_key(Card.parse(t), low=False) for t in ("As", "2c", "Tc"))
    assert keys_high == [(2, 0), (10, 0), (14, 3)]


def test_key_functions_agree_with_hands() -> None:
    cards = parse_cards("Kh Kd 4c 4s Kc 9h 2d")
    assert high_key(cards) == best_high(cards).key
