"""What the floor page shows: every table live, folded from the MQTT API (sans-IO).

:class:`FloorBoard` takes each table's retained snapshot (``state``), its birth/LWT
(``status``) and the floor service's flags, and keeps one line per table: game, stakes, hand
number, phase, every board of the hand (each run's of a hand run more than once, both of a
double board), a bomb pot's ante, pot, players, the controller's link, each reader's status
(``unknown``, with the ``last`` one known, while the controller is offline: nobody reports it
then) and the error states waiting for a person. Each table's run is ``(journal, epoch)``,
ordered by :class:`~tablectl.publish.runs.RunTracker` (docs/mqtt.md §4): a snapshot or status of
a new run (a higher epoch of the journal shown, or a journal not shown yet) resets the line; a
snapshot or a late LWT of an older run is ignored; a message that names no run is ignored.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from tablectl.domain.strictjson import JsonLimits, StrictJsonError, decode_object
from tablectl.floor.model import epoch_text
from tablectl.floor.money import money_format
from tablectl.publish.runs import Run, RunOrder, RunTracker

MAX_FLAGS: Final = 50


@dataclass(slots=True)
class TableLine:
    """One table on the floor page."""

    table: str
    seq: int = -1
    online: bool | None = None
    snapshot: Mapping[str, Any] = field(default_factory=dict)
    runs: RunTracker = field(default_factory=RunTracker)

    @property
    def epoch(self) -> str | None:
        """The run shown, as the floor stores it (``journal:epoch``, or the epoch alone)."""
        run = self.runs.current
        return None if run is None else epoch_text(run.epoch, run.journal)

    def admit(self, run: Run) -> bool:
        """False for an older run; a new run resets the line (no snapshot, link unknown)."""
        order = self.runs.classify(run)
        if order is RunOrder.OLD:
            return False
        if order is RunOrder.NEW:
            self.runs.enter(run)
            self.seq, self.online, self.snapshot = -1, None, {}
        return True

    def to_json(self) -> dict[str, Any]:
        """The line as the page draws it."""
        d = self.snapshot
        game = _obj(d.get("game"))
        stakes = _obj(d.get("stakes"))
        hand = _obj(d.get("hand"))
        seats = [s for s in d.get("seats", []) if isinstance(s, dict)]
        players = [{"seat": s.get("seat"), "name": s.get("name"), "stack": s.get("stack"),
                    "status": s.get("status")} for s in seats if s.get("status") != "empty"]
        pots = [p for p in d.get("pots", []) if isinstance(p, dict)]
        bets = sum(int(s.get("bet", 0) or 0) for s in seats)
        devices = [{"name": x.get("name"), "status": x.get("status")}
                   for x in d.get("devices", []) if isinstance(x, dict)]
        if self.online is False:           # the snapshot's reader status is the last it knew
            devices = [{**x, "status": "unknown", "last": x["status"]} for x in devices]
        errors = [{"code": e.get("code"), "message": e.get("message"), "since": e.get("since")}
                  for e in d.get("errors", []) if isinstance(e, dict)]
        pot = sum(int(p.get("amount", 0) or 0) for p in pots) + bets
        money = money_format(stakes)
        for p in players:
            p["stack_text"] = money(p["stack"])
        name = d.get("table_name")
        return {"table": self.table, "name": name if isinstance(name, str) and name else self.table,
                "epoch": self.epoch,
                "controller": ("online" if self.online else "offline")
                if self.online is not None else "unknown",
                "game": game.get("label") or game.get("variant"),
                "stakes": _stakes(stakes, money), "hand": hand.get("number") if hand else None,
                "phase": d.get("phase"), "street": d.get("street"),
                "boards": boards_of(d), "bomb": _bomb(d),
                "pot": pot, "pot_text": money(pot),
                "players": players, "readers": devices, "errors": errors}


def boards_of(snapshot: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every board of the hand shown, each ``{label, cards}`` (a card ``null`` while unread):
    one per run of a hand run more than once (``runs``), both of a double board
    (``double_board``), else the one board (none before it has a card). docs/mqtt.md §8.

    >>> boards_of({"board": ["Ah", "Kd", "2c"], "runs": {"count": 2, "boards": [
    ...     ["Ah", "Kd", "2c", "3s"], ["Ah", "Kd", "2c"]]}})[1]
    {'label': 'run 2', 'cards': ['Ah', 'Kd', '2c']}
    """
    for key, word in (("runs", "run"), ("double_board", "board")):
        several = _obj(snapshot.get(key)).get("boards")
        if isinstance(several, list) and several:
            return [{"label": f"{word} {i}", "cards": _card_list(b)}
                    for i, b in enumerate(several[:_MAX_BOARDS], start=1)]
    cards = _card_list(snapshot.get("board"))
    return [{"label": "board", "cards": cards}] if cards else []


