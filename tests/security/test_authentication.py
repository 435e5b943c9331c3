"""Who gets in, on which listener, against the production broker configuration."""

from __future__ import annotations

import pytest

from tests.security.conftest import Clients, Site
from tests.security.probe import RefusedError, Tls, ok

PASSWORD_LISTENERS = ("mqtt", "mqtts", "wss")
DENIED = r"Not authorized|Bad user name or password"  # CONNACK 0x87 / 0x86


@pytest.mark.parametrize("listener", PASSWORD_LISTENERS)
def test_a_display_logs_in_with_its_password(site: Site, listener: str) -> None:
    # the positive control for the refusals below: same path, right credential
    site.connect("display-01", listener=listener).close()


@pytest.mark.parametrize("listener", PASSWORD_LISTENERS)
def test_anonymous_is_refused(site: Site, listener: str) -> None:
    with pytest.raises(RefusedError, match=DENIED):
        site.connect(None, listener=listener)


@pytest.mark.parametrize("listener", PASSWORD_LISTENERS)
def test_a_wrong_password_is_refused(site: Site, listener: str) -> None:
    right = site.passwords["display-01"]
    with pytest.raises(RefusedError, match=DENIED):
        site.connect("display-01", listener=listener, password=right[::-1])


def test_an_unknown_user_is_refused(site: Site) -> None:
    with pytest.raises(RefusedError, match=DENIED):
        site.connect("display-99", password="whatever")


@pytest.mark.parametrize("listener", PASSWORD_LISTENERS)
def test_the_hole_card_user_cannot_log_in_with_a_password(site: Site, listener: str) -> None:
    # holecards has no password entry at all; guessing the "right" one cannot exist
    for password in ("", "holecards", site.passwords["display-01"]):
        with pytest.raises(RefusedError, match=DENIED):
            site.connect("holecards", listener=listener, password=password)


def test_plain_mqtt_is_refused_on_the_tls_listener(site: Site) -> None:
    probe = site.probe("display-01", listener="mqtts")
    plain = type(probe)(probe.host, probe.port, "display-01", site.passwords["display-01"])
    with pytest.raises(RefusedError):
        plain.connect()


def test_the_hole_card_consumer_logs_in_with_its_certificate(clients: Clients) -> None:
    holecards = clients(None, listener="mtls", tls=clients.site.client_cert("holecards"))
    assert holecards.subscribe("secure/v1/tables/+/holecards") == [1]
    controller = clients("controller-t01")
    assert ok(controller.publish("secure/v1/tables/t01/holecards", b"seat 3: As Kd"))
    # the CN became its username, and that user's ACL lets the hole cards through
    holecards.expect("secure/v1/tables/t01/holecards", b"seat 3: As Kd")


def test_the_mtls_listener_refuses_a_client_without_a_certificate(site: Site) -> None:
    with pytest.raises(RefusedError):
        site.connect("display-01", listener="mtls", tls=Tls(site.ca))


def test_the_mtls_listener_refuses_a_certificate_from_another_ca(site: Site) -> None:
    # same CN=holecards, signed by a CA the broker does not trust
    with pytest.raises(RefusedError):
        site.connect(None, listener="mtls", tls=site.client_cert("rogue-holecards"))


def test_the_mtls_listener_refuses_a_revoked_certificate(site: Site) -> None:
    # signed by the right CA, CN=holecards, but listed in crl.pem (a stolen machine's cert)
    with pytest.raises(RefusedError):
        site.connect(None, listener="mtls", tls=site.client_cert("revoked-holecards"))


def test_a_certificate_login_ignores_the_username_it_claims(site: Site) -> None:
    # the CN, not the CONNECT username, is the identity: claiming to be a controller while
    # holding the hole-card certificate gives hole-card rights only
    probe = site.connect("controller-t01", listener="mtls",
                         password=site.passwords["controller-t01"],
                         tls=site.client_cert("holecards"))
    try:
        assert probe.publish("poker/v1/tables/t01/state", b"{}", retain=True) == 0x87
        assert probe.publish("secure/v1/tables/t01/holecards", b"{}") == 0x87
    finally:
        probe.close()
