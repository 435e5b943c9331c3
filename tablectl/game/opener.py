"""Who opens a stud betting round: the bring-in on third street, the best showing hand later.

Third street: the lowest up card brings in (razz: the highest; stud hi-lo by the house rule
[bring_in_card, bring_in_ace_low]); an unknown up card never does. Later streets: the best
showing hand acts first (razz: the lowest), ties broken by seat order from the dealer's left
or by the suit of the top card [stud_opener_tie]. Button games' openers need no ranking:
``game/streets.py`` names them and ``game/betting.py`` finds the seat.
"""

from __future__ import annotations

from collections.abc import Sequence

from tablectl.game.evaluate import stud_up_card_key
from tablectl.game.player import Player
from tablectl.game.rules import BringInCard, RuleSet, StudOpenerTie
from tablectl.game.streets import StreetPlan


def stud_opener(players: Sequence[Player], plan: StreetPlan, rules: RuleSet, *,
                bring_in: bool) -> int:
    """The index of the live player who opens: the bring-in card when ``bring_in`` (third
    street), else the best showing hand; ties go to the first in position order."""
    live = [i for i, p in enumerate(players) if not p.folded]
    if bring_in:
        return min(live, key=lambda i: (_bring_in_key(players[i], plan, rules), i))
    tie_by_suit = rules.stud_opener_tie is StudOpenerTie.HIGH_CARD_BY_SUIT
    return min(live, key=lambda i: (showing_key(players[i], plan.low, tie_by_suit), i))


def _bring_in_key(p: Player, plan: StreetPlan, rules: RuleSet) -> tuple[int, int]:
    """Sort key of a third-street up card: the SMALLEST key brings in."""
    card = p.cards[2]
    if card is None:  # unknown up card: never the bring-in
        return (99, 99)
    if plan.bring_in_by_rule:
        if rules.bring_in_card is BringInCard.HIGHEST:
            key = stud_up_card_key(card, low=False)
            return (-key[0], -key[1])
        if rules.bring_in_ace_low:
            return (card.rank.low_value, card.suit.order)
    return stud_up_card_key(card, low=plan.low)


def showing_key(p: Player, low: bool, tie_by_suit: bool) -> tuple[object, ...]:
    """Sort key of a stud player's up cards: the SMALLEST key acts first (``low``: razz)."""
    ups = [c for c, u in zip(p.cards, p.up, strict=True) if u and c is not None]
    counts: dict[int, int] = {}
    for c in ups:
        value = c.rank.low_value if low else c.rank.high_value
        counts[value] = counts.get(value, 0) + 1
    groups = sorted(((n, v) for v, n in counts.items()), reverse=True)
    shape = tuple(n for n, _ in groups)
    ranks = tuple(v for _, v in groups)
    if low:  # lowest hand first: fewer pairs, then lower ranks
        return (shape, ranks)
    suit = 0
    if tie_by_suit and ups:
        top = max(ups, key=lambda c: (counts[c.rank.high_value], c.rank.high_value,
                                      c.suit.order))
        suit = top.suit.order
    return (tuple(-n for n in shape), tuple(-v for v in ranks), -suit)
