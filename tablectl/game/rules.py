"""House rules as data: :class:`RuleSet`, :class:`Stakes` and the named :data:`PRESETS`.

Nothing in the engine asks *which* preset is in force; it only reads fields of the
:class:`RuleSet` it was given. ``docs/rules.md`` lists every rule of the house rule texts with
the field that implements it and the test that proves it.

>>> PRESETS[RulesPreset.PHH].raise_cap.bets
4
>>> pacific = Stakes.from_limits(200, 400, PRESETS[RulesPreset.PACIFIC_OMAHA], dollar=100)
>>> pacific.small_blind, pacific.big_blind
(100, 400)
>>> Stakes.from_limits(300, 600, PRESETS[RulesPreset.PACIFIC_OMAHA], dollar=100).small_blind
100
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from typing import Final

from tablectl.domain.games import BettingStructure, GameKind, RulesPreset


class Reopen(StrEnum):
    """When an all-in raise that is smaller than a full raise reopens the betting."""

    NEVER = "never"
    """Only full raises reopen; several short all-ins never add up."""
    FULL_BET = "full-bet"
    """A short all-in reopens once the raises since a player acted add up to a full raise."""
    HALF_BET = "half-bet"
    """Fixed limit: an all-in raise of at least half a bet counts as a full raise."""


class LimitRaiseAfterShortAllIn(StrEnum):
    """Fixed limit: what the next raise is "to" after a short all-in raise."""

    COMPLETE = "complete"
    """The next raise completes the short raise: last full level + one bet."""
    ON_TOP = "on-top"
    """One full bet on top of the all-in amount (PokerKit)."""


class OddChip(StrEnum):
    """Who gets chips that cannot be split evenly (each odd unit in turn)."""

    LEFT_OF_BUTTON = "left-of-button"
    """One unit each to the tied winners in seat order from the button's left."""
    FIRST_WINNER_ALL = "first-winner-all"
    """The whole remainder to the first tied winner from the button's left (PokerKit)."""
    HIGH_CARD_BY_SUIT = "high-card-by-suit"
    """One unit each, winners ordered by the highest card of their five (rank, then suit)."""


class FirstDealt(StrEnum):
    """Which seat gets the first card of a button game's deal."""

    LEFT_OF_BUTTON = "left-of-button"
    LEFT_OF_BIG_BLIND = "left-of-big-blind"


class StudOpenerTie(StrEnum):
    """Later stud streets: how equal showing hands decide who acts first."""

    FIRST_FROM_DEALER = "first-from-dealer"
    """The tied hand nearest the dealer's left acts (PokerKit, WSOP stud/8 and razz)."""
    HIGH_CARD_BY_SUIT = "high-card-by-suit"
    """The tie is broken by the suit of the highest showing card."""


class BringInCard(StrEnum):
    """Which third-street up card must bring in."""

    LOWEST = "lowest"
    HIGHEST = "highest"


class PartialBringIn(StrEnum):
    """Stud: the bring-in seat cannot cover the bring-in."""

    CALL_SHORT = "call-short"
    """Others may just call the short amount (PokerKit)."""
    FULL_BRING_IN = "full-bring-in"
    """Others must enter for at least the full bring-in (WSOP live rule 217)."""


class ShortBigBlind(StrEnum):
    """A big blind (or straddle) all-in for less than the blind: what the others must call."""

    FULL_BLIND = "full-blind"
    """The full blind, as if it had been posted (TDA, most casinos)."""
    POSTED = "posted"
    """Only what was actually posted; the minimum raise is counted from there (PHH, PokerKit)."""


class StudShortDeck(StrEnum):
    """Seven card stud: the stub cannot give every remaining player a seventh-street card."""

    COMMUNITY = "community"
    """One community card for everybody (most casinos); burned for only if a card is left."""
    STUB_WITH_BURNS = "stub-with-burns"
    """The last card of the stub is shuffled with the burn cards and dealt from; a community
    card only if even that is not enough (Robert's Rules of Poker)."""
    RESHUFFLE = "reshuffle"
    """The burns and the discards of folded hands are reshuffled and dealt from; a community
    card only if even that is not enough (PokerKit)."""


class RunOddChip(StrEnum):
    """Running it more than once: who gets the chips of a pot that do not split evenly
    across the runs."""

    ONE_EACH = "one-each"
    """One unit each to the runs in order, the first run first."""
    FIRST_RUN = "first-run"
    """The whole remainder to the first run (PokerKit)."""


