"""The registration dialogue's table of phases: every input a phase waits for has a
transition and nothing else has one; random dialogues keep the phase and the registration in
step (a tag waits for its card exactly in NAME_CARD, DONE exactly when 52 are registered)."""

from __future__ import annotations

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from tablectl.setup.errors import AbortedError
from tablectl.setup.register import DeckRegistration, RegistrationMode
from tablectl.setup.register_dialogue import (
    TRANSITIONS,
    WAITS,
    Phase,
    RegistrationDialogue,
    Trigger,
)


def expected_triggers(phase: Phase) -> set[Trigger]:
    wait = WAITS[phase]
    out: set[Trigger] = set()
    if wait.read:
        out.add(Trigger.READ)
    if wait.line:
        out |= {Trigger.LINE, Trigger.END}
    if wait.read or wait.line:
        out.add(Trigger.TIMEOUT)
    return out


@pytest.mark.parametrize("phase", list(Phase))
def test_a_phase_has_a_transition_for_exactly_what_it_waits_for(phase: Phase) -> None:
    assert {t for p, t in TRANSITIONS if p is phase} == expected_triggers(phase)


def test_an_input_the_phase_does_not_wait_for_is_refused_and_changes_nothing() -> None:
    talk = RegistrationDialogue(DeckRegistration(mode=RegistrationMode.CONFIRM))
    talk.handle(Trigger.READ, "E0000000000001")
    assert talk.phase is Phase.NAME_CARD
    with pytest.raises(ValueError, match="does not wait for read"):
        talk.handle(Trigger.READ, "E0000000000002")
    assert talk.phase is Phase.NAME_CARD
    assert talk.registration.pending == "E0000000000001"


UIDS = [f"E0{i:012X}" for i in range(1, 60)]
LINES = ["", "undo", "quit", "As", "2c", "Kd", "7h", "nonsense", " Td "]


class DialogueMachine(RuleBasedStateMachine):
    """Random inputs, each one the current phase waits for."""

    talk: RegistrationDialogue
    ended: bool

    @initialize(mode=st.sampled_from(list(RegistrationMode)))
    def start(self, mode: RegistrationMode) -> None:
        self.talk = RegistrationDialogue(DeckRegistration(mode=mode))
        self.ended = False
        self.talk.opening()

    def feed(self, trigger: Trigger, text: str = "") -> None:
        if self.ended or trigger not in expected_triggers(self.talk.phase):
            return
        try:
            step = self.talk.handle(trigger, text)
        except AbortedError:
            self.ended = True
            return
        if step.timed_out is not None:
            self.ended = True

    @rule(i=st.integers(0, len(UIDS) - 1))
    def read(self, i: int) -> None:
        self.feed(Trigger.READ, UIDS[i])

    @rule(line=st.sampled_from(LINES))
    def line(self, line: str) -> None:
        self.feed(Trigger.LINE, line)

    @rule()
    def end(self) -> None:
        self.feed(Trigger.END)

    @rule()
    def timeout(self) -> None:
        self.feed(Trigger.TIMEOUT)

    @invariant()
    def phase_and_registration_agree(self) -> None:
        reg = self.talk.registration
        phase = self.talk.phase
        assert (reg.pending is not None) == (phase is Phase.NAME_CARD and not self.ended)
        assert (phase is Phase.DONE) == reg.complete
        if reg.mode is RegistrationMode.ORDERED:
            assert phase in (Phase.NEXT_CARD, Phase.DONE)
        else:
            assert phase is not Phase.NEXT_CARD


TestDialogueMachine = DialogueMachine.TestCase
TestDialogueMachine.settings = settings(max_examples=60, stateful_step_count=60, deadline=None)
