"""What each role may read and write, against the production broker configuration and ACL.

Most checks use a fence instead of a wait: after the forbidden message, the same publisher
sends an allowed one; once the observer has the allowed one, the forbidden one would already
have arrived if the broker had let it through (one publisher's messages reach a subscriber
in order). Each test makes its payloads unique, so retained messages of earlier tests in the
module cannot be mistaken for this test's.
"""

from __future__ import annotations

import uuid

import pytest
from paho.mqtt.packettypes import PacketTypes

from tests.security.conftest import Clients
from tests.security.probe import Probe, Received, Will, ok, prop, properties

NOT_AUTHORIZED = 0x87
T01 = "poker/v1/tables/t01"
T02 = "poker/v1/tables/t02"
SECURE_T01 = "secure/v1/tables/t01"
GREEDY_FILTERS = ("#", "secure/#", f"{SECURE_T01}/holecards", "poker/v1/replies/#",
                  "poker/v1/tables/+/cmd/#", "$SYS/#")
DISPLAYS = [("display-01", "mqtt"), ("display-02", "mqtts"), ("web-01", "wss")]


def tag() -> bytes:
    return uuid.uuid4().hex.encode()


def topics(msgs: list[Received]) -> list[str]:
    return [m.topic for m in msgs]


@pytest.mark.parametrize(("display", "listener"), DISPLAYS)
def test_a_display_gets_public_topics_and_no_live_secure_message(
        clients: Clients, display: str, listener: str) -> None:
    holecards = clients(None, listener="mtls", tls=clients.site.client_cert("holecards"))
    holecards.subscribe("secure/v1/#")
    viewer = clients(display, listener=listener)
    viewer.subscribe(*GREEDY_FILTERS)  # acl_file accepts any filter and filters delivery
    controller = clients("controller-t01")
    cards, state, odds, fence = tag(), tag(), tag(), tag()
    assert ok(controller.publish(f"{SECURE_T01}/holecards", cards))
    assert ok(controller.publish(f"{SECURE_T01}/state", state))
    assert ok(controller.publish(f"{SECURE_T01}/odds", odds))
    assert ok(controller.publish(f"{T01}/events", fence))

    seen = viewer.expect(f"{T01}/events", fence)
    assert not [t for t in topics(seen) if not t.startswith("poker/v1/tables/")]
    assert all(x not in m.payload for m in seen for x in (cards, state, odds))
    # the positive control: the same messages did reach the certificate user
    holecards.expect(f"{SECURE_T01}/holecards", cards)
    holecards.expect(f"{SECURE_T01}/state", state)
    holecards.expect(f"{SECURE_T01}/odds", odds)


@pytest.mark.parametrize(("display", "listener"), DISPLAYS)
def test_a_retained_secure_message_never_reaches_a_display(
        clients: Clients, display: str, listener: str) -> None:
    controller = clients("controller-t01")
    secret, public, fence = tag(), tag(), tag()
    # the controller must never retain secure data; if it did by mistake, the ACL still holds
    assert ok(controller.publish(f"{SECURE_T01}/state", secret, retain=True))
    assert ok(controller.publish(f"{T01}/state", public, retain=True))
    try:
        viewer = clients(display, listener=listener)
        viewer.subscribe(*GREEDY_FILTERS)
        assert ok(controller.publish(f"{T01}/events", fence))  # after the retained ones
        seen = viewer.expect(f"{T01}/events", fence)
        assert (f"{T01}/state", public) in [(m.topic, m.payload) for m in seen if m.retain]
        assert not any(m.topic.startswith("secure/") or m.payload == secret for m in seen)
        holecards = clients(None, listener="mtls", tls=clients.site.client_cert("holecards"))
        holecards.subscribe("secure/v1/#")
        assert holecards.expect(f"{SECURE_T01}/state", secret)[-1].retain
    finally:
        controller.publish(f"{SECURE_T01}/state", b"", retain=True)  # clear it


