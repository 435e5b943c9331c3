"""Finished hands out of the journal: rebuilt through the rules engine, written as PHH.

The journal keeps, for every hand, the events the controller derived (public ones under
``poker/`` and the secure ``holecards`` stream). Those determine the engine's inputs: the seats
and stacks of ``hand_started``, every seat's cards (the last ``holecards`` event of each seat),
the board (the last ``board`` event; of each run, and the ``runs`` count, in a hand run more
than once), the decisions in order (``action`` events and the
``bring_in`` forced bets, minus what an ``undo`` correction took back) and who showed at the
showdown. :func:`rebuild_hand` feeds them to a fresh :class:`~tablectl.game.Hand` in the order
the hand asks for them (burns are fed as unread cards: they are never journaled publicly),
then checks the finishing stacks equal the ones the journal recorded at the hand's end. Only
settled hands are exported (a misdeal or a killed hand has no result to write).

:func:`open_readonly` opens a journal file without writing to it (SQLite ``mode=ro``), so
``tablectl recall`` and ``tablectl history export`` can read it while the daemon runs.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from tablectl.clock import SystemClock
from tablectl.controller.table import TableSetup
from tablectl.domain.cards import Card, CardParseError
from tablectl.domain.errors import TablectlError
from tablectl.domain.games import BettingStructure, GameKind
from tablectl.game import (
    Act,
    ActionIn,
    ActionKind,
    Burn,
    CardIn,
    DealBoard,
    DealDown,
    DealHole,
    DealUp,
    Done,
    Hand,
    HandInput,
    HandSetupError,
    MuckIn,
    RuleViolation,
    RunsIn,
    SeatSetup,
    Showdown,
    ShowIn,
    Stakes,
)
from tablectl.history.phh import to_phh
from tablectl.history.phh_amounts import PhhError
from tablectl.journal import HandRecall, JournalError, SqliteJournal

HOLECARDS_TYPE: Final = "holecards"
ALL_HANDS: Final = 1_000_000_000
"""A hand count larger than any journal (``last_hands`` takes a positive count)."""


class ExportError(TablectlError, ValueError):
    """A journaled hand that cannot be rebuilt (events missing, or stacks that disagree)."""


@dataclass(frozen=True, slots=True)
class ExportedHand:
    """One finished hand, rebuilt.

    Attributes:
        journal_id: the journal's hand id (``hand`` in the MQTT envelopes).
        number: the table's hand number.
        name: the controller's hand id (``t07-000311``).
        hand: the rebuilt engine hand (done).
        stacks: the finishing stacks the journal recorded, seat -> chips.
    """

    journal_id: int
    number: int
    name: str
    hand: Hand
    stacks: Mapping[int, int]

    def phh(self) -> str:
        """The hand as PHH text."""
        return to_phh(self.hand)


def open_readonly(path: Path) -> SqliteJournal:
    """Open an existing journal file for reading only (safe beside a running daemon).

    Raises:
        JournalError: the file does not exist, is not a journal, or cannot be read.
    """
    spath = str(path)
    if not path.is_file():
        raise JournalError(f"{spath}: no journal file (tablectl run creates it on its first "
                           "start: give the config the daemon runs with, or its journal.path)")
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True,
                               isolation_level=None, timeout=5.0)
    except sqlite3.Error as exc:
        raise JournalError(f"{spath}: cannot open: {exc}") from exc
    try:
        conn.execute("PRAGMA query_only=ON")
        row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise JournalError(f"{spath}: not a tablectl journal: {exc}") from exc
    if row is None:
        conn.close()
        raise JournalError(f"{spath}: not a tablectl journal (no schema version)")
    return SqliteJournal(conn, spath, SystemClock())


# --- rebuilding ------------------------------------------------------------------------------


def _obj(value: object, what: str) -> Mapping[str, object]:
    if not isinstance(value, Mapping):
        raise ExportError(f"{what} is not an object")
    return value


def _int(data: Mapping[str, object], key: str, what: str) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ExportError(f"{what}: {key} is not an integer")
    return value


def _card(value: object, what: str) -> Card | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ExportError(f"{what}: {value!r} is not a card")
    try:
        return Card.parse(value)
    except CardParseError as exc:
        raise ExportError(f"{what}: {exc}") from exc


def _cards(value: object, what: str) -> list[Card | None]:
    if not isinstance(value, list):
        raise ExportError(f"{what}: cards is not a list")
    return [_card(v, what) for v in value]


@dataclass
class _Record:
    """What the journaled events say about one hand."""

    name: str = ""
    button: int = 0
    seats: tuple[SeatSetup, ...] = ()
    holes: dict[int, list[Card | None]] = field(default_factory=dict)
    board: list[Card | None] = field(default_factory=list)
    boards: dict[int, list[Card | None]] = field(default_factory=dict)   # run > 1 -> board
    runs: int = 1
    decisions: list[ActionIn] = field(default_factory=list)
    shown: dict[int, tuple[Card, ...]] = field(default_factory=dict)
    game: GameKind | None = None
    structure: BettingStructure | None = None
    bomb: int = 0
    double_board: bool = False
    stakes: Stakes | None = None


def _hand_game(data: Mapping[str, object], rec: _Record, what: str) -> None:
    """A rotation's hand names its game and stakes in its ``hand_started`` (each hand is
    exported as the game it dealt, not the config's first)."""
    game, stakes = data.get("game"), data.get("stakes")
    if game is None:
        return
    g, s = _obj(game, what), _obj(stakes, what)
    try:
        rec.game = GameKind(str(g.get("variant")))
        rec.structure = BettingStructure(str(g.get("structure")))
    except ValueError:
        raise ExportError(f"{what}: unknown game {g.get('variant')!r}") from None
    rec.stakes = Stakes(**{k: _int(s, k, what) for k in (
        "small_blind", "big_blind", "ante", "bring_in", "small_bet", "big_bet")})


