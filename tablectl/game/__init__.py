"""The rules engine, sans-IO: variants, betting, pots, showdown, hand evaluation.

The public names are re-exported here; see :mod:`tablectl.game.hand` for the rules the hand
machine enforces and :mod:`tablectl.game.rules` for the house rules it reads.
"""

from tablectl.game.errors import CardOutOfTurn, DuplicateCard, HandSetupError, RuleViolation
from tablectl.game.hand import Hand
from tablectl.game.model import (
    Act,
    ActionIn,
    ActionKind,
    ActionTaken,
    Award,
    BetReturned,
    BoardDealt,
    Burn,
    Burned,
    CardDealt,
    CardIn,
    CardsRecycled,
    DealBoard,
    DealDown,
    DealHole,
    DealUp,
    Done,
    Expectation,
    ForcedBet,
    ForcedKind,
    Half,
    HandEnded,
    HandEvent,
    HandFaceUp,
    HandInput,
    HandView,
    LegalActions,
    MuckIn,
    PotAwarded,
    PotResult,
    PotView,
    RakeTaken,
    SeatCard,
    SeatView,
    Showdown,
    ShowdownHand,
    ShowIn,
    Street,
    StreetEnded,
    to_dict,
)
from tablectl.game.rules import (
    PRESETS,
    BringInCard,
    FirstDealt,
    LimitRaiseAfterShortAllIn,
    OddChip,
    PartialBringIn,
    RaiseCap,
    Rake,
    RakeScope,
    Reopen,
    RuleSet,
    ShortBigBlind,
    Stakes,
    StudOpenerTie,
    StudShortDeck,
)
from tablectl.game.start import HandStart, SeatSetup

__all__ = [
    "PRESETS", "Act", "ActionIn", "ActionKind", "ActionTaken", "Award", "BetReturned",
    "BoardDealt", "BringInCard", "Burn", "Burned", "CardDealt", "CardIn", "CardOutOfTurn",
    "CardsRecycled",
    "DealBoard", "DealDown", "DealHole", "DealUp", "Done", "DuplicateCard", "Expectation",
    "FirstDealt", "ForcedBet", "ForcedKind", "Half", "Hand", "HandEnded", "HandEvent",
    "HandFaceUp",
    "HandInput", "HandSetupError", "HandStart", "HandView", "LegalActions",
    "LimitRaiseAfterShortAllIn", "MuckIn", "OddChip", "PartialBringIn", "PotAwarded",
    "PotResult", "PotView", "RaiseCap", "Rake", "RakeScope", "RakeTaken", "Reopen", "RuleSet",
    "RuleViolation", "SeatCard", "SeatSetup", "SeatView", "ShortBigBlind", "ShowIn",
    "Showdown", "ShowdownHand", "Stakes", "Street", "StreetEnded", "StudOpenerTie",
    "StudShortDeck", "to_dict",
]