@pytest.mark.parametrize("mqtt5", [True, False], ids=["mqtt5", "mqtt311"])
def test_a_display_cannot_publish_commands_or_fake_table_data(
        clients: Clients, mqtt5: bool) -> None:
    controller = clients("controller-t01")
    controller.subscribe(f"{T01}/cmd/#")
    real = tag()
    assert ok(controller.publish(f"{T01}/state", real, retain=True))
    audit = clients("audit-01")
    audit.subscribe("poker/v1/tables/+/cmd/#", "poker/v1/tables/+/state",
                    "poker/v1/tables/+/status", "poker/v1/tables/+/events",
                    "poker/v1/clients/+/status")
    display = clients("display-01", mqtt5=mqtt5)
    fake, fence = tag(), tag()
    acks = [display.publish(f"{T01}/cmd/void_hand/display-01", fake),
            display.publish(f"{T01}/cmd/void_hand/dealer-t01", fake),
            display.publish(f"{T01}/state", fake, retain=True),
            display.publish(f"{T01}/events", fake),
            display.publish(f"{T01}/status", fake, retain=True),
            display.publish(f"{SECURE_T01}/holecards", fake),
            display.publish("poker/v1/replies/dealer-t01/console", fake),
            display.publish("poker/v1/clients/display-02/status", fake)]
    # MQTT 5 reports the refusal; MQTT 3.1.1 cannot, and the broker drops it silently
    assert acks == [NOT_AUTHORIZED if mqtt5 else 0] * len(acks)
    assert ok(display.publish("poker/v1/clients/display-01/status", fence))  # its own: allowed

    seen = audit.expect("poker/v1/clients/display-01/status", fence)
    assert not [m for m in seen if m.payload == fake]
    assert not [m for m in controller.received if m.payload == fake]
    newcomer = clients("display-02")
    newcomer.subscribe(f"{T01}/state")
    assert newcomer.expect(f"{T01}/state")[-1].payload == real  # the snapshot is untouched


@pytest.mark.parametrize("dealer", ["dealer-t01", "webdealer-t01"])
def test_a_dealer_commands_its_own_table_and_not_another(clients: Clients, dealer: str) -> None:
    own, other = clients("controller-t01"), clients("controller-t02")
    own.subscribe(f"{T01}/cmd/#")
    other.subscribe(f"{T02}/cmd/#")
    audit = clients("audit-01")
    audit.subscribe("poker/v1/tables/+/cmd/#")
    console = clients(dealer, listener="mqtts")
    wrong, right = tag(), tag()
    assert console.publish(f"{T02}/cmd/void_hand/{dealer}", wrong) == NOT_AUTHORIZED
    # nor may it send under another name: the last level is the sender, pinned by the ACL
    for other_user in ("pit-01", "dealer-t02", "dealer-t01" if dealer != "dealer-t01" else "x"):
        assert console.publish(f"{T01}/cmd/void_hand/{other_user}", wrong) == NOT_AUTHORIZED
    assert console.publish(f"{T01}/cmd/void_hand", wrong) == NOT_AUTHORIZED  # no sender level
    assert ok(console.publish(f"{T01}/cmd/start_hand/{dealer}", right))
    seen = audit.expect(f"{T01}/cmd/start_hand/{dealer}", right)
    assert not [m for m in seen if m.payload == wrong]
    own.expect(f"{T01}/cmd/start_hand/{dealer}", right)
    assert not [m for m in other.received if m.payload == wrong]


def test_the_pit_console_commands_every_table_and_a_controller_reads_only_its_own(
        clients: Clients) -> None:
    t01, t02 = clients("controller-t01"), clients("controller-t02")
    t01.subscribe("poker/v1/tables/+/cmd/#")  # wider than its grant
    t02.subscribe(f"{T02}/cmd/#")
    pit = clients("pit-01", listener="mqtts")
    first, second = tag(), tag()
    assert ok(pit.publish(f"{T01}/cmd/pause/pit-01", first))
    assert ok(pit.publish(f"{T02}/cmd/pause/pit-01", second))
    t02.expect(f"{T02}/cmd/pause/pit-01", second)
    t01.expect(f"{T01}/cmd/pause/pit-01", first)
    # controller-t01 may not read t02's commands nor write t02's state or secure feed
    assert controller_cannot_touch_t02(t01)
    assert [m.payload for m in t01.received] == [first]


