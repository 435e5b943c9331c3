"""Seven card stud with too few cards for seventh street (``stud_short_deck``, one test per
setting): a community card, the last stub card shuffled with the burns, or the burns and
discards reshuffled; the duplicate-card check lets exactly the recycled cards be dealt again."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tablectl.domain.cards import Card
from tablectl.domain.games import GameKind
from tablectl.game import (
    PRESETS,
    Act,
    ActionKind,
    Burn,
    CardIn,
    CardsRecycled,
    DealBoard,
    DealDown,
    DuplicateCard,
    Hand,
    StudShortDeck,
)
from tests.game.helpers import CASINO, act, start

DECK = [Card.parse(f"{r}{s}") for r in "23456789TJQKA" for s in "cdhs"]


def _to_seventh(setting: StudShortDeck, folds: int) -> tuple[Hand, list[Card]]:
    """Eight players; ``folds`` of them fold on third street, the rest check and call to
    seventh street. Returns the hand and the cards left in the stub."""
    hand = start(GameKind.STUD, stacks=(100,) * 8, button=8,
                 rules=replace(CASINO, stud_short_deck=setting))
    deck = list(DECK)
    folded = 0
    while hand.street is None or hand.street.value != "seventh" or isinstance(
            hand.expected(), Act):
        exp = hand.expected()
        if isinstance(exp, Act):
            legal = exp.legal
            if folded < folds and ActionKind.FOLD in legal.kinds:
                act(hand, legal.seat, "fold")
                folded += 1
                continue
            kind = next(k for k in ("bring-in", "check", "call") if ActionKind(k) in legal.kinds)
            act(hand, legal.seat, kind)
        else:
            hand.apply(CardIn(deck.pop(0)))
    return hand, deck


def _burned(hand: Hand) -> list[Card]:
    return [c for c in hand.view().burns if c is not None]


def _folded_cards(hand: Hand) -> list[Card]:
    return [c.card for s in hand.view().seats if s.folded for c in s.cards if c.card]


def test_community_card() -> None:
    hand, stub = _to_seventh(StudShortDeck.COMMUNITY, folds=1)
    assert len(stub) == 4 and isinstance(hand.expected(), Burn)   # 3 left after it: < 7
    hand.apply(CardIn(stub.pop(0)))
    assert isinstance(hand.expected(), DealBoard)
    assert not any(isinstance(e, CardsRecycled) for e in hand.events)
    with pytest.raises(DuplicateCard):
        hand.apply(CardIn(_burned(hand)[0]))


def test_last_stub_card_is_shuffled_with_the_burns() -> None:
    hand, stub = _to_seventh(StudShortDeck.STUB_WITH_BURNS, folds=1)
    burns = _burned(hand)
    assert len(stub) == 4 and len(burns) == 3          # 4 + 3 burns >= 7 players
    recycled = [e for e in hand.events if isinstance(e, CardsRecycled)]
    assert recycled and set(recycled[0].cards) == set(burns)
    hand.apply(CardIn(stub.pop(0)))                    # the seventh-street burn
    burns.append(_burned(hand)[-1])
    for card in stub:                                  # the stub, then the burns
        assert isinstance(hand.expected(), DealDown)
        hand.apply(CardIn(card))
    assert hand.back_in_play(burns[0])
    with pytest.raises(DuplicateCard):                 # a discard stays out of play
        hand.apply(CardIn(_folded_cards(hand)[0]))
    for card in burns[:4]:
        hand.apply(CardIn(card))
    assert isinstance(hand.expected(), Act)
    assert not hand.back_in_play(burns[0])             # dealt again once, not twice


def test_burns_and_discards_are_reshuffled() -> None:
    hand, stub = _to_seventh(StudShortDeck.RESHUFFLE, folds=1)
    hand.apply(CardIn(stub.pop(0)))                    # burn
    for card in stub:
        hand.apply(CardIn(card))
    discards = _folded_cards(hand)
    assert len(discards) == 3
    for card in discards + _burned(hand)[:1]:          # discards are back in play too
        assert isinstance(hand.expected(), DealDown)
        hand.apply(CardIn(card))
    assert not isinstance(hand.expected(), DealDown)


def test_reshuffle_still_short_deals_a_community_card_after_a_burn() -> None:
    hand, stub = _to_seventh(StudShortDeck.RESHUFFLE, folds=0)
    assert len(stub) == 1                              # 1 + 3 burns < 8 players
    assert isinstance(hand.expected(), Burn)
    hand.apply(CardIn(stub.pop()))
    assert isinstance(hand.expected(), DealBoard)
    hand.apply(CardIn(_burned(hand)[0]))               # the stub is empty: a recycled card
    assert len(hand.board) == 1


def test_presets_set_the_short_deck_rule() -> None:
    from tablectl.domain.games import RulesPreset
    assert PRESETS[RulesPreset.CASINO].stud_short_deck is StudShortDeck.COMMUNITY
    assert PRESETS[RulesPreset.PHH].stud_short_deck is StudShortDeck.RESHUFFLE
