"""Seven card stud when the stub cannot give every remaining player a seventh-street card.

Eight players take 8 x 6 cards and 3 burns to sixth street: 51 of the 52. Rule books differ
on what happens next (``RuleSet.stud_short_deck``):

* ``community`` - one community card for everybody, burned for only if a card is left over
  for it (most casinos);
* ``stub-with-burns`` - the last card of the stub is shuffled with the burn cards and the deal
  goes on from them; a community card only if even that is not enough (Robert's Rules of
  Poker);
* ``reshuffle`` - the burns and the discards (folded hands) are reshuffled and dealt; a
  community card, after a burn, only if even that is not enough (PokerKit).

The engine does not shuffle anything (the dealer does); it decides which cards come back
into play, so that its duplicate-card check lets each of them be dealt once more.

>>> plan = plan_seventh(StudShortDeck.RESHUFFLE, stub=1, players=7, burns=4, discards=6)
>>> plan.community, plan.burn, plan.recycle
(False, True, True)
>>> plan_seventh(StudShortDeck.COMMUNITY, stub=1, players=8, burns=4, discards=0).burn
False
"""

from __future__ import annotations

from dataclasses import dataclass

from tablectl.game.rules import StudShortDeck


@dataclass(frozen=True, slots=True)
class SeventhStreet:
    """How seventh street is dealt.

    Attributes:
        community: one community card instead of a down card each.
        burn: a card is burned first.
        recycle: the burn cards (this street's too, once burned) and, under ``reshuffle``, the
            discards came back into play.
        discards: the folded hands' cards are among the recycled ones.
    """

    community: bool
    burn: bool
    recycle: bool = False
    discards: bool = False


NORMAL = SeventhStreet(community=False, burn=True)


def plan_seventh(rule: StudShortDeck, *, stub: int, players: int, burns: int, discards: int,
                 burning: bool = True) -> SeventhStreet:
    """Seventh street's deal.

    Args:
        rule: the house rule.
        stub: cards never dealt, burned or shown so far.
        players: live players, each owed a card.
        burns: burn cards so far.
        discards: cards of folded hands.
        burning: the house burns before each street (``RuleSet.burns``).
    """
    burn = 1 if burning else 0
    if stub - burn >= players:
        return SeventhStreet(community=False, burn=bool(burn))
    community = SeventhStreet(community=True, burn=bool(burn) and stub >= 2)
    if rule is StudShortDeck.STUB_WITH_BURNS:
        # the stub down to its last card, then the last card and every burn (this one too)
        if stub + burns >= players:
            return SeventhStreet(community=False, burn=bool(burn), recycle=True)
        return community
    if rule is StudShortDeck.RESHUFFLE:
        if stub + burns + discards >= players:
            return SeventhStreet(community=False, burn=bool(burn), recycle=True, discards=True)
        return SeventhStreet(community=True, burn=bool(burn), recycle=True, discards=True)
    return community
