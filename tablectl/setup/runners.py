"""The set-up runners: each feeds a sans-IO core from a card source and talks to the dealer.

:func:`register_deck` drives :class:`~tablectl.setup.register.DeckRegistration`,
:func:`verify_deck` :class:`~tablectl.setup.verify.DeckVerification` and
:func:`calibrate_table` :class:`~tablectl.setup.calibrate.Calibration`, from a card source's
events (:class:`~tablectl.sources.rfid.RfidShoeSource` or
:class:`~tablectl.sources.rfid.RfidTableSource`, see
:func:`~tablectl.setup.dialogue.open_reader`) and a :class:`~tablectl.setup.dialogue.Dialogue`.
Every wait is bounded by a timeout measured on the injected clock."""

from __future__ import annotations

from collections.abc import AsyncIterator

from tablectl.clock import Clock
from tablectl.controller.inputs import CardRead
from tablectl.setup.calibrate import Calibration
from tablectl.setup.dialogue import TIMEOUT, Dialogue, Inputs, Timeout
from tablectl.setup.errors import AbortedError, CalibrationError
from tablectl.setup.register import DeckRegistration
from tablectl.setup.register_dialogue import Phase, RegistrationDialogue, Trigger
from tablectl.setup.verify import DeckVerification, Verdict, VerificationReport
from tablectl.sources.base import SourceEvent


async def register_deck(registration: DeckRegistration, events: AsyncIterator[SourceEvent],
                        dialogue: Dialogue, *, clock: Clock, idle_timeout: float) -> None:
    """Run ``registration`` until complete: tags from ``events``, the dealer's lines from
    ``dialogue``. In ordered mode the dealer may type ``undo`` (take back the last card) or
    ``quit``; in confirm mode each read is followed by a prompt for its card (an empty line
    skips the tag; answers typed ahead wait for their reads).

    Raises:
        ReaderTimeoutError: no read, or no answer, within ``idle_timeout`` seconds.
        AbortedError: the dealer typed ``quit``, or the input ended while a card was asked for.
        RunnerError: the source ended.
    """
    inputs = Inputs(events, dialogue, clock)
    talk = RegistrationDialogue(registration)
    step = talk.opening()
    try:
        while True:
            for text in step.say:
                dialogue.say(text)
            if step.unread is not None:
                inputs.unread(step.unread)
            if step.timed_out is not None:
                raise inputs.no_read(idle_timeout, step.timed_out)
            if talk.phase is Phase.DONE:
                break
            wait = talk.wait
            item = await inputs.next(idle_timeout, read=wait.read,
                                     line=wait.line and (wait.after_end or not inputs.eof),
                                     reads_first=wait.reads_first)
            match item:
                case Timeout():
                    step = talk.handle(Trigger.TIMEOUT)
                case None:
                    step = talk.handle(Trigger.END)
                case str() as text:
                    step = talk.handle(Trigger.LINE, text)
                case CardRead(uid=uid):
                    assert uid is not None
                    step = talk.handle(Trigger.READ, uid)
    finally:
        await inputs.aclose()


async def verify_deck(verification: DeckVerification, events: AsyncIterator[SourceEvent],
                      dialogue: Dialogue, *, clock: Clock, idle_timeout: float,
                      settle: float = 1.0) -> VerificationReport:
    """Feed reads to ``verification`` until every card was seen and ``settle`` seconds pass
    without another read, or ``idle_timeout`` seconds pass without a new card of the deck (a
    reader that keeps reading the wrong deck stops too), or the dealer types ``done``; return
    the report. Each new card is counted aloud (``[12/52] Kd``), each problem read told as it
    arrives.

    Raises:
        RunnerError: the source ended.
    """
    inputs = Inputs(events, dialogue, clock)
    total = len(verification.deck.cards_by_uid)
    dialogue.say(f"pass deck {verification.deck.deck_id} over the reader "
                 "(type 'done' to finish early)")
    progress_at = clock.monotonic()
    try:
        while True:
            left = idle_timeout - (clock.monotonic() - progress_at)
            wait = settle if verification.complete else left
            item = await inputs.next(wait, line=not inputs.eof) if wait > 0 else TIMEOUT
            match item:
                case Timeout():
                    if not verification.complete:
                        dialogue.say(f"no new card of deck {verification.deck.deck_id} in "
                                     f"{idle_timeout:g} s: stopping")
                    break
                case str() as text:
                    if text.strip().lower() == "done":
                        break
                case CardRead(uid=uid):
                    assert uid is not None
                    seen = verification.read(uid)
                    if seen.verdict is Verdict.OK:
                        progress_at = clock.monotonic()
                        dialogue.say(f"[{verification.present}/{total}] {seen.card}")
                    elif seen.verdict is Verdict.DUPLICATE:
                        dialogue.say(f"duplicate: {seen.card} read {seen.count} times")
                    elif seen.verdict is Verdict.FOREIGN:
                        dialogue.say(f"foreign tag {seen.uid}: {seen.card} of deck "
                                     f"{seen.deck_id}")
                    elif seen.verdict is Verdict.UNKNOWN:
                        dialogue.say(f"unknown tag {seen.uid}")
                case _:
                    pass
    finally:
        await inputs.aclose()
    return verification.report()


async def calibrate_table(calibration: Calibration, events: AsyncIterator[SourceEvent],
                          dialogue: Dialogue, *, clock: Clock, idle_timeout: float) -> None:
    """Ask for a card on each position of ``calibration`` in turn until complete. The dealer
    may type ``skip`` (no antenna there) or ``quit``.

    Raises:
        ReaderTimeoutError: no read within ``idle_timeout`` seconds of a question.
        AbortedError: the dealer typed ``quit``.
        RunnerError: the source ended.
    """
    inputs = Inputs(events, dialogue, clock)
    try:
        while (position := calibration.current) is not None:
            asked, total = calibration.progress
            dialogue.say(f"[{asked + 1}/{total}] place a card on {position} "
                         "(or type 'skip')")
            while calibration.current == position:
                item = await inputs.next(idle_timeout, line=not inputs.eof)
                match item:
                    case Timeout():
                        raise inputs.no_read(idle_timeout, f"{position} was not calibrated")
                    case str() as text:
                        word = text.strip().lower()
                        if word == "skip":
                            calibration.skip()
                            dialogue.say(f"{position}: no antenna")
                        elif word == "quit":
                            raise AbortedError(f"stopped by the dealer at {position}")
                        elif word:
                            dialogue.say(f"unknown command {text.strip()!r} (skip, quit)")
                    case CardRead(antenna=antenna):
                        try:
                            done = calibration.read(antenna)
                        except CalibrationError as exc:
                            dialogue.say(f"refused: {exc.reason}; place the card on "
                                         f"{position}")
                            continue
                        dialogue.say(f"{done.location} = antenna {done.antenna}")
                    case _:
                        pass
    finally:
        await inputs.aclose()