def _read_events(recall: HandRecall) -> _Record:
    rec = _Record()
    started = False
    for event in recall.events:
        data = event.payload
        what = f"event {event.type} #{event.id}"
        match event.type:
            case "hand_started":
                started = True
                hand = _obj(data.get("hand"), what)
                name = hand.get("id")
                rec.name = name if isinstance(name, str) else ""
                button = data.get("button")
                rec.button = button if isinstance(button, int) else 0
                rec.bomb = _int(data, "bomb", what) if "bomb" in data else 0
                rec.double_board = data.get("double_board") is True
                _hand_game(data, rec, what)
                seats = data.get("seats")
                if not isinstance(seats, list):
                    raise ExportError(f"{what}: no seats")
                rec.seats = tuple(
                    SeatSetup(_int(s, "seat", what), _int(s, "stack", what),
                              str(s.get("name") or ""))
                    for s in (_obj(x, what) for x in seats))
            case "holecards":
                rec.holes[_int(data, "seat", what)] = _cards(data.get("cards"), what)
            case "board":
                run = data.get("run", data.get("board", 1))
                if run == 1:
                    rec.board = _cards(data.get("cards"), what)
                else:
                    rec.boards[_int(data, "run" if "run" in data else "board", what)] = \
                        _cards(data.get("cards"), what)
            case "runs":
                rec.runs = _int(data, "count", what)
            case "action":
                try:
                    kind = ActionKind(str(data.get("kind")).replace("_", "-"))
                except ValueError:
                    raise ExportError(f"{what}: unknown action {data.get('kind')!r}") from None
                wager = kind in (ActionKind.BET, ActionKind.RAISE, ActionKind.COMPLETE)
                rec.decisions.append(ActionIn(_int(data, "seat", what), kind,
                                              _int(data, "to", what) if wager else None))
            case "forced_bet" if data.get("kind") == "bring_in":
                rec.decisions.append(ActionIn(_int(data, "seat", what), ActionKind.BRING_IN))
            case "showdown":
                shown = [c for c in _cards(data.get("cards"), what) if c is not None]
                rec.shown[_int(data, "seat", what)] = tuple(shown)
            case "correction" if data.get("kind") == "undo":
                undone = _obj(data.get("undone"), what)
                if undone.get("kind") == "run_it":
                    rec.runs = 1
                    continue
                seat, undone_kind = _int(undone, "seat", what), undone.get("kind")
                if undone_kind == "show":
                    rec.shown.pop(seat, None)
                elif undone_kind != "muck":
                    if not rec.decisions or rec.decisions[-1].seat != seat:
                        raise ExportError(f"{what}: undo of seat {seat}'s decision, which "
                                          "is not the last one journaled")
                    rec.decisions.pop()
    if not started:
        raise ExportError("no hand_started event journaled")
    return rec


