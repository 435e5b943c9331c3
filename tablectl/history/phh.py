"""Poker Hand History (PHH) files: read, replay through the engine, write.

PHH (``uoftcprg/phh-std``) is TOML, one hand per ``.phh`` file (``.phhs``: tables ``[1]``,
``[2]``, ... with one hand each). Arrays are in *position order*: ``p1`` is the first seat left
of the button (stud: of the dealer) and the last player is the button, so a replay seats player
``pN`` in seat ``N`` with the button on the last seat. Fields starting with ``_`` are user
fields and are ignored. PHH does not record burns: a replay feeds the engine an unknown burn
card whenever it asks for one. A check the engine did not ask for is accepted only when it
changes nothing (:func:`is_no_op_check`: PokerKit still asks for it when every opponent is
all-in). Hole cards written ``??`` are unknown; if the player shows them
later (``pN sm ...``) the shown cards are used from the start.

Run it twice: PHH has no field for it; a hand run more than once is written, as PokerKit
0.7.7 writes it, with a second (and third) series of ``d db`` board deals after the river.
The replay counts the board cards of the file and, once no betting remains, runs the rest of
the board as many times as they fill (the house rule is the file's, not ``rules``': a replay
allows up to three runs); the export writes each run's streets in turn, the showdown's
``sm`` once, and the count in the user field ``_tablectl_runs``. A double-board hand is
written as PokerKit 0.7.7 writes one, each street's cards for both boards in one ``d db``
(board 1's, then board 2's); a file whose first board deal is six cards replays as one.

Variant codes read (and written): ``FT`` ``NT`` ``PO`` ``FO/8`` ``F7S`` ``F7S/8`` ``FR`` from
the standard, plus ``PT`` (pot-limit hold'em), ``FO`` (fixed-limit Omaha), ``FT/8`` (hold'em
hi-lo) and ``PO/8`` (pot-limit Omaha hi-lo), which the standard has no code for yet. The draw
games (``N2L1D``, ``F2L3D``, ``FB``) and short deck (``NS``) are not dealt here: their hands are
reported as skipped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Final

from tablectl.domain.cards import Card, CardParseError
from tablectl.domain.games import BettingStructure, GameKind
from tablectl.domain.textfile import TextFileError, read_toml_file
from tablectl.game import (
    Act,
    ActionIn,
    ActionKind,
    ActionTaken,
    BoardDealt,
    Burn,
    Burned,
    CardDealt,
    CardIn,
    DealBoard,
    DealDown,
    DealHole,
    DealUp,
    Hand,
    MuckIn,
    RuleSet,
    RuleViolation,
    RunItTwice,
    RunsIn,
    SeatSetup,
    Showdown,
    ShowdownHand,
    ShowIn,
    Stakes,
)
from tablectl.history.phh_amounts import (
    ACTION,
    PhhError,
    amount,
    arguments_fit,
    scale_of,
    short,
    short_text,
    unscale,
)

FL, PL, NL = BettingStructure.FIXED_LIMIT, BettingStructure.POT_LIMIT, BettingStructure.NO_LIMIT

VARIANTS: Final[Mapping[str, tuple[GameKind, BettingStructure]]] = {
    "FT": (GameKind.HOLDEM, FL),
    "NT": (GameKind.HOLDEM, NL),
    "PT": (GameKind.HOLDEM, PL),
    "FT/8": (GameKind.HOLDEM_HI_LO, FL),
    "FO": (GameKind.OMAHA, FL),
    "PO": (GameKind.OMAHA, PL),
    "FO/8": (GameKind.OMAHA_HI_LO, FL),
    "PO/8": (GameKind.OMAHA_HI_LO, PL),
    "F7S": (GameKind.STUD, FL),
    "F7S/8": (GameKind.STUD_HI_LO, FL),
    "FR": (GameKind.RAZZ, FL),
}
"""PHH variant code -> what we deal."""

CODES: Final[Mapping[tuple[GameKind, BettingStructure], str]] = {v: k for k, v in
                                                                 VARIANTS.items()}
NOT_DEALT: Final = frozenset({"NS", "N2L1D", "F2L3D", "FB"})
MAX_PHH_FILE: Final = 64 * 1024 * 1024
"""The largest PHH file read (a ``.phhs`` of many hands; one hand is a few KiB)."""
"""Standard variant codes of games tablectl does not deal."""


@dataclass(frozen=True, slots=True)
class PhhHand:
    """One hand of a PHH file, as read (amounts as written: ints or floats).

    Attributes:
        source: file name (``file.phhs#3`` for the third hand of a bulk file).
        fields: every field of the hand, user fields (``_...``) removed.
    """

    source: str
    fields: Mapping[str, object]

    @property
    def variant(self) -> str:
        """The variant code."""
        return str(self.fields.get("variant", ""))


@dataclass(frozen=True, slots=True)
class ReplayResult:
    """The outcome of one replay, as printed by ``tablectl phh replay``.

    ``finishing_stacks`` and ``expected`` are in position order and in the file's units.
    ``ok`` is True when the hand replayed to the end; ``match`` when it also matched the
    file's ``finishing_stacks`` (None if the file has none).
    """

    file: str
    variant: str
    ok: bool
    finishing_stacks: list[int | float] | None
    expected: list[int | float] | None
    match: bool | None
    error: str | None
    skipped: bool = False
    hand: Hand | None = field(default=None, compare=False, repr=False)

    def as_json(self) -> dict[str, object]:
        """The JSON line ``tablectl phh replay`` prints."""
        out: dict[str, object] = {
            "file": self.file, "variant": self.variant, "ok": self.ok,
            "finishing_stacks": self.finishing_stacks, "expected": self.expected,
            "match": self.match, "error": self.error,
        }
        if self.skipped:
            out["skipped"] = True
        return out


# --- reading -----------------------------------------------------------------------------


def iter_files(paths: Sequence[Path]) -> Iterator[Path]:
    """``.phh``/``.phhs`` files named or found (recursively, sorted) under directories."""
    for path in paths:
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*") if p.suffix in (".phh", ".phhs"))
        else:
            yield path


def load(path: Path) -> list[PhhHand]:
    """Read the hands of one ``.phh`` or ``.phhs`` file.

    Raises:
        PhhError: the file cannot be read or is not valid TOML.
    """
    try:
        data = read_toml_file(path, max_bytes=MAX_PHH_FILE)
    except TextFileError as exc:
        raise PhhError(exc.said("file"), str(path)) from None
    if path.suffix == ".phhs":
        return [PhhHand(f"{path}#{key}", _public(table)) for key, table in data.items()
                if isinstance(table, dict)]
    return [PhhHand(str(path), _public(data))]


def _public(data: Mapping[str, object]) -> dict[str, object]:
    return {k: v for k, v in data.items() if not k.startswith("_")}


def replay_paths(paths: Sequence[Path], rules: RuleSet) -> Iterator[ReplayResult]:
    """Replay every hand of every file under ``paths`` (see :func:`iter_files`).

    A file that cannot be read yields one failed result; nothing raises.
    """
    for path in iter_files(paths):
        try:
            hands = load(path)
        except PhhError as exc:
            yield ReplayResult(str(path), "", False, None, None, None, str(exc))
            continue
        for phh in hands:
            yield replay(phh, rules)


# --- replay --------------------------------------------------------------------------------


def _check_shown(where: str, seat: int, shown: Sequence[Card | None],
                 dealt: Sequence[Card | None]) -> None:
    """A seat shows the cards it was dealt: as many, and every one the file dealt face known
    among them (a file that shows other cards contradicts itself)."""
    if len(shown) != len(dealt) or any(c is not None and c not in shown for c in dealt):
        raise PhhError(f"{where}: p{seat} shows {_card_text(shown)} but was dealt "
                       f"{_card_text(dealt)}")


def stakes_of(fields: Mapping[str, object], game: GameKind, structure: BettingStructure,
              scale: int = 1) -> Stakes:
    """The engine's stakes for a PHH hand (position-ordered antes and blinds).

    Raises:
        PhhError: antes or blinds in a pattern the engine does not deal.
    """
    n = len(fields.get("starting_stacks", []))  # type: ignore[arg-type]
    antes = [amount(a, scale, "antes") for a in fields.get("antes", [0] * n)]  # type: ignore[attr-defined]
    ante = big_blind_ante = 0
    if antes and all(a == antes[0] for a in antes):
        ante = antes[0]
    elif len(antes) > 1 and antes[1] and not any(a for i, a in enumerate(antes) if i != 1):
        big_blind_ante = antes[1]
    elif any(antes):
        raise PhhError(f"antes {antes}: only equal antes or a big-blind ante are dealt")
    kw: dict[str, int] = {"ante": ante, "big_blind_ante": big_blind_ante}
    if structure is FL:
        kw["small_bet"] = amount(fields.get("small_bet", 0), scale, "small_bet")
        kw["big_bet"] = amount(fields.get("big_bet", 0), scale, "big_bet")
    else:
        kw["min_bet"] = amount(fields.get("min_bet", 0), scale, "min_bet")
    if game.is_stud:
        kw["bring_in"] = amount(fields.get("bring_in", 0), scale, "bring_in")
        return Stakes(**kw)
    blinds = [amount(b, scale, "blinds_or_straddles")
              for b in fields.get("blinds_or_straddles", [])]  # type: ignore[attr-defined]
    blinds += [0] * (3 - len(blinds))
    if any(blinds[3:]):
        raise PhhError(f"blinds {blinds}: more than one straddle is not dealt")
    if blinds[0] and not blinds[1]:
        kw["big_blind"] = blinds[0]          # one blind, left of the button
    else:
        kw["small_blind"], kw["big_blind"] = blinds[0], blinds[1]
    kw["straddle"] = blinds[2]
    return Stakes(**kw)


def _cards(text: str) -> list[Card | None]:
    out: list[Card | None] = []
    for i in range(0, len(text), 2):
        chunk = text[i:i + 2]
        out.append(None if chunk == "??" else Card.parse(chunk))
    if len(text) % 2:
        raise CardParseError(f"not a run of cards: {text!r}")
    return out


def replay(phh: PhhHand, rules: RuleSet) -> ReplayResult:
    """Play one PHH hand through the engine and compare its finishing stacks.

    Never raises for a bad hand: problems are reported in the result's ``error``.
    """
    variant = phh.variant
    expected_raw = phh.fields.get("finishing_stacks")
    expected = list(expected_raw) if isinstance(expected_raw, list) else None
    if "variant" not in phh.fields:
        return ReplayResult(phh.source, variant, False, None, expected, None,
                            "not a PHH hand: no variant" + (" (the file is empty)"
                                                             if not phh.fields else ""))
    if variant in NOT_DEALT or variant not in VARIANTS:
        reason = "not dealt by tablectl" if variant in NOT_DEALT else "unknown variant"
        return ReplayResult(phh.source, variant, False, None, expected, None,
                            f"{reason}: {variant!r}", skipped=True)
    try:
        hand, finishing = _replay(phh, rules)
    except (PhhError, RuleViolation, CardParseError, ValueError) as exc:
        return ReplayResult(phh.source, variant, False, None, expected, None, str(exc))
    try:
        match = None if expected is None else [float(x) for x in finishing] == [
            float(x) for x in expected]
    except (TypeError, ValueError):
        return ReplayResult(phh.source, variant, False, finishing, expected, None,
                            f"finishing_stacks: not amounts: {short(expected)}", hand=hand)
    return ReplayResult(phh.source, variant, True, finishing, expected, match, None, hand=hand)


def _replay(phh: PhhHand, rules: RuleSet) -> tuple[Hand, list[int | float]]:
    fields = phh.fields
    game, structure = VARIANTS[phh.variant]
    scale = scale_of(fields)
    raw_stacks = fields.get("starting_stacks")
    if not isinstance(raw_stacks, list) or len(raw_stacks) < 2:
        raise PhhError("starting_stacks must list at least two players")
    stacks = [amount(s, scale, "starting_stacks") for s in raw_stacks]
    names = [str(p) for p in fields.get("players", [])]  # type: ignore[attr-defined]
    n = len(stacks)
    seats = [SeatSetup(i + 1, stack, names[i] if i < len(names) else "")
             for i, stack in enumerate(stacks)]
    if rules.run_it.max_runs < 3 and not game.is_stud:   # the file says what they agreed
        rules = replace(rules, run_it=RunItTwice(max_runs=3, odd_chip=rules.run_it.odd_chip))
    actions = [str(a).split("#", 1)[0].strip() for a in fields.get("actions", [])]  # type: ignore[attr-defined]
    actions = [a for a in actions if a]
    parsed = []
    for text in actions:
        m = ACTION.match(text)
        if not m or not arguments_fit(m.group("verb"), m.group("arg"), m.group("arg2")):
            raise PhhError(f"cannot parse action {short(text)}")
        parsed.append((m.group("actor"), m.group("verb"), m.group("arg"), m.group("arg2")))
    deals = [len(_cards(arg)) for _, verb, arg, _ in parsed if verb == "db" and arg]
    boards = 2 if deals and deals[0] == 6 and not game.is_stud else 1   # a double board
    hand = Hand.start(game=game, structure=structure, rules=rules,
                      stakes=stakes_of(fields, game, structure, scale), seats=seats, button=n,
                      boards=boards)
    shown: dict[int, list[Card | None]] = {}
    for actor, verb, arg, _ in parsed:
        if verb == "sm" and arg and arg != "-" and actor != "d":
            cards = _cards(arg)
            if len(cards) >= len(shown.get(int(actor[1:]), [])):
                shown[int(actor[1:])] = cards
    holes: dict[int, list[Card | None]] = {i: [] for i in range(1, n + 1)}
    dealt: dict[int, int] = dict.fromkeys(range(1, n + 1), 0)
    board: list[Card | None] = []
    board_total = sum(len(_cards(arg)) for _, verb, arg, _ in parsed if verb == "db" and arg)

    def pump() -> None:
        while True:
            runs = runs_of(board_total, len(hand.board))
            if hand.runs == 1 and runs > 1 and hand.can(RunsIn(runs)):
                hand.apply(RunsIn(runs))
            exp = hand.expected()
            if isinstance(exp, Burn):
                hand.apply(CardIn(None, burn=True))
            elif isinstance(exp, DealHole | DealUp | DealDown) and holes[exp.seat]:
                card = holes[exp.seat].pop(0)
                k = dealt[exp.seat]
                known = shown.get(exp.seat, [])
                if card is None and k < len(known):
                    card = known[k]
                dealt[exp.seat] = k + 1
                hand.apply(CardIn(card, seat=exp.seat))
            elif isinstance(exp, DealBoard) and board:
                hand.apply(CardIn(board.pop(0), board=True))
            else:
                return

    for step, (actor, verb, arg, arg2) in enumerate(parsed, start=1):
        where = f"action {step} ({short_text(' '.join(x for x in (actor, verb, arg, arg2) if x))})"
        try:
            if actor == "d":
                if verb == "dh" and arg and arg2 and re.fullmatch(r"p[0-9]{1,3}", arg) \
                        and 1 <= int(arg[1:]) <= n:
                    holes[int(arg[1:])].extend(_cards(arg2))
                elif verb == "db" and arg:
                    board.extend(_cards(arg))
                else:
                    raise PhhError(f"{where}: unsupported dealer action")
                pump()
                continue
            seat = int(actor[1:])
            if verb == "sm":
                pump()
                if arg is not None and arg != "-":
                    _check_shown(where, seat, _cards(arg), hand.hole_cards(seat))
                exp = hand.expected()
                if isinstance(exp, Showdown) and exp.seat == seat:
                    if arg is None:
                        hand.apply(MuckIn(seat))
                    else:
                        full = tuple(c for c in shown.get(seat, []) if c is not None)
                        hand.apply(ShowIn(seat, full or None))
                continue
            pump()
            exp = hand.expected()
            if not isinstance(exp, Act):
                if verb == "cc" and is_no_op_check(hand, seat):
                    continue   # recorded by engines that ask for it; it changes nothing
                raise PhhError(f"{where}: the engine expects {_players(str(exp))}")
            legal = exp.legal
            if verb == "f":
                inp = ActionIn(seat, ActionKind.FOLD)
            elif verb == "cc":
                inp = ActionIn(seat, ActionKind.CHECK if ActionKind.CHECK in legal.kinds
                               else ActionKind.CALL)
            elif verb == "pb":
                inp = ActionIn(seat, ActionKind.BRING_IN)
            elif verb == "cbr" and arg is not None:
                kind = legal.bet_kind or ActionKind.RAISE
                inp = ActionIn(seat, kind, amount(arg, scale, where))
            else:
                raise PhhError(f"{where}: unsupported action")
            hand.apply(inp)
        except RuleViolation as exc:
            raise PhhError(f"{where}: {_players(exc.reason)}") from exc
    return _finish(hand, n, pump, scale)


def runs_of(board_cards: int, shared: int) -> int:
    """How many times a file's board of ``board_cards`` cards ran, ``shared`` of them dealt
    before the run-out (1 unless the rest of a five-card board repeats whole).

    >>> runs_of(5, 0), runs_of(10, 0), runs_of(15, 0), runs_of(7, 3), runs_of(6, 4)
    (1, 2, 3, 2, 2)
    """
    rest = 5 - shared
    if rest <= 0 or board_cards <= 5 or (board_cards - shared) % rest:
        return 1
    return (board_cards - shared) // rest


def _players(text: str) -> str:
    """An engine message in the file's names: the replay seats PHH player ``pN`` in seat N.

    >>> _players("seat 2 is to act, not seat 10")
    'p2 is to act, not p10'
    """
    return re.sub(r"\bseat (\d+)\b", r"p\1", text)


def is_no_op_check(hand: Hand, seat: int) -> bool:
    """Whether a check by ``seat`` now would change nothing, so the engine rightly asks for
    none: the seat is live with chips, every other live seat is all-in, and the seat's chips
    in the pot already cover each of theirs. Some engines (PokerKit among them) still ask
    for that check, and their histories record it.
    """
    seats = hand.view().seats
    me = next((s for s in seats if s.seat == seat), None)
    if me is None or me.folded or me.all_in:
        return False
    return all(s.all_in and s.committed <= me.committed for s in seats
               if s.seat != seat and not s.folded)


def _finish(hand: Hand, n: int, pump: object, scale: int) -> tuple[Hand, list[int | float]]:
    assert callable(pump)
    pump()
    exp = hand.expected()
    if isinstance(exp, Showdown):
        raise PhhError(f"hand ends at the showdown: p{exp.seat} never shows")
    if not hand.is_done:
        raise PhhError("the actions end before the hand does (engine expects "
                       f"{_players(str(exp))})")
    stacks = hand.final_stacks
    return hand, [unscale(stacks[i], scale) for i in range(1, n + 1)]


# --- writing ---------------------------------------------------------------------------------


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} as TOML")


def _card_text(cards: Sequence[Card | None]) -> str:
    return "".join("??" if c is None else str(c) for c in cards)


def to_phh(hand: Hand) -> str:
    """The hand as PHH text (TOML), in position order; burns and seats go in user fields.

    A finished hand carries ``finishing_stacks``; an unfinished one is written as far as it
    went. Hole cards are grouped per player and street, board cards per street, as the PHH
    style guide does; showdown hands are shown (``sm``) at the end.

    Raises:
        PhhError: the variant has no PHH code, or the hand is a bomb pot.
    """
    start = hand.start_args
    if start.bomb:   # PHH (and PokerKit) would replay it with a pre-flop betting round
        raise PhhError("a bomb pot has no PHH form (docs/rules.md, \"Bomb pots\")")
    code = CODES.get((start.game, start.structure))
    if code is None:  # pragma: no cover - every dealt variant has a code
        raise PhhError(f"no PHH code for {start.structure.value} {start.game.value}")
    order = hand.position_seats
    label = {seat: f"p{i + 1}" for i, seat in enumerate(order)}
    n = len(order)
    stakes = start.stakes
    stacks = {s.seat: s.stack for s in start.seats}
    names = {s.seat: s.name for s in start.seats}
    fields: dict[str, object] = {"variant": code}
    if stakes.big_blind_ante:
        antes = [0] * n
        antes[1 if n > 1 else 0] = stakes.big_blind_ante
        fields["ante_trimming_status"] = False
    else:
        antes = [stakes.ante] * n
        fields["ante_trimming_status"] = True
    fields["antes"] = antes
    if start.game.is_stud:
        fields["bring_in"] = stakes.bring_in
    else:
        blinds = [0] * n
        if stakes.small_blind:
            blinds[0], blinds[1] = stakes.small_blind, stakes.big_blind
        else:
            blinds[0] = stakes.big_blind
        if stakes.straddle and n >= 3:
            blinds[2] = stakes.straddle
        fields["blinds_or_straddles"] = blinds
    if start.structure is FL:
        fields["small_bet"], fields["big_bet"] = stakes.small_bet, stakes.big_bet
    else:
        fields["min_bet"] = stakes.min_bet or stakes.big_blind
    fields["starting_stacks"] = [stacks[s] for s in order]
    actions: list[str] = []
    pending: dict[int, list[Card | None]] = {}
    board: list[Card | None] = []
    burns: list[str] = []

    def flush() -> None:
        for seat in order:
            if pending.get(seat):
                actions.append(f"d dh {label[seat]} {_card_text(pending[seat])}")
        pending.clear()
        if board:
            actions.append(f"d db {_card_text(board)}")
            board.clear()

    for event in hand.events:
        match event:
            case CardDealt(seat=seat, card=card):
                if board:
                    flush()
                pending.setdefault(seat, []).append(card)
            case BoardDealt(card=card):
                if pending:
                    flush()
                board.append(card)
            case Burned(card=card):
                burns.append(_card_text([card]))
            case ActionTaken(seat=seat, kind=kind, to=to):
                flush()
                verb = {ActionKind.FOLD: "f", ActionKind.CHECK: "cc", ActionKind.CALL: "cc",
                        ActionKind.BRING_IN: "pb"}.get(kind)
                actions.append(f"{label[seat]} {verb}" if verb else f"{label[seat]} cbr {to}")
            case ShowdownHand(seat=seat, run=run):
                flush()
                if run <= 1:    # a hand run more than once shows down once
                    actions.append(f"{label[seat]} sm {_card_text(hand.hole_cards(seat))}")
            case _:
                flush()
    flush()
    fields["actions"] = actions
    if any(names.values()):
        fields["players"] = [names[s] for s in order]
    if hand.is_done:
        fields["finishing_stacks"] = [hand.final_stacks[s] for s in order]
    if start.hand_id:
        fields["hand"] = start.hand_id
    fields["_tablectl_seats"] = list(order)
    fields["_tablectl_button"] = start.button
    fields["_tablectl_rules"] = start.rules.name
    fields["_tablectl_burns"] = burns
    if hand.runs > 1:
        fields["_tablectl_runs"] = hand.runs
    if hand.rake:
        fields["_tablectl_rake"] = hand.rake
    return "".join(f"{key} = {_toml_value(value)}\n" for key, value in fields.items())
