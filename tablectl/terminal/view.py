"""Rendering a table for a terminal: the public snapshot and the recent events, as rich renderables.

Pure functions of the MQTT API's payload bodies (docs/mqtt.md): nothing here connects or reads
a clock, so the same code serves ``tablectl watch``, the demo and the tests.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from tablectl.domain.cards import Card, CardParseError

JsonMap = Mapping[str, object]

_SUIT_STYLE: Final = {"s": "bold white", "h": "bold red", "d": "bold red", "c": "bold white"}
_SUIT_STYLE_4: Final = {"s": "bold white", "h": "bold red", "d": "bold blue", "c": "bold green"}
MAX_EVENTS: Final = 12


@dataclass(frozen=True, slots=True)
class TableView:
    """What a terminal display shows: the newest snapshot body and the recent event bodies."""

    snapshot: JsonMap | None = None
    events: tuple[JsonMap, ...] = field(default_factory=tuple)
    stale: bool = False

    def with_event(self, event: JsonMap) -> TableView:
        """A copy with ``event`` appended to the recent events (at most MAX_EVENTS kept)."""
        return TableView(self.snapshot, (*self.events, event)[-MAX_EVENTS:], self.stale)


def _int(value: object, default: int = 0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _str(value: object, default: str = "") -> str:
    return value if isinstance(value, str) else default


def _list(value: object) -> list[object]:
    return list(value) if isinstance(value, list | tuple) else []


def _map(value: object) -> JsonMap:
    return value if isinstance(value, Mapping) else {}


def money(amount: int, stakes: JsonMap) -> str:
    """An amount in chip units as money: ``150`` at 100 units per dollar is ``1.50``.

    >>> money(150, {"units_per_currency": 100})
    '1.50'
    >>> money(25, {"units_per_currency": 1})
    '25'
    """
    per = _int(stakes.get("units_per_currency"), 1) or 1
    if per == 1:
        return f"{amount:,}"
    whole, part = divmod(amount, per)
    digits = len(str(per - 1))
    return f"{whole:,}.{part:0{digits}d}"


def card_text(code: object, *, four_colour: bool = False) -> Text:
    """A card as coloured text (``A♠``); a hidden card (None) as a card back."""
    if not isinstance(code, str):
        return Text("##", style="on blue")
    try:
        card = Card.parse(code)
    except CardParseError:
        return Text("??", style="reverse")
    styles = _SUIT_STYLE_4 if four_colour else _SUIT_STYLE
    return Text(f"{card.rank.value}{card.suit.symbol}", style=styles[card.suit.value])


def _cards(codes: Sequence[object], *, four_colour: bool = False) -> Text:
    out = Text()
    for i, code in enumerate(codes):
        if i:
            out.append(" ")
        out.append_text(card_text(code, four_colour=four_colour))
    return out


def describe_event(event: JsonMap, stakes: JsonMap) -> str | None:
    """One line for the event feed, or None for events not worth a line.

    >>> describe_event({"type": "action", "seat": 3, "kind": "raise", "amount": 400, "to": 600},
    ...                {"units_per_currency": 100})
    'seat 3 raise to 6.00'
    >>> describe_event({"type": "forced_bet", "seat": 1, "kind": "small_blind", "amount": 50},
    ...                {"units_per_currency": 100})
    'seat 1 posts the small blind 0.50'
    """
    kind = _str(event.get("type"))
    seat = event.get("seat")
    amount = _int(event.get("amount"))
    match kind:
        case "hand_started":
            return f"hand {_str(_map(event.get('hand')).get('id')) or event.get('hand')} started"
        case "forced_bet":
            what = _str(event.get("kind")).replace("_", " ")   # small_blind: small blind
            return f"seat {seat} posts the {what} {money(amount, stakes)}"
        case "action":
            verb = _str(event.get("kind"))
            if verb in ("bet", "raise", "complete", "bring-in", "bring_in"):
                total = _int(event.get("to"), amount)       # "to": the seat's bet after it
                return f"seat {seat} {verb.replace('_', '-')} to {money(total, stakes)}"
            if verb == "call" and amount:
                return f"seat {seat} calls {money(amount, stakes)}"
            return f"seat {seat} {verb}s" if verb in ("fold", "check") else f"seat {seat} {verb}"
        case "board":
            run = f"run {_int(event.get('run'))} " if event.get("run") else ""
            return run + "board " + " ".join(_str(c) for c in _list(event.get("cards")))
        case "runs":
            return f"run it {_int(event.get('count'))} times"
        case "cards_dealt":
            up = _list(event.get("up"))
            if not up:
                return None                      # hidden cards: the seat row shows them
            return f"seat {seat} shows " + " ".join(_str(c) for c in up)
        case "face_up":
            cards = " ".join(_str(c) for c in _list(event.get("cards")))
            return f"seat {seat} turns up {cards} (all-in)"
        case "showdown":
            high = _str(event.get("high"))
            low = _str(event.get("low"))
            cards = " ".join(_str(c) for c in _list(event.get("cards")))
            return f"seat {seat} shows {cards}: {high}" + (f"; {low}" if low else "")
        case "winner":
            half = _str(event.get("half"))
            what = "" if half in ("", "whole") else f" ({half})"
            return (f"seat {seat} wins {money(amount, stakes)}{what} "
                    f"{_str(event.get('description'))}").rstrip()
        case "hand_ended":
            return "hand ended"
        case "error":
            state = "" if event.get("active", True) else "cleared: "
            return f"ERROR {state}{_str(event.get('code'))} {_str(event.get('message'))}"
        case "device":
            return f"device {_str(event.get('name'))} {_str(event.get('status'))}"
        case "seat":
            return _describe_seat(event, stakes)
    return None


def _describe_seat(event: JsonMap, stakes: JsonMap) -> str:
    """A seat change between hands.

    >>> _describe_seat({"type": "seat", "seat": 2, "name": "Bo", "stack": 1000,
    ...     "change": "adjusted", "amount": 1000, "reason": "rebuy"}, {"units_per_currency": 100})
    'seat 2 (Bo) rebuys 10.00: stack 10.00'
    """
    who = f"seat {event.get('seat')}" + (f" ({_str(event.get('name'))})"
                                         if event.get("name") else "")
    stack = money(_int(event.get("stack")), stakes)
    change, amount = _str(event.get("change")), _int(event.get("amount"))
    if change == "adjusted" and _str(event.get("reason")) == "rebuy":
        return f"{who} rebuys {money(amount, stakes)}: stack {stack}"
    if change == "adjusted":
        sign = "+" if amount >= 0 else "-"
        return f"{who} stack {sign}{money(abs(amount), stakes)} ({_str(event.get('reason'))})" \
               f": stack {stack}"
    return f"{who} {change}, stack {stack}"


def render(view: TableView, *, title: str = "", four_colour: bool = False) -> RenderableType:
    """The whole table: header, errors, seats, board, pots, results and the event feed."""
    snap = view.snapshot
    if snap is None:
        return Panel(Text("waiting for the table's snapshot ...", style="dim"),
                     title=title or "tablectl")
    stakes = _map(snap.get("stakes"))
    game = _map(snap.get("game"))
    hand = _map(snap.get("hand"))
    parts: list[RenderableType] = []
    head = Text()
    head.append(_str(game.get("label")) or
                f"{_str(game.get('structure'))} {_str(game.get('variant'))}", style="bold")
    if hand:
        head.append(f"   hand {_str(hand.get('id')) or hand.get('number')}")
    street = _str(snap.get("street"))
    if street:
        head.append(f"   {street}", style="cyan")
    head.append(f"   {_str(snap.get('phase'))}", style="dim")
    parts.append(head)
    rotation = rotation_line(snap)
    if rotation:
        parts.append(Text(rotation, style="magenta"))
    if view.stale:
        parts.append(Text("CONTROLLER OFFLINE OR NO BROKER LINK - what is shown may be out of "
                          "date",
                          style="bold white on red"))
    for err in _list(snap.get("errors")):
        e = _map(err)
        parts.append(Text(f"WAITING FOR THE DEALER: {_str(e.get('code'))} - "
                          f"{_str(e.get('message'))}", style="bold black on yellow"))
    for dev in _list(snap.get("devices")):
        d = _map(dev)
        status = _str(d.get("status"))
        if status in ("offline", "incompatible"):
            parts.append(Text(f"reader {status}: {_str(d.get('name'))}", style="bold red"))

    seats = Table(expand=True, show_edge=False, pad_edge=False)
    for col in ("", "seat", "player", "stack", "bet", "cards", "status"):
        seats.add_column(col, justify="right" if col in ("stack", "bet") else "left")
    to_act = _map(snap.get("to_act"))
    button = snap.get("button")
    for seat in _list(snap.get("seats")):
        s = _map(seat)
        if _str(s.get("status")) == "empty":
            continue
        number = s.get("seat")
        mark = "▶" if number == to_act.get("seat") else ("D" if number == button else "")
        status = _str(s.get("status"))
        # a folded hand is in the muck: no card backs for it (the snapshot may still list
        # the cards it was dealt)
        cards = [] if status == "folded" else [_map(c).get("card")
                                               for c in _list(s.get("cards"))]
        style = "dim" if status in ("folded", "out", "empty") else ""
        status = status.replace("_", " ")                     # all_in: all in
        seats.add_row(mark, str(number), _str(s.get("name")),
                      money(_int(s.get("stack")), stakes),
                      money(_int(s.get("bet")), stakes) if _int(s.get("bet")) else "",
                      _cards(cards, four_colour=four_colour), status, style=style)
    parts.append(seats)

    runs = snap.get("runs")
    boards = _list(runs.get("boards")) if isinstance(runs, dict) else []
    if boards:     # a hand run more than once: every run's board (docs/mqtt.md 8.3 runs)
        for run, run_board in enumerate(boards, start=1):
            row = Text(f"run {run}  ", style="bold")
            row.append_text(_cards(_list(run_board), four_colour=four_colour))
            parts.append(row)
    else:
        board = Text("board  ", style="bold")
        board.append_text(_cards(_list(snap.get("board")), four_colour=four_colour)
                          if _list(snap.get("board")) else Text("-", style="dim"))
        parts.append(board)
    pots = _list(snap.get("pots"))
    if pots:
        pot_text = Text("pots   ", style="bold")
        for i, pot in enumerate(pots):
            p = _map(pot)
            name = "main" if i == 0 else f"side {i}"
            eligible = ",".join(str(x) for x in _list(p.get("eligible")))
            pot_text.append(f"{name} {money(_int(p.get('amount')), stakes)} [{eligible}]  ")
        parts.append(pot_text)
    if to_act:
        legal = []
        for option in _list(to_act.get("legal")):
            o = _map(option)
            k = _str(o.get("kind"))
            if "amount" in o:
                k += f" {money(_int(o.get('amount')), stakes)}"
            elif "min" in o:
                lo, hi = _int(o.get("min")), _int(o.get("max"))
                k += f" {money(lo, stakes)}" + (f"-{money(hi, stakes)}" if hi != lo else "")
            legal.append(k)
        parts.append(Text(f"seat {to_act.get('seat')} to act: " + ", ".join(legal),
                          style="bold cyan"))
    for res in _list(snap.get("results")):
        r = _map(res)
        half = _str(r.get("half"))
        parts.append(Text(
            f"seat {r.get('seat')} wins {money(_int(r.get('amount')), stakes)}"
            + ("" if half in ("", "whole") else f" ({half})")
            + f"  {_str(r.get('description'))}", style="bold green"))
    lines = [line for e in view.events if (line := describe_event(e, stakes))]
    if lines:
        parts.append(Text("\n".join(lines[-8:]), style="dim"))
    name = title or f"table {_str(snap.get('table'))}".strip()
    return Panel(Group(*parts), title=name, border_style="red" if view.stale else "green")


def rotation_line(snapshot: JsonMap) -> str:
    """The rotation banner of a mixed-game table ("" for one game): the game now, hands left,
    the next game, the frozen button (docs/mqtt.md §8.3 ``rotation``).

    >>> rotation_line({"rotation": {"name": "horse", "dealers_choice": False, "choosing": False,
    ...     "game": {"label": "Razz"}, "next": {"label": "Seven Card Stud"}, "hands_left": 2,
    ...     "frozen_button": 4}})
    'HORSE: Razz, 2 hands left; next Seven Card Stud; button frozen on seat 4'
    """
    rot = _map(snapshot.get("rotation"))
    if not rot:
        return ""
    name = _str(rot.get("name")).upper() or "Mixed games"
    if rot.get("choosing"):
        return f"{name}: dealer's choice - the dealer picks the next game"
    left = _int(rot.get("hands_left"))
    text = (f"{name}: {_str(_map(rot.get('game')).get('label'))}, {left} "
            f"hand{'s' if left != 1 else ''} left")
    nxt = _map(rot.get("next"))
    text += f"; next {_str(nxt.get('label'))}" if nxt else "; then the dealer's choice"
    if isinstance(rot.get("frozen_button"), int):
        text += f"; button frozen on seat {rot.get('frozen_button')}"
    return text


def hand_summary_line(snapshot: JsonMap) -> str:
    """One line for a finished hand (the demo without a terminal): id, board, winners.

    >>> hand_summary_line({"hand": {"id": "t-1"}, "board": ["As", "Kd", "7c", "2h", "2d"],
    ...     "stakes": {"units_per_currency": 1},
    ...     "results": [{"seat": 3, "amount": 120, "half": "whole",
    ...                  "description": "Two pair, kings and twos"}]})
    'hand t-1: board As Kd 7c 2h 2d; seat 3 wins 120 (Two pair, kings and twos)'
    >>> hand_summary_line({"hand": {"id": "t-2"}, "results": [{"seat": 1, "amount": 30}]})
    'hand t-2: seat 1 wins 30'
    """
    stakes = _map(snapshot.get("stakes"))
    hand = _map(snapshot.get("hand"))
    board = " ".join(_str(c) for c in _list(snapshot.get("board")))
    wins = []
    for res in _list(snapshot.get("results")):
        r = _map(res)
        half = _str(r.get("half"))
        what = _str(r.get("description"))
        label = f" {half}" if half not in ("", "whole") else ""
        wins.append(f"seat {r.get('seat')} wins {money(_int(r.get('amount')), stakes)}{label}"
                    + (f" ({what})" if what else ""))
    head = f"hand {_str(hand.get('id')) or hand.get('number')}"
    game = _str(_map(snapshot.get("game")).get("label"))
    if game:     # a rotation's hand: which game it dealt
        head += f" ({game})"
    return head + ": " + "; ".join(filter(None, (f"board {board}" if board else "",
                                                 ", ".join(wins) or "over")))