def rebuild_hand(setup: TableSetup, recall: HandRecall) -> Hand:
    """The engine hand of a journaled, settled hand.

    Raises:
        ExportError: the events do not make a whole hand, or the engine's finishing stacks
            differ from the ones journaled at the hand's end.
    """
    rec = _read_events(recall)
    holes, board, decisions, shown = rec.holes, rec.board, rec.decisions, rec.shown
    game = rec.game or setup.game
    try:
        hand = Hand.start(game=game, structure=rec.structure or setup.structure,
                          rules=setup.rule_set, stakes=rec.stakes or setup.stakes,
                          seats=sorted(rec.seats, key=lambda s: s.seat),
                          button=0 if game.is_stud else rec.button, hand_id=rec.name,
                          bomb=rec.bomb, boards=2 if rec.double_board else 1)
    except HandSetupError as exc:
        raise ExportError(f"the hand cannot start: {exc}") from exc
    dealt: dict[int, int] = {}
    next_board = next_decision = 0
    while True:
        exp = hand.expected()
        inp: HandInput
        if rec.runs > 1 and hand.runs == 1 and hand.can(RunsIn(rec.runs)):
            inp = RunsIn(rec.runs)
            try:
                hand.apply(inp)
            except RuleViolation as exc:  # pragma: no cover - can() said it would take it
                raise ExportError(f"the engine refuses {inp}: {exc}") from exc
            continue
        match exp:
            case Done():
                break
            case DealHole(seat=seat) | DealDown(seat=seat) | DealUp(seat=seat):
                i = dealt.get(seat, 0)
                cards = holes.get(seat, [])
                if i >= len(cards):
                    raise ExportError(f"seat {seat}'s card {i + 1} was never journaled")
                dealt[seat] = i + 1
                inp = CardIn(cards[i])
            case DealBoard(run=run) if run > 1:
                cards = rec.boards.get(run, [])
                if exp.index >= len(cards):
                    raise ExportError(f"run {run}'s board card {exp.index + 1} was never "
                                      "journaled")
                inp = CardIn(cards[exp.index])
            case DealBoard():
                if next_board >= len(board):
                    raise ExportError(f"board card {next_board + 1} was never journaled")
                inp = CardIn(board[next_board])
                next_board += 1
            case Burn():
                inp = CardIn(None)
            case Act(seat=seat):
                if next_decision >= len(decisions):
                    raise ExportError(f"seat {seat} is to act but no decision was journaled")
                inp = decisions[next_decision]
                next_decision += 1
                if inp.seat != seat:
                    raise ExportError(f"seat {seat} is to act but the journal has seat "
                                      f"{inp.seat}'s {inp.kind.value}")
            case Showdown(seat=seat):
                if seat in shown:
                    unread = any(c is None for c in holes.get(seat, []))
                    inp = ShowIn(seat, shown[seat] if unread else None)
                else:
                    inp = MuckIn(seat)
            case _:  # pragma: no cover - every expectation is matched above
                raise ExportError(f"unexpected expectation {exp!r}")
        try:
            hand.apply(inp)
        except RuleViolation as exc:
            raise ExportError(f"the engine refuses {inp}: {exc}") from exc
    if next_decision != len(decisions):
        raise ExportError(f"{len(decisions) - next_decision} journaled decisions left over")
    return hand