BOARD_GAMES: Final = frozenset({GameKind.HOLDEM, GameKind.HOLDEM_HI_LO, GameKind.OMAHA,
                                GameKind.OMAHA_HI_LO})
"""The games whose hands may be run more than once (one shared board; stud is not)."""


@dataclass(frozen=True, slots=True)
class RunItTwice:
    """Whether an all-in hand may be run more than once, and how its pots are split.

    When every live hand but at most one is all-in and no betting remains, the players may
    agree to deal the rest of the board ``2`` or more times (the dealer enters the count, a
    ``RunsIn``); each run deals its own remaining board cards, and every pot is split into
    equal parts, one per run, each part settled on its run's board (hi-lo per run).

    Attributes:
        max_runs: the most runs the house allows; ``1``: the hand is always run once.
        structures: the betting structures in which it is allowed.
        games: the games in which it is allowed (board games only: stud is never run twice).
        odd_chip: who gets a pot's chips that do not split evenly across the runs.
    """

    max_runs: int = 1
    structures: frozenset[BettingStructure] = frozenset(BettingStructure)
    games: frozenset[GameKind] = BOARD_GAMES
    odd_chip: RunOddChip = RunOddChip.ONE_EACH

    def __post_init__(self) -> None:
        if not 1 <= self.max_runs <= 3:
            raise ValueError(f"max_runs must be within 1..3: {self.max_runs}")
        if not self.games <= BOARD_GAMES:
            raise ValueError("only board games may be run more than once")

    def refusal(self, game: GameKind, structure: BettingStructure, count: int) -> str | None:
        """Why ``count`` runs are not allowed in this game and structure, or None.

        >>> RunItTwice(max_runs=2).refusal(GameKind.HOLDEM, BettingStructure.NO_LIMIT, 3)
        'the house runs a hand at most 2 times'
        """
        if count < 1:
            return "a hand is run at least once"
        if count == 1:
            return None
        if self.max_runs == 1:
            return "the house does not run hands more than once"
        if game not in self.games:
            return f"{game.value} hands are not run more than once"
        if structure not in self.structures:
            return f"{structure.value} hands are not run more than once here"
        if count > self.max_runs:
            return f"the house runs a hand at most {self.max_runs} times"
        return None


class RakeScope(StrEnum):
    """Where the rake percentage and cap apply."""

    PER_HAND = "per-hand"
    PER_POT = "per-pot"


@dataclass(frozen=True, slots=True)
class RaiseCap:
    """Fixed-limit cap on bets per betting round.

    Attributes:
        bets: how many bets a round may reach, counting the opening bet (``4`` is "a bet and
            three raises"); ``None``: no cap.
        blind_counts: pre-flop, the big blind (and a straddle) count as bets.
        completion_counts: stud, the completion of a bring-in counts as the first bet.
        lifted_heads_up: no cap in a round that starts with only two players who can bet.
        short_all_in_counts: an all-in bet or raise smaller than a full one counts too.
    """

    bets: int | None = 4
    blind_counts: bool = True
    completion_counts: bool = True
    lifted_heads_up: bool = False
    short_all_in_counts: bool = False


