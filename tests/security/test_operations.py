"""Operating the broker as docs/security.md says: revoke and rotate without a restart."""

from __future__ import annotations

import subprocess
import time
import uuid

import pytest

from tests.security.conftest import Site
from tests.security.probe import WAIT, RefusedError, ok

DENIED = r"Not authorized|Bad user name or password"


def passwd(*args: str) -> None:
    subprocess.run(["mosquitto_passwd", *args], check=True, capture_output=True, timeout=30)


def test_removing_a_display_drops_its_live_connection_at_once(site: Site) -> None:
    victim = site.connect("display-01", listener="mqtts")
    bystander = site.connect("display-02", listener="mqtts")
    try:
        passwd("-D", str(site.root / "passwd"), "display-01")
        site.reload()
        assert victim.wait_disconnected()
        with pytest.raises(RefusedError, match=DENIED):
            site.connect("display-01", listener="mqtts")
        assert bystander.disconnects == 0
        assert ok(bystander.publish("poker/v1/clients/display-02/status", b"still here"))
    finally:
        victim.close()
        bystander.close()


def test_rotating_a_password_ends_sessions_that_used_the_old_one(site: Site) -> None:
    old = site.passwords["web-01"]
    live = site.connect("web-01", listener="wss")
    try:
        new = uuid.uuid4().hex
        passwd("-b", str(site.root / "passwd"), "web-01", new)
        site.reload()
        assert live.wait_disconnected()
        with pytest.raises(RefusedError, match=DENIED):
            site.connect("web-01", listener="wss", password=old)
        site.connect("web-01", listener="wss", password=new).close()
    finally:
        live.close()


def test_revoking_the_hole_card_certificate(site: Site) -> None:
    cert = site.client_cert("holecards")
    consumer = site.connect(None, listener="mtls", tls=cert)
    consumer.subscribe("secure/v1/#", "poker/v1/tables/+/events")
    controller = site.connect("controller-t01")
    try:
        before = uuid.uuid4().hex.encode()  # the control: it does get hole cards now
        assert ok(controller.publish("secure/v1/tables/t01/holecards", before))
        consumer.expect("secure/v1/tables/t01/holecards", before)
        # 1. revoke: add the certificate to the CRL ...
        ca = site.root / "ca"
        crl = site.root / "certs" / "crl.pem"
        for args in (["-revoke", str(cert.cert)], ["-gencrl", "-out", str(crl)]):
            subprocess.run(["openssl", "ca", "-batch", "-config", str(ca / "ca.cnf"), *args],
                           check=True, capture_output=True, cwd=ca, timeout=30)
        # 2. ... and, because a CRL only stops new TLS handshakes, take the CN's grants away
        acl = site.root / "acl"
        text = acl.read_text()
        block = "user holecards\ntopic read secure/v1/tables/+/holecards\n" \
                "topic read secure/v1/tables/+/state\n"
        assert block in text
        acl.write_text(text.replace(block, ""))
        site.reload()

        # the live session stops receiving hole cards as soon as the reload is done
        deadline = time.monotonic() + WAIT
        while True:
            cards, fence = uuid.uuid4().hex.encode(), uuid.uuid4().hex.encode()
            assert ok(controller.publish("secure/v1/tables/t01/holecards", cards))
            assert ok(controller.publish("poker/v1/tables/t01/events", fence))
            seen = consumer.expect("poker/v1/tables/t01/events", fence)
            if not [m for m in seen if m.payload == cards]:
                break
            consumer.clear()
            assert time.monotonic() < deadline, "the revoked consumer still gets hole cards"
        # and the certificate no longer gets in at all
        consumer.close()
        with pytest.raises(RefusedError):
            site.connect(None, listener="mtls", tls=cert)
    finally:
        consumer.close()
        controller.close()