def journaled_stacks(recall: HandRecall) -> dict[int, int]:
    """Seat -> finishing stack, from the hand's end summary in the journal.

    Raises:
        ExportError: the summary has no stacks.
    """
    stacks = recall.hand.summary.get("stacks")
    if not isinstance(stacks, list) or not stacks:
        raise ExportError(f"hand {recall.hand.id}: no finishing stacks journaled")
    out = {}
    for item in stacks:
        entry = _obj(item, "summary stacks")
        out[_int(entry, "seat", "summary stacks")] = _int(entry, "stack", "summary stacks")
    return out


def is_settled(recall: HandRecall) -> bool:
    """True for a hand that ended with a result (not in progress, misdealt or killed)."""
    return recall.hand.ended_at is not None and recall.hand.summary.get("result") == "settled"


def export_hand(setup: TableSetup, recall: HandRecall) -> ExportedHand:
    """Rebuild one settled hand and check it against the journal.

    Raises:
        ExportError: it cannot be rebuilt, or its stacks differ from the journal's.
    """
    hid = recall.hand.id
    try:
        hand = rebuild_hand(setup, recall)
    except ExportError as exc:
        raise ExportError(f"hand {hid}: {exc}") from exc
    want = journaled_stacks(recall)
    got = dict(hand.final_stacks)
    if any(got.get(seat) != stack for seat, stack in want.items() if seat in got):
        raise ExportError(f"hand {hid}: rebuilt stacks {got} differ from the journal's {want}")
    return ExportedHand(journal_id=hid, number=recall.hand.number, name=hand.start_args.hand_id,
                        hand=hand, stacks=want)


@dataclass(frozen=True, slots=True)
class ExportResult:
    """What :func:`export_hands` did with one hand: ``path`` written, or ``error``."""

    journal_id: int
    path: Path | None
    error: str | None


def finished_hands(journal: SqliteJournal, n: int | None = None) -> list[HandRecall]:
    """The settled hands among the last ``n`` hands journaled (all when None), oldest first.

    Raises:
        JournalError: the journal cannot be read.
    """
    recalls = journal.last_hands(ALL_HANDS if n is None else n)
    return [r for r in reversed(recalls) if is_settled(r)]


def phh_name(exported: ExportedHand) -> str:
    """The file name of a hand: its controller id, else its journal id."""
    stem = exported.name or f"hand-{exported.journal_id:06d}"
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in stem) + ".phh"


def export_hands(setup: TableSetup, recalls: Sequence[HandRecall],
                 out: Path) -> Iterator[ExportResult]:
    """Write one ``.phh`` per hand into ``out`` (created if needed); a hand that cannot be
    rebuilt is reported and written nowhere.

    Raises:
        OSError: ``out`` cannot be created or written.
    """
    out.mkdir(parents=True, exist_ok=True)
    for recall in recalls:
        try:
            exported = export_hand(setup, recall)
        except ExportError as exc:
            yield ExportResult(recall.hand.id, None, str(exc))
            continue
        try:
            text = exported.phh()
        except PhhError as exc:   # a bomb pot: no PHH form
            yield ExportResult(recall.hand.id, None, f"hand {recall.hand.id}: {exc}")
            continue
        path = out / phh_name(exported)
        tmp = path.with_name(f".{path.name}.new")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
        yield ExportResult(recall.hand.id, path, None)


__all__ = ["ExportError", "ExportResult", "ExportedHand", "export_hand", "export_hands",
           "finished_hands", "is_settled", "journaled_stacks", "open_readonly", "phh_name",
           "rebuild_hand"]
