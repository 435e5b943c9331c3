"""A broker URL is checked in one place (``tablectl.config_urls.check_broker_url``) for the
config (``mqtt.url``, ``web.secure_url``) and every ``--broker``: before, ``watch --broker
mqtt://[::1`` and ``mqtt://h:99999`` ended in urlsplit's ValueError traceback, ``demo --broker
mqtt://[::1`` named the scenario file in its error, and ``config check`` passed ``mqtt://h:0``
and ``mqtt://h:1883/x`` (the port and path never reach a client)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablectl.cli import main
from tablectl.config_urls import check_broker_url

ROOT = Path(__file__).resolve().parents[2]

REFUSED = {
    "mqtt://[::1": "Invalid IPv6 URL",
    "mqtt://h:99999": "Port out of range",
    "mqtt://h:x": "Port could not be cast",
    "mqtt://h:0": "port 0 is no port",
    "mqtt://h": "no port",
    "mqtt://h:": "no port",
    "mqtt://h:1883/x": "a path, query or fragment after the port is not read",
    "mqtt://h:1883/": "a path, query or fragment after the port is not read",
    "mqtt://h:1883?x=1": "a path, query or fragment after the port is not read",
    "mqtt://u:secret@h:1883": "a user or password in the URL is not read",
    "http://h:1883": "expected mqtt://host:port or mqtts://host:port",
    "mqtt://": "expected mqtt://host:port",
}


@pytest.mark.parametrize("url", sorted(REFUSED))
def test_a_bad_broker_url_is_one_line_naming_it(url: str) -> None:
    with pytest.raises(ValueError) as info:
        check_broker_url(url)
    assert str(info.value).startswith(f"not a broker URL: {url!r} (")
    assert REFUSED[url] in str(info.value)


@pytest.mark.parametrize("url", ["mqtt://127.0.0.1:1883", "mqtts://broker.poker.local:8883",
                                 "mqtts://[::1]:8883", "mqtt://h:65535"])
def test_a_broker_url_is_taken(url: str) -> None:
    assert check_broker_url(url) == url


COMMANDS = [
    ["watch", "--table", "t1", "--timeout", "1", "--broker"],
    ["demo", "--hands", "1", "--broker"],
    ["run", "--config", "unused.toml", "--broker"],
    ["floor", "run", "--db", "postgresql://db/floor", "--broker"],
    ["tournament", "run", "t1", "--broker"],
]


@pytest.mark.parametrize("url", ["mqtt://[::1", "mqtt://h:99999", "mqtt://h:0",
                                 "mqtt://h:1883/x"])
@pytest.mark.parametrize("command", COMMANDS, ids=[c[0] + " " + c[1] for c in COMMANDS])
def test_every_broker_option_is_a_usage_error(command: list[str], url: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([*command, url])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"argument --broker: not a broker URL: {url!r}" in err
    assert "Traceback" not in err and "scenario" not in err


@pytest.mark.parametrize("url", ["mqtt://[::1", "mqtt://h:0"])
def test_the_simulated_dealer_checks_its_broker_option(url: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """``python -m hardware_sim play --broker mqtt://[::1`` ended in urlsplit's traceback."""
    from hardware_sim.__main__ import main as sim_main

    with pytest.raises(SystemExit) as info:
        sim_main(["play", str(ROOT / "config/scenarios/clean-holdem-nl.toml"), "--tcp-base",
                  "7700", "--broker", url])
    assert info.value.code == 2
    assert f"argument --broker: not a broker URL: {url!r}" in capsys.readouterr().err


@pytest.mark.parametrize("url", ["mqtt://h:0", "mqtt://127.0.0.1:1883/tables"])
def test_config_check_refuses_a_port_0_and_a_path(tmp_path: Path, url: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    text = (ROOT / "config" / "casino-holdem.toml").read_text()
    text = text.replace('"decks/', f'"{ROOT}/config/decks/').replace(
        'path = "/var/lib/tablectl/t01.sqlite"', f'path = "{tmp_path}/t01.sqlite"')
    assert 'url = "mqtt://127.0.0.1:1883"' in text
    (tmp_path / "t.toml").write_text(text.replace('url = "mqtt://127.0.0.1:1883"',
                                                  f'url = "{url}"'))
    assert main(["config", "check", str(tmp_path / "t.toml")]) == 2
    assert f"mqtt.url: not a broker URL: {url!r}" in capsys.readouterr().err
