"""Real hands (tests/data/phh) as a table's public event stream, for the floor's tests.

Each PHH hand is replayed through the rules engine (``tablectl.history.phh.replay``) and its
engine events are turned into the daemon's public event bodies by the controller's own
:class:`~tablectl.controller.views.EventFolder`, after a ``hand_started`` naming the hand's
players, game and stakes (as a rotation table's does: docs/mqtt.md §8.1). Player ``pN`` sits
in seat N under the file's ``players`` name. Only public events come out: a hand mucked or
folded is never shown, as on the wire.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tablectl.controller.table import game_label
from tablectl.controller.views import EventFolder
from tablectl.domain.games import RulesPreset
from tablectl.game import PRESETS
from tablectl.history.phh import load, replay
from tests.floor.streams import body

CORPUS = Path(__file__).resolve().parents[1] / "data" / "phh"
"""The real hands the project was given (tests/data/phh/README.md: origin and MIT licence)."""


def phh_bodies(table: str, epoch: object, paths: list[Path | str], *, seq0: int = 0,
               first_hand: int = 1) -> list[dict[str, Any]]:
    """Envelopes of the hands in ``paths`` (relative to the corpus, or PHH text files
    anywhere), played in order at ``table`` on one run."""
    out: list[dict[str, Any]] = []
    seq = seq0
    for number, path in enumerate(paths, start=first_hand):
        file = CORPUS / path if not Path(path).is_absolute() else Path(path)
        (phh,) = load(file)
        result = replay(phh, PRESETS[RulesPreset.PHH])
        assert result.ok and result.hand is not None, (path, result.error)
        hand = result.hand
        start = hand.start_args
        ref = {"id": f"{table}-{number:06d}", "number": number}
        game = {"variant": start.game.value, "structure": start.structure.value,
                "preset": "phh", "label": game_label(start.game, start.structure)}
        stakes = {k: getattr(start.stakes, k) for k in (
            "small_blind", "big_blind", "ante", "bring_in", "small_bet", "big_bet")}
        seats = [{"seat": s.seat, "name": s.name, "stack": s.stack} for s in start.seats]
        bodies: list[tuple[str, dict[str, Any]]] = [("hand_started", {
            "hand": ref, "button": None if start.game.is_stud else start.button,
            "seats": seats, "game": game, "stakes": stakes})]
        folder = EventFolder(dict(ref), {s.seat: s.stack for s in start.seats})
        public, _secure = folder.feed(hand.events)
        bodies += [(ev.type, dict(ev.data)) for ev in public]
        for etype, data in bodies:
            seq += 1
            out.append(body(table, epoch, seq, etype, data, hand=number))
    return out