def test_the_audit_consumer_may_ask_for_a_replay_and_nothing_else(clients: Clients) -> None:
    controller = clients("controller-t01")
    controller.subscribe(f"{T01}/cmd/#")
    audit = clients("audit-01", listener="mqtts")
    ask = tag()
    assert audit.publish(f"{T01}/cmd/void_hand/audit-01", ask) == NOT_AUTHORIZED
    assert audit.publish(f"{T01}/state", ask, retain=True) == NOT_AUTHORIZED
    assert ok(audit.publish(f"{T01}/cmd/replay/audit-01", ask))
    assert [m.topic for m in controller.expect(f"{T01}/cmd/replay/audit-01", ask)] == [
        f"{T01}/cmd/replay/audit-01"]


def controller_cannot_touch_t02(controller: Probe) -> bool:
    return (controller.publish(f"{T02}/state", b"{}", retain=True) == NOT_AUTHORIZED
            and controller.publish("secure/v1/tables/t02/holecards", b"x") == NOT_AUTHORIZED
            and controller.publish(f"{T01}/cmd/void_hand/controller-t01", b"x")
            == NOT_AUTHORIZED)


def test_a_command_gets_its_reply_and_nobody_else_reads_it(clients: Clients) -> None:
    controller = clients("controller-t01")
    controller.subscribe(f"{T01}/cmd/#")
    dealer = clients("dealer-t01", listener="mqtts")
    dealer.subscribe("poker/v1/replies/dealer-t01/#")
    snoops = [clients("display-01"), clients("dealer-t02", listener="mqtts"),
              clients("web-01", listener="wss")]
    for snoop in snoops:
        snoop.subscribe("poker/v1/replies/#", "#")

    request_id = tag()
    props = properties(PacketTypes.PUBLISH, ResponseTopic="poker/v1/replies/dealer-t01/console",
                       CorrelationData=request_id, MessageExpiryInterval=10)
    assert ok(dealer.publish(f"{T01}/cmd/start_hand/dealer-t01", b'{"id":"1"}',
                             properties=props))
    command = controller.expect(f"{T01}/cmd/start_hand/dealer-t01")[-1]
    response_topic = prop(command.properties, "ResponseTopic")
    assert response_topic == "poker/v1/replies/dealer-t01/console"
    reply_props = properties(PacketTypes.PUBLISH,
                             CorrelationData=prop(command.properties, "CorrelationData"))
    secret_reply, fence = b'{"status":"ok","hand":' + tag() + b"}", tag()
    assert ok(controller.publish(response_topic, secret_reply, properties=reply_props))
    assert ok(controller.publish(f"{T01}/events", fence))

    reply = dealer.expect("poker/v1/replies/dealer-t01/console", secret_reply)[-1]
    assert prop(reply.properties, "CorrelationData") == request_id
    for snoop in snoops:
        assert not [m for m in snoop.expect(f"{T01}/events", fence) if m.payload == secret_reply]
    # nor can another console forge a reply into dealer-t01's inbox
    forged = tag()
    assert snoops[1].publish("poker/v1/replies/dealer-t01/console", forged) == NOT_AUTHORIZED
    # dealer-t02 can write nothing dealer-t01 reads, so no fence exists here: bounded wait
    assert not [m for m in dealer.quiet_for(0.2) if m.payload == forged]


def test_a_will_message_cannot_bypass_the_acl(clients: Clients) -> None:
    controller = clients("controller-t01")
    controller.subscribe(f"{T01}/cmd/#")
    online = b'{"state":"online","epoch":' + tag() + b"}"
    assert ok(controller.publish(f"{T01}/status", online, retain=True))
    audit = clients("audit-01")
    audit.subscribe("poker/v1/tables/+/cmd/#", "poker/v1/tables/+/status",
                    "poker/v1/clients/+/status")
    spoof_status = clients("display-01", will=Will(f"{T01}/status", b'{"state":"offline"}',
                                                   retain=True))
    spoof_command = clients("display-02", listener="mqtts",
                            will=Will(f"{T01}/cmd/void_hand/display-02", b'{"id":"w"}'))
    honest = clients("web-01", listener="wss",
                     will=Will("poker/v1/clients/web-01/status", b"offline", retain=True))
    spoof_status.crash()
    spoof_command.crash()
    honest.crash()
    audit.expect("poker/v1/clients/web-01/status", b"offline")  # wills do fire
    # the spoofed wills were dropped when they fired (no fence across clients: bounded wait)
    late = audit.quiet_for(0.3)
    assert not [m for m in late if m.topic.startswith(f"{T01}/cmd/")]
    assert not [m for m in late if m.topic == f"{T01}/status" and b"offline" in m.payload]
    assert not [m for m in controller.received if m.topic.startswith(f"{T01}/cmd/")]
    newcomer = clients("display-01")
    newcomer.subscribe(f"{T01}/status")
    assert newcomer.expect(f"{T01}/status")[-1].payload == online


