"""The production template itself, how it is rendered, and where the live broker listens."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.security.conftest import CONFIG, Site, load_render

TEMPLATE = (CONFIG / "mosquitto.conf").read_text()


def sections(text: str) -> tuple[list[str], list[list[str]]]:
    """(global directives, one list of directives per listener), whitespace normalised."""
    global_part: list[str] = []
    listeners: list[list[str]] = []
    for raw in text.splitlines():
        line = " ".join(raw.split("#", 1)[0].split()) if not raw.lstrip().startswith("#") else ""
        if not line:
            continue
        if line.startswith("listener "):
            listeners.append([])
        (listeners[-1] if listeners else global_part).append(line)
    return global_part, listeners


def test_the_template_has_the_security_settings_that_matter() -> None:
    glob, blocks = sections(TEMPLATE)
    for line in ("per_listener_settings false", "allow_anonymous false", "persistence false",
                 "password_file @CONF_DIR@/passwd", "acl_file @CONF_DIR@/acl"):
        assert line in glob
    assert not [line for line in glob if line.startswith(("include_dir", "listener", "port "))]
    assert [b[0] for b in blocks] == ["listener @PORT_MQTT@ 127.0.0.1",
                                      "listener @PORT_MQTTS@ @LAN_ADDRESS@",
                                      "listener @PORT_MTLS@ @LAN_ADDRESS@",
                                      "listener @PORT_WSS@ @LAN_ADDRESS@"]
    for block in blocks:  # the settings that are per listener, on every listener
        assert "use_username_as_clientid true" in block
        assert "socket_domain ipv4" in block
    for block in blocks[1:]:
        assert "tls_version tlsv1.2" in block
        assert "certfile @CONF_DIR@/certs/server.crt" in block
    mtls = blocks[2]
    assert {"require_certificate true", "use_identity_as_username true",
            "crlfile @CONF_DIR@/certs/crl.pem"} <= set(mtls)
    assert "protocol websockets" in blocks[3]


def test_rendering_changes_only_the_placeholders() -> None:
    render = load_render()
    values = {"CONF_DIR": "/srv/x", "LAN_ADDRESS": "10.1.2.3", "PORT_MQTT": "1",
              "PORT_MQTTS": "2", "PORT_MTLS": "3", "PORT_WSS": "4"}
    out = render.render(TEMPLATE, values)
    assert "@" not in re.sub(r"#.*", "", out)
    # undo the substitution by hand: every other byte is the template's
    pattern = re.escape(TEMPLATE)
    for name, value in values.items():
        pattern = pattern.replace(re.escape(f"@{name}@"), re.escape(value))
    assert re.fullmatch(pattern, out)


@pytest.mark.parametrize(("values", "message"), [
    ({}, "LAN_ADDRESS"),
    ({"LAN_ADDRESS": "0.0.0.0"}, "not 0.0.0.0"),
    ({"LAN_ADDRESS": "::1"}, "IPv4"),
    ({"LAN_ADDRESS": "10.0.0.1", "PORT_WSS": "70000"}, "PORT_WSS"),
    ({"LAN_ADDRESS": "10.0.0.1", "PORT_WSS": "1883"}, "must differ"),
    ({"LAN_ADDRESS": "10.0.0.1", "CONF_DIR": "relative/dir"}, "absolute"),
    ({"LAN_ADDRESS": "10.0.0.1", "PORT_HTTP": "80"}, "unknown"),
])
def test_render_refuses_bad_values(values: dict[str, str], message: str) -> None:
    render = load_render()
    with pytest.raises(render.RenderError, match=message):
        render.render(TEMPLATE, values)


def test_the_render_script_writes_nothing_on_a_bad_value(tmp_path: Path) -> None:
    render = load_render()
    out = tmp_path / "mosquitto.conf"
    assert render.main(["--set", "LAN_ADDRESS=nonsense", str(out)]) == 2
    assert not out.exists()
    assert render.main(["--set", "LAN_ADDRESS=192.168.40.2", str(out)]) == 0
    assert "listener 8081 192.168.40.2" in out.read_text()  # the documented defaults


def listening(port: int) -> set[str]:
    """Addresses with a TCP socket in LISTEN state on ``port`` (IPv4 and IPv6 tables)."""
    found: set[str] = set()
    for table, width in (("/proc/net/tcp", 8), ("/proc/net/tcp6", 32)):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except FileNotFoundError:
            continue
        for row in rows:
            fields = row.split()
            addr_hex, port_hex = fields[1].split(":")
            if int(port_hex, 16) != port or fields[3] != "0A":  # 0A = LISTEN
                continue
            raw = bytes.fromhex(addr_hex)
            if width == 8:
                found.add(".".join(str(b) for b in raw[::-1]))
            else:  # four little-endian 32-bit words
                words = [raw[i:i + 4][::-1] for i in range(0, 16, 4)]
                found.add("v6:" + b"".join(words).hex())
    return found


def test_every_listener_binds_only_its_configured_address(site: Site) -> None:
    # the websockets listener ignores its address on 2.0.x unless socket_domain ipv4 is set,
    # and then listens on the IPv6 wildcard, i.e. on every interface
    assert listening(site.ports["mqtt"]) == {"127.0.0.1"}
    for name in ("mqtts", "mtls", "wss"):
        assert listening(site.ports[name]) == {site.lan}, name
