"""``tablectl floor export``: recorded hands as PHH files, rebuilt through the rules engine.

The floor keeps a table's public events, so a hand is rebuilt the way ``tablectl history
export`` rebuilds one from a journal (``tablectl.history.export``), with what the public feed
says about the cards: a hole card is known only if it was dealt face up (stud) or shown at the
showdown; every other one is an unread card (``????`` in the PHH file). The engine replays the
hand and its finishing stacks must equal the ones the table published at the hand's end, or
the hand is reported and not written. A hand run more than once or dealt on two boards is written as
``tablectl history export`` writes it (a second run is a second series of board deals after
the river; a double board deals each street's cards for both boards at once); a bomb pot has no
PHH form and is reported, as there.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from tablectl.controller.table import TableSetup
from tablectl.domain.deck import Deck
from tablectl.domain.games import BettingStructure, GameKind, RulesPreset
from tablectl.game import RuleSet, RunOddChip, Stakes
from tablectl.history.export import ExportedHand, ExportError, export_hand, phh_name
from tablectl.history.phh_amounts import PhhError
from tablectl.journal import EventRecord, HandRecall, HandRecord

_NO_DECK = Deck("floor", {})
"""The floor reads no tags: the setup names an empty deck."""
_STAKE_KEYS = ("small_blind", "big_blind", "straddle", "ante", "bring_in", "small_bet",
               "big_bet")


@dataclass(frozen=True, slots=True)
class StoredHand:
    """A hand as the floor stored it: its row and its stream's events, hand_started first."""

    id: str
    table: str
    number: int
    game: Mapping[str, Any] | None
    stakes: Mapping[str, Any] | None
    started_at: datetime
    ended_at: datetime | None
    events: Sequence[tuple[str, Mapping[str, Any], datetime]]


def setup_of(hand: StoredHand, rules: RuleSet | None = None) -> TableSetup:
    """The engine setup a hand was dealt with, from the table's snapshot at its start
    (``rules``: instead of its preset's).

    Raises:
        ExportError: the floor never learnt the table's game (no snapshot before the hand).
    """
    game, stakes = hand.game or {}, hand.stakes or {}
    try:
        kind = GameKind(str(game.get("variant")))
        structure = BettingStructure(str(game.get("structure")))
        preset = RulesPreset(str(game.get("preset", "casino")))
    except ValueError:
        raise ExportError(f"hand {hand.id}: the table's game is unknown (no snapshot named "
                          "it before the hand began)") from None
    values = {k: int(stakes.get(k, 0) or 0) for k in _STAKE_KEYS}
    return TableSetup(table=hand.table, game=kind, structure=structure, stakes=Stakes(**values),
                      deck_id=_NO_DECK.deck_id, decks={_NO_DECK.deck_id: _NO_DECK},
                      roles={}, preset=preset, rules=rules)


def setups_of(hand: StoredHand) -> list[TableSetup]:
    """The setups a hand may have been dealt with, the likeliest first.

    The floor knows a table's rules preset, not its config's ``[game.run_it]``: a hand the
    table ran more than once was allowed to be, and the odd chips of its pots went by one of
    the house's two rules (docs/rules.md, "Run it twice"). Both are tried, the preset's own
    first; the finishing stacks the table published tell which one it was.
    """
    base = setup_of(hand)
    if not any(etype == "runs" for etype, _data, _ts in hand.events):
        return [base]
    rules = base.rule_set
    odd = [rules.run_it.odd_chip, *(o for o in RunOddChip if o is not rules.run_it.odd_chip)]
    return [setup_of(hand, replace(rules, run_it=replace(
        rules.run_it, max_runs=3, structures=frozenset(BettingStructure), odd_chip=o)))
        for o in odd]


def recall_of(hand: StoredHand) -> HandRecall:
    """The hand's events as a journal recall, with the hole cards the public feed revealed."""
    events: list[EventRecord] = []
    holes: dict[int, list[str | None]] = {}
    shown: dict[int, list[str]] = {}
    end: Mapping[str, Any] = {}
    for i, (etype, data, ts) in enumerate(hand.events):
        if etype == "cards_dealt":
            up = data.get("up") or []
            holes.setdefault(int(data["seat"]), []).append(str(up[0]) if up else None)
        elif etype == "showdown":
            shown[int(data["seat"])] = [str(c) for c in data.get("cards", [])]
        elif etype == "hand_ended":
            end = data
        events.append(EventRecord(id=i + 1, epoch=1, seq=i + 1, topic="events", type=etype,
                                  payload=dict(data), hand_id=1, created_at=ts,
                                  published_at=ts))
    for seat, cards in holes.items():
        known = shown.get(seat)
        if known is not None and len(known) == len(cards):
            cards[:] = known
        at = hand.started_at
        events.append(EventRecord(id=len(events) + 1, epoch=1, seq=len(events) + 1,
                                  topic="holecards", type="holecards",
                                  payload={"seat": seat, "cards": list(cards)}, hand_id=1,
                                  created_at=at, published_at=at))
    summary = {"result": end.get("result"), "stacks": list(end.get("stacks", []))}
    record = HandRecord(id=1, number=hand.number, epoch=1, started_at=hand.started_at,
                        ended_at=hand.ended_at, summary=summary)
    return HandRecall(hand=record, inputs=(), events=tuple(events))


@dataclass(frozen=True, slots=True)
class Written:
    """One hand exported: ``path`` written, or ``error``."""

    hand: str
    path: Path | None
    error: str | None


def _rebuilt(hand: StoredHand) -> ExportedHand:
    """The hand through the engine under the first of :func:`setups_of` that gives the
    published stacks (the first one's error when none does)."""
    recall = recall_of(hand)
    first: ExportError | None = None
    for setup in setups_of(hand):
        try:
            return export_hand(setup, recall)
        except ExportError as exc:
            first = first or exc
    assert first is not None
    raise first


def write_phh(hands: Sequence[StoredHand], out: Path) -> Iterator[Written]:
    """One ``.phh`` per hand in ``out`` (created if needed); a hand that cannot be rebuilt is
    reported and written nowhere.

    Raises:
        OSError: ``out`` cannot be created or written.
    """
    out.mkdir(parents=True, exist_ok=True)
    for hand in hands:
        try:
            exported = _rebuilt(hand)
            text = exported.phh()
        except PhhError as exc:       # a bomb pot: PHH has no form for it
            yield Written(hand.id, None, f"hand {hand.id}: {exc}")
            continue
        except (ExportError, KeyError, TypeError, ValueError) as exc:
            yield Written(hand.id, None, str(exc))
            continue
        name = phh_name(exported)       # the hand id, which names its table: t1-000001.phh
        path = out / (name if name.startswith(f"{hand.table}-") else f"{hand.table}-{name}")
        tmp = path.with_name(f".{path.name}.new")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
        yield Written(hand.id, path, None)



__all__ = ["StoredHand", "Written", "recall_of", "setup_of", "setups_of", "write_phh"]
