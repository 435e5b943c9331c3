"""The deck registration dialogue as a state machine: sans-IO, one table of phases.

:class:`RegistrationDialogue` drives a :class:`~tablectl.setup.register.DeckRegistration`
from what reaches the runner (a tag read, a line the dealer typed, the end of the dealer's
input, a wait that timed out) and answers each with a :class:`Step`: the lines to say, a line
to put back for later, or a timeout to report. It reads no device, clock or terminal:
:func:`tablectl.setup.runners.register_deck` waits for what :attr:`RegistrationDialogue.wait`
asks for and feeds it in.

Phases (what each waits for is :data:`WAITS`, what each input does there :data:`TRANSITIONS`):

* ``NEXT_CARD`` (ordered mode): a read, the expected card; or a line, ``undo`` or ``quit``.
  After the end of the dealer's input, reads still register.
* ``NEXT_TAG`` (confirm mode): a read (reads kept come before lines), which then waits for
  its card (``NAME_CARD``); or a line, ``undo``, ``quit``, or an answer typed ahead, which is
  put back and waits for its read (``HELD_ANSWER``).
* ``HELD_ANSWER``: reads only, as in ``NEXT_TAG``.
* ``NAME_CARD``: the dealer's line, also after the end of input: the card, an empty line (skip
  the tag) or ``quit``; the end of input or a timeout drops the tag.
* ``DONE``: all 52 registered.

A timeout in any waiting phase ends the run; so does ``quit`` (:class:`AbortedError`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from tablectl.setup.errors import AbortedError, RegistrationError
from tablectl.setup.register import DeckRegistration, RegistrationMode


class Phase(StrEnum):
    """Where the registration dialogue is (see the module docstring)."""

    NEXT_CARD = "next_card"
    NEXT_TAG = "next_tag"
    HELD_ANSWER = "held_answer"
    NAME_CARD = "name_card"
    DONE = "done"


class Trigger(StrEnum):
    """What reached the runner."""

    READ = "read"
    LINE = "line"
    END = "end"
    """The dealer's input ended."""
    TIMEOUT = "timeout"


@dataclass(frozen=True, slots=True)
class Wait:
    """What the runner waits for in a phase.

    Attributes:
        read: a tag read. line: a line from the dealer. reads_first: reads kept from earlier
            come before lines kept. after_end: lines are asked for even after the dealer's
            input ended (so that the end itself is an answer).
    """

    read: bool
    line: bool
    reads_first: bool = False
    after_end: bool = False


WAITS: Final[Mapping[Phase, Wait]] = {
    Phase.NEXT_CARD: Wait(read=True, line=True),
    Phase.NEXT_TAG: Wait(read=True, line=True, reads_first=True),
    Phase.HELD_ANSWER: Wait(read=True, line=False, reads_first=True),
    Phase.NAME_CARD: Wait(read=False, line=True, after_end=True),
    Phase.DONE: Wait(read=False, line=False),
}
"""What each phase waits for."""


@dataclass(frozen=True, slots=True)
class Step:
    """The dialogue's answer to one input.

    Attributes:
        say: lines for the dealer, in order. unread: a line to put back (the next wait for a
            line returns it first). timed_out: the run ends with a timeout; what to report.
    """

    say: tuple[str, ...] = ()
    unread: str | None = None
    timed_out: str | None = None


_COMMANDS: Final = ("", "quit", "undo")

_Handler = Callable[["RegistrationDialogue", str], Step]