@pytest.mark.parametrize("listener", ["mqtt", "mqtts", "wss", "mtls"])
def test_no_client_can_take_over_the_controllers_client_id(
        clients: Clients, listener: str) -> None:
    controller = clients("controller-t01", client_id="controller-t01")
    if listener == "mtls":
        intruder = clients(None, listener="mtls", tls=clients.site.client_cert("holecards"),
                           client_id="controller-t01")
    else:
        intruder = clients("display-01", listener=listener, client_id="controller-t01")
    assert intruder.connack is not None and not intruder.connack.is_failure
    # the controller is still connected: its publish is acknowledged, nobody kicked it
    assert ok(controller.publish(f"{T01}/events", tag()))
    assert controller.disconnects == 0


def test_the_takeover_check_can_see_a_kick(clients: Clients) -> None:
    # the control for the test above: the same user logging in again does take the id over,
    # (which is why every device has its own credential), and the probe notices
    first = clients("controller-t01")
    clients("controller-t01", listener="mqtts")
    assert first.wait_disconnected()
    assert first.disconnects == 1


def test_an_oversized_packet_disconnects_its_sender(clients: Clients) -> None:
    audit = clients("audit-01")
    audit.subscribe(f"{T01}/events")
    controller = clients("controller-t01")
    big = b"x" * 300_000  # above max_packet_size 262144
    controller._client.publish(f"{T01}/events", big, qos=1)
    assert controller.wait_disconnected()
    fine = clients("controller-t01")
    fence = b"y" * 200_000  # below the limit: carried
    assert ok(fine.publish(f"{T01}/events", fence))
    assert not [m for m in audit.expect(f"{T01}/events", fence) if m.payload == big]


def test_the_tournament_service_and_its_tables(clients: Clients) -> None:
    """The shipped grants of docs/tournament.md §6-8: the service of tournament ``daily``
    publishes its clock, which every user may read; a table reports to the service on its
    own ``tournament`` topic only, and only the service reads those reports."""
    clock_topic = "poker/v1/tournaments/daily/clock"
    service = clients("tournament-daily")
    service.subscribe("poker/v1/tables/+/tournament")
    t01, t02 = clients("controller-t01"), clients("controller-t02")
    t01.subscribe("poker/v1/tournaments/+/clock")
    display = clients("display-01")
    display.subscribe("poker/v1/tournaments/+/clock", "poker/v1/tables/+/tournament",
                      f"{T01}/events")
    clock, report, fence = tag(), tag(), tag()
    assert ok(service.publish(clock_topic, clock))
    t01.expect(clock_topic, clock)
    display.expect(clock_topic, clock)
    # nobody else may publish a clock, and the service nothing but its own clock
    for other in (display, t01):
        assert other.publish(clock_topic, b"{}") == NOT_AUTHORIZED
    assert service.publish("poker/v1/tournaments/other/clock", b"{}") == NOT_AUTHORIZED
    assert service.publish(f"{T01}/state", b"{}") == NOT_AUTHORIZED
    # a table's reports: its own topic only, read by the service and nobody else
    assert t02.publish(f"{T01}/tournament", b"forged") == NOT_AUTHORIZED
    assert display.publish(f"{T01}/tournament", b"forged") == NOT_AUTHORIZED
    assert ok(t01.publish(f"{T01}/tournament", report))
    assert ok(t01.publish(f"{T01}/events", fence))
    seen = service.expect(f"{T01}/tournament", report)
    assert [m.payload for m in seen] == [report]
    shown = display.expect(f"{T01}/events", fence)
    assert not [m for m in shown if m.payload == report or m.payload == b"forged"]
