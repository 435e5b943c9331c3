"""What the room's TVs show of a tournament, sans-IO: its published status, decoded.

``tablectl tournament web`` (tablectl/tournament/web.py) follows the retained status on
``poker/v1/tournaments/{id}/clock`` and hands each message to :meth:`TournamentBoard.on_status`.
The message is hostile until decoded: anything but a status of this tournament with sane
fields is refused, said in :attr:`TournamentBoard.refused`, and the screen keeps what it
showed. The view holds only what the page draws, each value checked, so the page never
receives a value it cannot show.
"""

from __future__ import annotations

from datetime import datetime
from typing import Final

from tablectl.domain.jsonvalue import JsonValue
from tablectl.domain.strictjson import JsonLimits, StrictJsonError, decode_object

_LIMITS: Final = JsonLimits(max_bytes=8192, max_depth=4, max_string=200, max_items=64)
_PHASES: Final = frozenset({"not_started", "running", "paused", "on_break", "finished"})
_MAX: Final = 10**15


class BoardRefusedError(ValueError):
    """A status the page does not show; the message says why."""


def _count(body: dict[str, JsonValue], key: str) -> int:
    value = body.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= _MAX:
        raise BoardRefusedError(f"{key} is not a count: {str(value)[:40]!r}")
    return value


def _text(body: dict[str, JsonValue], key: str, *, none: bool = False) -> str | None:
    value = body.get(key)
    if value is None and none:
        return None
    if not isinstance(value, str) or not value or len(value) > 200:
        raise BoardRefusedError(f"{key} is not a text")
    return value


def _seconds(body: dict[str, JsonValue], key: str) -> float:
    value = body.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not (
            0 <= value <= 10**7):
        raise BoardRefusedError(f"{key} is not a time left: {str(value)[:40]!r}")
    return float(value)


def view_of(payload: bytes, tournament: str) -> dict[str, JsonValue]:
    """What the page shows of ``payload``.

    >>> v = view_of(b'{"schema":1,"tournament":"d1","name":"Daily","clock":{"phase":"paused",'
    ...     b'"label":"level 3 100/300","time_left":754.2,"time_left_text":"12:35",'
    ...     b'"ends_at":null,"next":null,"at":"2026-12-03T19:48:42+00:00"},'
    ...     b'"players_left":61,"entries":74,"average_stack":24262,"hand_for_hand":false}', "d1")
    >>> v["label"], v["time_left"], v["next"], v["players"]
    ('level 3 100/300', 754.2, 'none (last level)', '61 of 74')

    Raises:
        BoardRefusedError: not a whole, sane status of ``tournament``.
    """
    try:
        body = decode_object(payload, _LIMITS)
    except StrictJsonError as exc:
        raise BoardRefusedError(f"not a status: {exc}") from None
    if body.get("schema") != 1 or body.get("tournament") != tournament:
        raise BoardRefusedError(f"not a status of tournament {tournament}")
    clock = body.get("clock")
    if not isinstance(clock, dict):
        raise BoardRefusedError("clock is not an object")
    phase = clock.get("phase")
    if phase not in _PHASES:
        raise BoardRefusedError(f"clock.phase is not a phase: {str(phase)[:40]!r}")
    at = _text(clock, "at")
    try:
        datetime.fromisoformat(str(at))
    except ValueError:
        raise BoardRefusedError("clock.at is not a time") from None
    nxt = clock.get("next")
    if nxt is not None and not isinstance(nxt, dict):
        raise BoardRefusedError("clock.next is not an object")
    h4h = body.get("hand_for_hand")
    if not isinstance(h4h, bool):
        raise BoardRefusedError("hand_for_hand is not true or false")
    waiting = body.get("hand_for_hand_waiting", [])
    if not isinstance(waiting, list) or len(waiting) > 999 or not all(
            isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= 999 for n in waiting):
        raise BoardRefusedError("hand_for_hand_waiting is not a list of table numbers")
    left, entries = _count(body, "players_left"), _count(body, "entries")
    return {"name": _text(body, "name"), "phase": str(phase),
            "label": _text(clock, "label"), "time_left": _seconds(clock, "time_left"),
            "counting": phase in ("running", "on_break"),
            "next": _text(nxt, "label") if nxt is not None else "none (last level)",
            "players": f"{left} of {entries}", "players_left": left,
            "average_stack": _count(body, "average_stack"), "hand_for_hand": h4h,
            "waiting_for": sorted(waiting) if h4h else [], "at": at}


class TournamentBoard:
    """The last status shown and why the last message was refused (see the module
    docstring)."""

    def __init__(self, tournament: str) -> None:
        self.tournament = tournament
        self.view: dict[str, JsonValue] | None = None
        self.refused: str | None = None

    def on_status(self, payload: bytes) -> bool:
        """A message on the status topic; True when what the page shows changed."""
        try:
            view = view_of(payload, self.tournament)
        except BoardRefusedError as exc:
            changed = self.refused != str(exc)
            self.refused = str(exc)
            return changed
        self.view, self.refused = view, None
        return True

    def to_json(self) -> dict[str, JsonValue]:
        """What goes to the page."""
        return {"tournament": self.tournament, "status": self.view, "refused": self.refused}


__all__ = ["BoardRefusedError", "TournamentBoard", "view_of"]