class RegistrationDialogue:
    """The registration dialogue over ``registration`` (see the module docstring)."""

    def __init__(self, registration: DeckRegistration) -> None:
        self.registration = registration
        self._ordered = registration.mode is RegistrationMode.ORDERED
        self._phase = self._waiting()

    @property
    def phase(self) -> Phase:
        """The current phase."""
        return self._phase

    @property
    def wait(self) -> Wait:
        """What the runner waits for now."""
        return WAITS[self._phase]

    def opening(self) -> Step:
        """What the dealer is told before the first read."""
        reg = self.registration
        if self._ordered:
            return Step((
                "pass the cards in this order: " + " ".join(str(c) for c in reg.remaining),
                f"next: {reg.expected}  (type 'undo' to take back the last card, 'quit' to "
                "stop)"))
        return Step(("read a card, then type which card it is (e.g. As, Td); an empty line "
                     "skips the tag, 'quit' stops",))

    def handle(self, trigger: Trigger, text: str = "") -> Step:
        """One input: ``text`` is the tag's UID for a read, the line for a line.

        Raises:
            AbortedError: the dealer typed ``quit``, or the input ended while a card was
                asked for.
            ValueError: the phase does not wait for ``trigger`` (see :data:`WAITS`).
        """
        handler = TRANSITIONS.get((self._phase, trigger))
        if handler is None:
            raise ValueError(f"{self._phase} does not wait for {trigger}")
        return handler(self, text)

    # ---- transitions ------------------------------------------------------------------------

    def _waiting(self) -> Phase:
        if self.registration.complete:
            return Phase.DONE
        return Phase.NEXT_CARD if self._ordered else Phase.NEXT_TAG

    def _count(self) -> str:
        return f"{self.registration.count} of 52 registered"

    def _read(self, uid: str) -> Step:
        reg = self.registration
        self._phase = self._waiting()          # an answer held for this read may come now
        try:
            done = reg.read(uid)
        except RegistrationError as exc:
            return Step((f"refused: {exc.reason}",))
        if done is None:
            self._phase = Phase.NAME_CARD
            return Step((f"tag {reg.pending}: which card?",))
        self._phase = self._waiting()
        nxt = reg.expected
        return Step((f"{done.count:2d}/52 {done.card} = {done.uid}"
                     + (f"; next: {nxt}" if nxt else ""),))

    def _line(self, text: str) -> Step:
        word = text.strip().lower()
        if not self._ordered and word not in _COMMANDS:
            self._phase = Phase.HELD_ANSWER   # an answer typed ahead waits for its read
            return Step(unread=text)
        if not word:
            return Step()
        if word == "quit":
            raise AbortedError(f"stopped by the dealer; {self._count()}")
        if word == "undo":
            try:
                undone = self.registration.undo()
            except RegistrationError as exc:
                return Step((f"refused: {exc.reason}",))
            nxt = self.registration.expected
            return Step((f"took back {undone.card} = {undone.uid}"
                         + (f"; next: {nxt}" if nxt else ""),))
        return Step((f"unknown command {text.strip()!r} (undo, quit)",))

    def _answer(self, text: str) -> Step:
        reg = self.registration
        uid = reg.pending
        answer = text.strip()
        if answer.lower() == "quit":
            reg.reject()
            raise AbortedError(f"stopped by the dealer; {self._count()}")
        if not answer:
            reg.reject()
            self._phase = self._waiting()
            return Step((f"skipped tag {uid}",))
        try:
            done = reg.confirm(answer)
        except RegistrationError as exc:
            return Step((f"refused: {exc.reason}", f"tag {uid}: which card?"))
        self._phase = self._waiting()
        return Step((f"{done.count:2d}/52 {done.card} = {done.uid}",))

    def _ended_naming(self, _text: str) -> Step:
        uid = self.registration.reject()
        raise AbortedError(f"input ended while tag {uid} waited for its card; {self._count()}")

    def _timed_out_naming(self, _text: str) -> Step:
        uid = self.registration.reject()
        return Step(timed_out=f"tag {uid} was not confirmed; {self._count()}")

    def _timed_out(self, _text: str) -> Step:
        return Step(timed_out=self._count())

    def _ignore(self, _text: str) -> Step:
        return Step()


TRANSITIONS: Final[Mapping[tuple[Phase, Trigger], _Handler]] = {
    (Phase.NEXT_CARD, Trigger.READ): RegistrationDialogue._read,
    (Phase.NEXT_CARD, Trigger.LINE): RegistrationDialogue._line,
    (Phase.NEXT_CARD, Trigger.END): RegistrationDialogue._ignore,   # reads still register
    (Phase.NEXT_CARD, Trigger.TIMEOUT): RegistrationDialogue._timed_out,
    (Phase.NEXT_TAG, Trigger.READ): RegistrationDialogue._read,
    (Phase.NEXT_TAG, Trigger.LINE): RegistrationDialogue._line,
    (Phase.NEXT_TAG, Trigger.END): RegistrationDialogue._ignore,
    (Phase.NEXT_TAG, Trigger.TIMEOUT): RegistrationDialogue._timed_out,
    (Phase.HELD_ANSWER, Trigger.READ): RegistrationDialogue._read,
    (Phase.HELD_ANSWER, Trigger.TIMEOUT): RegistrationDialogue._timed_out,
    (Phase.NAME_CARD, Trigger.LINE): RegistrationDialogue._answer,
    (Phase.NAME_CARD, Trigger.END): RegistrationDialogue._ended_naming,
    (Phase.NAME_CARD, Trigger.TIMEOUT): RegistrationDialogue._timed_out_naming,
}
"""``(phase, trigger) -> handler``: every input a phase waits for (:data:`WAITS`; the end of
input wherever lines are asked for) and nothing else."""