@dataclass(frozen=True, slots=True)
class Rake:
    """The house's cut of each pot.

    Attributes:
        percent: fraction of the pot (``Fraction(1, 20)`` = 5 %); 0 disables the rake.
        cap: most the house takes (per hand or per pot, see ``scope``); ``None``: no cap.
        scope: cap and percentage per hand or per pot.
        unit: the rake is rounded down to a multiple of this many chip units.
        no_flop_no_drop: no rake when the hand ends in its first betting round.
    """

    percent: Fraction = Fraction(0)
    cap: int | None = None
    scope: RakeScope = RakeScope.PER_HAND
    unit: int = 1
    no_flop_no_drop: bool = True

    def __post_init__(self) -> None:
        if not 0 <= self.percent < 1:
            raise ValueError(f"rake percent must be in [0, 1): {self.percent}")
        if self.unit < 1 or (self.cap is not None and self.cap < 0):
            raise ValueError("rake unit must be >= 1 and cap >= 0")

    def take(self, amount: int, already: int = 0) -> int:
        """The rake on ``amount`` chips, given ``already`` raked this hand (per-hand cap).

        >>> Rake(Fraction(1, 10), cap=5, unit=1).take(47)
        4
        >>> Rake(Fraction(1, 10), cap=5, unit=1).take(100, already=3)
        2
        """
        if not self.percent:
            return 0
        raw = int(amount * self.percent) // self.unit * self.unit
        if self.cap is not None:
            limit = self.cap - already if self.scope is RakeScope.PER_HAND else self.cap
            raw = min(raw, max(limit, 0))
        return raw


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Every house rule the engine knows, as data. Build variants with ``dataclasses.replace``.

    Attributes:
        name: label for logs and docs.
        raise_cap: fixed-limit cap on bets per round.
        short_all_in_reopens: when a short all-in raise reopens the betting.
        first_raise_reopens: the first bet or raise of a round reopens the betting even when
            it is a short all-in (PokerKit counts raise sizes from zero each round, ignoring
            the big blind and the bring-in).
        limit_raise_after_short_all_in: fixed limit, what the next raise is "to".
        raise_capped_at_effective_stack: a bet or raise may be "to" the most any opponent can
            match, even if that is less than the minimum (PHH files written that way).
        odd_chip: odd chips in button games.
        stud_odd_chip: odd chips in stud games.
        merge_equal_pots: at showdown, hands that win nothing are dropped and pots left with
            the same contenders are merged before splitting (PokerKit), so their odd chips
            combine.
        split_unit: pots are split in multiples of this many chip units (smallest chip in play).
        partial_bring_in: stud, a bring-in seat all-in for less.
        bring_in_card: stud hi-lo, which up card brings in (its house text names both the
            lowest and the highest). Seven card stud always brings in with the lowest up card,
            aces high, and razz with the highest, aces low; ties go by suit (docs/rules.md I22).
        bring_in_ace_low: stud hi-lo, an ace counts low when choosing the bring-in.
        stud_opener_tie: later stud streets, ties between equal showing hands.
        rake: the rake.
        first_dealt: button games, who gets the first card.
        burns: a card is burned before each board card round and each stud street after third.
        small_blind_of_small_bet: fixed limit, the small blind is this fraction of the small bet
            (``None``: the stakes say).
        big_blind_is_big_bet: fixed limit, the big blind equals the big bet (not the small bet).
        blind_rounding: fixed limit with ``small_blind_of_small_bet``: the small blind is
            rounded down to whole "dollars" when the small bet is more than one dollar.
        showdown_by_input: the showdown waits for a ShowIn or MuckIn from every contender in
            showdown order; otherwise cards speak and the showdown is automatic.
        short_big_blind: a big blind all-in for less, what the others call and raise from.
        stud_short_deck: seven card stud, the stub is too short for seventh street.
        all_in_face_up: once a player is all-in and no more betting is possible, every live
            hand is turned face up before the rest is dealt (a contender with unread cards
            must show them then; none may muck).
        run_it: whether and how an all-in hand may be run more than once.
    """

    name: str = "casino"
    raise_cap: RaiseCap = field(default_factory=RaiseCap)
    short_all_in_reopens: Reopen = Reopen.FULL_BET
    first_raise_reopens: bool = False
    limit_raise_after_short_all_in: LimitRaiseAfterShortAllIn = LimitRaiseAfterShortAllIn.COMPLETE
    raise_capped_at_effective_stack: bool = False
    odd_chip: OddChip = OddChip.LEFT_OF_BUTTON
    stud_odd_chip: OddChip = OddChip.HIGH_CARD_BY_SUIT
    merge_equal_pots: bool = False
    split_unit: int = 1
    partial_bring_in: PartialBringIn = PartialBringIn.FULL_BRING_IN
    bring_in_card: BringInCard = BringInCard.LOWEST
    bring_in_ace_low: bool = False
    stud_opener_tie: StudOpenerTie = StudOpenerTie.FIRST_FROM_DEALER
    rake: Rake = field(default_factory=Rake)
    first_dealt: FirstDealt = FirstDealt.LEFT_OF_BUTTON
    burns: bool = True
    small_blind_of_small_bet: Fraction | None = None
    big_blind_is_big_bet: bool = False
    blind_rounding: bool = False
    showdown_by_input: bool = False
    short_big_blind: ShortBigBlind = ShortBigBlind.FULL_BLIND
    stud_short_deck: StudShortDeck = StudShortDeck.COMMUNITY
    all_in_face_up: bool = False
    run_it: RunItTwice = field(default_factory=RunItTwice)

    def __post_init__(self) -> None:
        if self.split_unit < 1:
            raise ValueError(f"split_unit must be >= 1: {self.split_unit}")
        if self.raise_cap.bets is not None and self.raise_cap.bets < 1:
            raise ValueError(f"raise cap must allow at least one bet: {self.raise_cap.bets}")


@dataclass(frozen=True, slots=True)
class Stakes:
    """Forced bets and bet sizes, in chip units.

    Attributes:
        small_blind: 0 for a one-blind game (the big blind is then the only blind).
        big_blind: the big blind of button games (0 in stud).
        straddle: a blind straddle by the seat left of the big blind (0: none); needs 3 seats.
        ante: posted by every seat.
        big_blind_ante: one ante for the whole table, posted by the big blind.
        bring_in: stud bring-in (0: the low card must open with check or bet).
        small_bet: fixed-limit bet of the first two rounds.
        big_bet: fixed-limit bet of the later rounds.
        min_bet: no-limit / pot-limit smallest bet (0: the big blind).
    """

    small_blind: int = 0
    big_blind: int = 0
    straddle: int = 0
    ante: int = 0
    big_blind_ante: int = 0
    bring_in: int = 0
    small_bet: int = 0
    big_bet: int = 0
    min_bet: int = 0

    def __post_init__(self) -> None:
        for name in self.__slots__:
            if getattr(self, name) < 0:
                raise ValueError(f"stake {name} must not be negative")

    @classmethod
    def from_limits(cls, small_bet: int, big_bet: int, rules: RuleSet, *, dollar: int = 1,
                    ante: int = 0) -> Stakes:
        """Fixed-limit button-game stakes with the blinds the rules derive from the limits.

        Args:
            small_bet: the lower limit.
            big_bet: the higher limit.
            rules: supplies ``small_blind_of_small_bet``, ``big_blind_is_big_bet`` and
                ``blind_rounding`` (without them: small blind = half the small bet rounded down,
                big blind = small bet).
            dollar: how many chip units make one dollar, for ``blind_rounding``.
            ante: ante per seat.
        """
        fraction = rules.small_blind_of_small_bet or Fraction(1, 2)
        small_blind = int(small_bet * fraction)
        if rules.blind_rounding and small_bet > dollar:
            small_blind = small_blind // dollar * dollar
        big_blind = big_bet if rules.big_blind_is_big_bet else small_bet
        return cls(small_blind=small_blind, big_blind=big_blind, ante=ante,
                   small_bet=small_bet, big_bet=big_bet)


CASINO: Final = RuleSet()
"""A general casino rule book: bet and three raises (big blind and completion count, no cap
heads-up), half-bet rule for limit all-ins, odd chips left of the button / high card by suit,
full bring-in, burns, first card left of the button."""

PRESETS: Final[Mapping[RulesPreset, RuleSet]] = {
    RulesPreset.CASINO: RuleSet(
        name="casino",
        raise_cap=RaiseCap(bets=4, blind_counts=True, completion_counts=True,
                           lifted_heads_up=True),
        short_all_in_reopens=Reopen.HALF_BET,
        all_in_face_up=True,
    ),
    RulesPreset.PACIFIC_OMAHA: RuleSet(
        name="pacific-omaha",
        raise_cap=RaiseCap(bets=4, blind_counts=True, completion_counts=True,
                           lifted_heads_up=True),
        short_all_in_reopens=Reopen.HALF_BET,
        first_dealt=FirstDealt.LEFT_OF_BIG_BLIND,
        burns=False,
        small_blind_of_small_bet=Fraction(1, 2),
        big_blind_is_big_bet=True,
        blind_rounding=True,
    ),
    RulesPreset.ISLAND: RuleSet(
        name="island",
        raise_cap=RaiseCap(bets=4, blind_counts=True, completion_counts=True,
                           lifted_heads_up=True),
        short_all_in_reopens=Reopen.HALF_BET,
        bring_in_card=BringInCard.LOWEST,
    ),
    RulesPreset.PHH: RuleSet(
        name="phh",
        raise_cap=RaiseCap(bets=4, blind_counts=False, completion_counts=True,
                           lifted_heads_up=False, short_all_in_counts=True),
        short_all_in_reopens=Reopen.FULL_BET,
        first_raise_reopens=True,
        limit_raise_after_short_all_in=LimitRaiseAfterShortAllIn.ON_TOP,
        raise_capped_at_effective_stack=True,
        odd_chip=OddChip.FIRST_WINNER_ALL,
        stud_odd_chip=OddChip.FIRST_WINNER_ALL,
        merge_equal_pots=True,
        partial_bring_in=PartialBringIn.CALL_SHORT,
        short_big_blind=ShortBigBlind.POSTED,
        stud_short_deck=StudShortDeck.RESHUFFLE,
        run_it=RunItTwice(max_runs=3, odd_chip=RunOddChip.FIRST_RUN),
    ),
}
"""The named rule sets (see ``docs/rules.md``)."""