_MAX_BOARDS: Final = 3


def _card_list(value: object) -> list[str | None]:
    if not isinstance(value, list):
        return []
    return [c if isinstance(c, str) and len(c) <= 3 else None for c in value[:5]]


def _bomb(snapshot: Mapping[str, Any]) -> int | None:
    bomb = snapshot.get("bomb_pot")
    return bomb if isinstance(bomb, int) and not isinstance(bomb, bool) else None


def _obj(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _stakes(s: Mapping[str, Any], money: Callable[[Any], str]) -> str:
    cur = str(s.get("currency", "") or "")
    if s.get("big_blind"):
        text = f"{money(s.get('small_blind'))}/{money(s.get('big_blind'))}"
    elif s.get("small_bet"):
        text = f"{money(s.get('small_bet'))}/{money(s.get('big_bet'))}"
    else:
        return ""
    if s.get("ante"):
        text += f" ante {money(s.get('ante'))}"
    return f"{text} {cur}".strip()


PAGE_LIMITS: Final = JsonLimits(max_bytes=256 * 1024)
"""A table's snapshot, status or a flag, as the floor page takes it."""


class FloorBoard:
    """Every table's line and the latest flags (see the module docstring)."""

    def __init__(self) -> None:
        self.tables: dict[str, TableLine] = {}
        self.flags: list[dict[str, Any]] = []

    def on_message(self, topic: str, payload: bytes) -> bool:
        """Fold one message in; True when the view changed."""
        levels = topic.split("/")
        if not payload:
            return False
        try:       # strict: a NaN kept here would break every browser's page (JSON.parse)
            body = decode_object(payload, PAGE_LIMITS)
        except StrictJsonError:
            return False
        if levels[-1] == "flags":
            self.flags = [body, *self.flags][:MAX_FLAGS]
            return True
        if len(levels) != 5 or levels[2] != "tables" or levels[4] not in ("state", "status"):
            return False
        run = Run.of(body)
        if run is None:
            return False
        line = self.tables.setdefault(levels[3], TableLine(levels[3]))
        if levels[4] == "state":
            data = body.get("data")
            seq = body.get("seq")
            if not isinstance(data, dict) or not isinstance(seq, int) or not line.admit(run):
                return False                      # malformed, or of an older run
            if seq < line.seq:
                return False                      # an older snapshot of the run shown
            line.seq, line.snapshot = seq, data
            return True
        if body.get("state") not in ("online", "offline") or not line.admit(run):
            return False                          # e.g. a late LWT of an earlier run
        line.online = body.get("state") == "online"
        return True

    def to_json(self) -> dict[str, Any]:
        """The whole page's data; each flag with its table's name and the name of the player
        in its seat now (``table_name``, ``player``: the ids when the floor page has not seen
        that table)."""
        lines = {t: self.tables[t].to_json() for t in sorted(self.tables)}
        return {"tables": list(lines.values()),
                "flags": [_named_flag(f, lines) for f in self.flags]}


def _named_flag(flag: Mapping[str, Any], lines: Mapping[str, Mapping[str, Any]]
                ) -> dict[str, Any]:
    """A flag with ``table_name`` and ``player`` beside its hand id (``table:epoch:seq``) and
    seat."""
    table = str(flag.get("hand", "")).split(":", 1)[0]
    line = lines.get(table)
    seat = flag.get("seat")
    player = next((p.get("name") for p in (line or {}).get("players", [])
                   if p.get("seat") == seat and p.get("name")), None)
    return {**flag, "table_name": line["name"] if line else table,
            "player": player or f"seat {seat}"}


__all__ = ["FloorBoard", "TableLine"]
