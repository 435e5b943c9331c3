"""Hole cards never reach the broker's disk, and nothing secure survives a broker restart."""

from __future__ import annotations

import uuid
from pathlib import Path

from tests.security.conftest import Site
from tests.security.probe import Probe, ok

SECURE = "secure/v1/tables/t01"


def files_containing(root: Path, marker: bytes) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and marker in p.read_bytes()]


def holecards(site: Site) -> Probe:
    return site.probe(None, listener="mtls", tls=site.client_cert("holecards"))


def test_hole_cards_never_reach_disk_and_no_session_outlives_a_restart(site: Site) -> None:
    queued_early, queued_late, retained = (uuid.uuid4().hex.encode() for _ in range(3))
    consumer = holecards(site).connect(clean_start=False, session_expiry=3600)
    consumer.subscribe(f"{SECURE}/#")
    consumer.close()  # a persistent session: the broker queues QoS 1 messages for it
    controller = site.connect("controller-t01")
    assert ok(controller.publish(f"{SECURE}/holecards", queued_early))

    # control: the broker does hold hole cards for an offline consumer, in memory
    consumer = holecards(site).connect(clean_start=False, session_expiry=3600)
    assert consumer.session_present
    consumer.expect(f"{SECURE}/holecards", queued_early)
    consumer.close()
    assert ok(controller.publish(f"{SECURE}/holecards", queued_late))  # queued at shutdown
    assert ok(controller.publish(f"{SECURE}/state", retained, retain=True))  # a mistake
    controller.close()

    site.broker.stop()  # SIGTERM: a persistent broker would write mosquitto.db now
    for marker in (queued_early, queued_late, retained):
        assert files_containing(site.root, marker) == []
    site.start()

    consumer = holecards(site).connect(clean_start=False, session_expiry=3600)
    try:
        assert not consumer.session_present
        consumer.subscribe(f"{SECURE}/#")
        fence = uuid.uuid4().hex.encode()
        controller = site.connect("controller-t01")
        assert ok(controller.publish(f"{SECURE}/holecards", fence))
        seen = consumer.expect(f"{SECURE}/holecards", fence)
        assert [m.payload for m in seen] == [fence]  # neither the queue nor the retained one
        controller.close()
    finally:
        consumer.close()
