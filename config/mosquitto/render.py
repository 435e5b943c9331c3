#!/usr/bin/env python3
"""Render the broker template ``mosquitto.conf`` for one site.

The template is the production configuration with ``@NAME@`` placeholders for what differs
between sites (addresses, ports, the configuration directory). This script replaces each
placeholder with a checked value and changes no other byte, so the configuration the tests
run (rendered with free ports and loopback addresses) is the one production runs.

Usage::

    python3 render.py --set LAN_ADDRESS=192.168.40.2 OUT_FILE
    python3 render.py --set LAN_ADDRESS=127.0.0.2 --set PORT_MQTT=18830 ... OUT_FILE
    python3 render.py --template bridge.conf --set TABLE=t07 --set FLOOR_HOST=10.1.0.5 \
        --set FLOOR_PORT=8883 OUT_FILE      # the table-side bridge to the floor

Unset names take the defaults below; ``LAN_ADDRESS`` has none. Bad values, unknown names and
placeholders without a value are refused with a message, and nothing is written. Standard
library only: it runs with the system ``python3`` on the broker host.
"""

from __future__ import annotations

import argparse
import ipaddress
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

TEMPLATE = Path(__file__).with_name("mosquitto.conf")
PLACEHOLDER = re.compile(r"@([A-Z][A-Z0-9_]*)@")

DEFAULTS: dict[str, str] = {
    "CONF_DIR": "/etc/tablectl/mosquitto",
    "PORT_MQTT": "1883",
    "PORT_MQTTS": "8883",
    "PORT_MTLS": "8884",
    "PORT_WSS": "8081",
}


class RenderError(ValueError):
    """A placeholder value is missing, unknown or malformed (the message says which)."""


def _port(value: str) -> str:
    if not value.isdigit() or not 1 <= int(value) <= 65535:
        raise ValueError("a TCP port is a number from 1 to 65535")
    return str(int(value))


def _address(value: str) -> str:
    addr = ipaddress.ip_address(value)  # ValueError if malformed
    if addr.version != 4:
        raise ValueError("an IPv4 address (the listeners use socket_domain ipv4)")
    if addr.is_unspecified:
        raise ValueError("a specific interface address, not 0.0.0.0 (that is every network)")
    return str(addr)


def _table(value: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}", value):
        raise ValueError("a table id: letters, digits, _ . -, at most 64, not starting with "
                         "_ . -")
    return value


def _host(value: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9.\-]{1,253}", value):
        raise ValueError("a host name or IPv4 address")
    return value


def _directory(value: str) -> str:
    if not value.startswith("/") or any(ch.isspace() for ch in value) or "@" in value:
        raise ValueError("an absolute path without spaces")
    return value.rstrip("/") or "/"


CHECKS: dict[str, Callable[[str], str]] = {
    "CONF_DIR": _directory,
    "LAN_ADDRESS": _address,
    "PORT_MQTT": _port,
    "PORT_MQTTS": _port,
    "PORT_MTLS": _port,
    "PORT_WSS": _port,
    "TABLE": _table,
    "FLOOR_HOST": _host,
    "FLOOR_PORT": _port,
}


def render(template: str, values: Mapping[str, str]) -> str:
    """Return ``template`` with every ``@NAME@`` replaced by its checked value.

    Args:
        template: the text of ``mosquitto.conf``.
        values: site values by placeholder name; missing names take ``DEFAULTS``.

    Raises:
        RenderError: a name is unknown, a value is malformed, a placeholder has no value, or
            two listeners would get the same port.
    """
    unknown = sorted(set(values) - set(CHECKS))
    if unknown:
        raise RenderError(f"unknown placeholder(s) {unknown}; known: {sorted(CHECKS)}")
    merged = {**DEFAULTS, **values}
    checked: dict[str, str] = {}
    for name, value in merged.items():
        try:
            checked[name] = CHECKS[name](value)
        except ValueError as exc:
            raise RenderError(f"{name}={value!r}: expected {exc}") from exc
    ports = [checked[name] for name in CHECKS if name.startswith("PORT_") and name in checked]
    if len(set(ports)) != len(ports):
        raise RenderError(f"listener ports must differ, got {ports}")
    missing = sorted({m for m in PLACEHOLDER.findall(template) if m not in checked})
    if missing:
        raise RenderError(f"no value for placeholder(s) {missing}: pass --set NAME=VALUE")
    return PLACEHOLDER.sub(lambda m: checked[m.group(1)], template)


def _parse_sets(pairs: Sequence[str]) -> dict[str, str]:
    values: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep:
            raise RenderError(f"--set wants NAME=VALUE, got {pair!r}")
        values[name] = value
    return values


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: render the template to OUT_FILE; exit status 2 on a bad value."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="where to write the rendered configuration")
    parser.add_argument("--set", dest="sets", action="append", default=[],
                        metavar="NAME=VALUE", help="a placeholder value (repeatable)")
    parser.add_argument("--template", type=Path, default=TEMPLATE)
    args = parser.parse_args(argv)
    try:
        text = render(args.template.read_text(encoding="utf-8"), _parse_sets(args.sets))
    except (RenderError, OSError) as exc:
        sys.stderr.write(f"render.py: {exc}\n")
        return 2
    args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
