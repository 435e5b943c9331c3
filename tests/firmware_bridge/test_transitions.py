"""The session's state table, driven at random (h2's state-machine tests).

A :class:`RuleBasedStateMachine` drives one host session and one device session with every
trigger there is (connect, a lost transport, timers, HELLO and HELLO_ACK right and wrong,
frames while down) in whatever state they happen to be, and checks after each step that the
state moved only along :data:`~firmware_bridge.transitions.TRANSITIONS`: exactly where the
table sends the trigger, unchanged where the table has no such move (ignored), or with
:class:`LocalProtocolError` and no change where a call is refused.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from firmware_bridge.errors import LocalProtocolError
from firmware_bridge.frames import encode_frame
from firmware_bridge.messages import (
    Caps,
    DeviceKind,
    Heartbeat,
    Hello,
    HelloAck,
    Message,
    TagSeen,
    Tech,
    encode_message,
)
from firmware_bridge.session import Session
from firmware_bridge.session_config import DeviceIdentity, LinkEnd
from firmware_bridge.session_events import LinkUp, VersionMismatch
from firmware_bridge.transitions import TRANSITIONS, LinkState, Trigger, next_state

HOST_TRIGGERS = frozenset({Trigger.CONNECT, Trigger.HELLO_ACK_OK, Trigger.HELLO_ACK_BAD,
                           Trigger.GAVE_UP, Trigger.SILENT, Trigger.LOST})
DEVICE_TRIGGERS = frozenset({Trigger.ANNOUNCE, Trigger.HELLO_OK, Trigger.HELLO_BAD,
                             Trigger.RESUMED, Trigger.SILENT, Trigger.LOST})


def wire(message: Message) -> bytes:
    return encode_frame(encode_message(message))


def hello_ack(nonce: int, boot_id: int, major: int = 1) -> HelloAck:
    return HelloAck(nonce, boot_id, 1, 0, DeviceKind.SHOE, 1, Caps(0), b"", "x",
                    proto_major=major)


def one_step(old: LinkState, new: LinkState, triggers: frozenset[Trigger]) -> bool:
    """``new`` is ``old`` or one move of the table from ``old`` by one of ``triggers``."""
    return new is old or any(next_state(old, t) is new for t in triggers)


def test_the_table_only_names_states_and_triggers() -> None:
    for (state, trigger), target in TRANSITIONS.items():
        assert state in LinkState and trigger in Trigger and target in LinkState
    assert set(Trigger) == HOST_TRIGGERS | DEVICE_TRIGGERS


@given(state=st.sampled_from(LinkState), trigger=st.sampled_from(Trigger))
def test_every_pair_is_a_move_or_none(state: LinkState, trigger: Trigger) -> None:
    assert next_state(state, trigger) is TRANSITIONS.get((state, trigger))


@pytest.mark.parametrize("role", list(LinkEnd))
def test_state_is_read_only(role: LinkEnd) -> None:
    identity = DeviceIdentity(DeviceKind.SHOE, 1, Caps(0), 7)
    session = Session(role, now=0.0, identity=identity)
    with pytest.raises(AttributeError):
        session.state = LinkState.UP  # type: ignore[misc]


class SessionTable(RuleBasedStateMachine):
    """One host and one device session, each fed its own triggers (not connected together:
    every byte either receives is made up by the rules)."""

    def __init__(self) -> None:
        super().__init__()
        self.now = 0.0
        self.nonces = iter(range(1, 1 << 30))
        self.nonce = 0
        self.host = Session(LinkEnd.HOST, now=0.0, nonce=self._next_nonce)
        self.device = Session(LinkEnd.DEVICE, now=0.0,
                              identity=DeviceIdentity(DeviceKind.SHOE, 1, Caps(0), 0xB0))
        self.boot = 0x100

    def _next_nonce(self) -> int:
        self.nonce = next(self.nonces)
        return self.nonce

    def _check(self, session: Session, action: Callable[[], object],
               trigger: Trigger | None, others: frozenset[Trigger] = frozenset()) -> object:
        """Run ``action``; the state must end where ``trigger`` leads by the table (or, when
        it is not a move there, unchanged), or one move by one of ``others``."""
        old = session.state
        result = action()
        expected = old if trigger is None else (next_state(old, trigger) or old)
        assert session.state is expected or one_step(old, session.state, others), \
            (old, trigger, session.state)
        return result

    # ---- host ----------------------------------------------------------------------------

    @rule()
    def host_connect(self) -> None:
        old = self.host.state
        if next_state(old, Trigger.CONNECT) is None:
            with pytest.raises(LocalProtocolError):
                self.host.connect(self.now)
            assert self.host.state is old           # refused: nothing changed
        else:
            self._check(self.host, lambda: self.host.connect(self.now), Trigger.CONNECT)
        self.host.data_to_send()

    @rule()
    def host_link_lost(self) -> None:
        self._check(self.host, lambda: self.host.link_lost(self.now), Trigger.LOST)

    @precondition(lambda self: self.nonce != 0)
    @rule(major=st.sampled_from([1, 1, 2]))
    def host_gets_its_hello_ack(self, major: int) -> None:
        """The HELLO_ACK echoing the last HELLO: a move only while the host waits for it."""
        old = self.host.state
        trigger = Trigger.HELLO_ACK_OK if major == 1 else Trigger.HELLO_ACK_BAD
        events = self._check(self.host, lambda: self.host.receive_data(
            wire(hello_ack(self.nonce, self.boot, major)), self.now), trigger)
        assert isinstance(events, list)
        said = [e for e in events if isinstance(e, LinkUp | VersionMismatch)]
        if old is LinkState.CONNECTING:
            assert [type(e) for e in said] == [LinkUp if major == 1 else VersionMismatch]
        else:
            assert said == []

    @rule()
    def host_gets_a_stale_hello_ack(self) -> None:
        stale = hello_ack((self.nonce + 1) & 0xFFFFFFFF or 1, self.boot)
        self._check(self.host, lambda: self.host.receive_data(wire(stale), self.now), None)

    @rule()
    def device_reboots_under_the_host(self) -> None:
        """An unsolicited HELLO_ACK with a boot id the host does not know: a new handshake
        (CONNECT), except in FAILED, which only its owner leaves (with a new session): bytes
        from a device never raise out of receive_data (issue 25)."""
        self.boot += 1
        old = self.host.state
        data = wire(hello_ack(0, self.boot))
        if old in (LinkState.CONNECTING, LinkState.FAILED):
            self._check(self.host, lambda: self.host.receive_data(data, self.now), None)
        else:
            self._check(self.host, lambda: self.host.receive_data(data, self.now),
                        Trigger.CONNECT)

    @rule(dt=st.sampled_from([0.01, 0.3, 0.6, 1.1, 3.5]))
    def host_time_passes(self, dt: float) -> None:
        self.now += dt
        self._check(self.host, lambda: self.host.poll(self.now), None,
                    frozenset({Trigger.GAVE_UP, Trigger.SILENT}))
        self.host.data_to_send()

    @rule()
    def host_hears_nothing_for_a_while(self) -> None:
        """Several timer runs in a row: a handshake gives up, a link goes silent."""
        for _ in range(6):
            self.host_time_passes(self.host.config.hello_retry + 0.01)

    @rule()
    def host_hears_a_heartbeat(self) -> None:
        self._check(self.host, lambda: self.host.receive_data(wire(Heartbeat()), self.now),
                    None)

    # ---- device --------------------------------------------------------------------------

    @rule()
    def device_announces(self) -> None:
        old = self.device.state
        if next_state(old, Trigger.ANNOUNCE) is None:
            with pytest.raises(LocalProtocolError):
                self.device.connect(self.now)
            assert self.device.state is old
        else:
            self._check(self.device, lambda: self.device.connect(self.now), Trigger.ANNOUNCE)
        self.device.data_to_send()

    @rule(major=st.sampled_from([1, 1, 3]), nonce=st.integers(1, 0xFFFFFFFF))
    def device_gets_a_hello(self, major: int, nonce: int) -> None:
        trigger = Trigger.HELLO_OK if major == 1 else Trigger.HELLO_BAD
        self._check(self.device, lambda: self.device.receive_data(
            wire(Hello(nonce, proto_major=major)), self.now), trigger)
        self.device.data_to_send()

    @rule()
    def device_hears_a_heartbeat(self) -> None:
        self._check(self.device, lambda: self.device.receive_data(wire(Heartbeat()),
                                                                  self.now), Trigger.RESUMED)

    @rule()
    def device_link_lost(self) -> None:
        self._check(self.device, lambda: self.device.link_lost(self.now), Trigger.LOST)

    @rule(dt=st.sampled_from([0.01, 0.3, 1.1, 3.5]))
    def device_time_passes(self, dt: float) -> None:
        self.now += dt
        self._check(self.device, lambda: self.device.poll(self.now), None,
                    frozenset({Trigger.SILENT}))
        self.device.data_to_send()

    @rule()
    def device_sends_a_read(self) -> None:
        """Queueing never moves the state (a full queue refuses the read)."""
        def send() -> None:
            if self.device.can_send():
                self.device.send(TagSeen(0, Tech.ISO14443A, 1, 1, 0, b"\x01" * 7), self.now)
        self._check(self.device, send, None)

    # ---- invariants ----------------------------------------------------------------------

    @invariant()
    def host_stays_on_the_host_side_of_the_table(self) -> None:
        assert self.host.state in LinkState
        # a timer runs exactly while a handshake waits or the link is up
        running = self.host.next_deadline() is not None
        assert running == (self.host.state in (LinkState.CONNECTING, LinkState.UP))
        if self.host.state is LinkState.UP:
            assert self.host.peer is not None

    @invariant()
    def device_never_connects(self) -> None:
        assert self.device.state is not LinkState.CONNECTING   # only the host sends HELLO
        running = self.device.next_deadline() is not None
        assert running == (self.device.state is LinkState.UP)
        assert self.device.queued <= self.device.config.queue_limit + 4


TestSessionTable = SessionTable.TestCase
TestSessionTable.settings = settings(max_examples=150, stateful_step_count=40, deadline=None,
                                     suppress_health_check=[HealthCheck.too_slow])
