"""The shipped systemd units pass ``systemd-analyze verify`` (Debian's systemd package; .ci/test
installs it when it is missing and it runs as root), and the udev rules are well formed."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ops.helpers import ROOT

UNITS = ROOT / "config" / "systemd"
ANALYZE = shutil.which("systemd-analyze")
needs_analyze = pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze is not installed "
                                   "(Debian: apt-get install systemd)")


def _verify(tmp_path: Path, unit: Path,
            text: str | None = None) -> subprocess.CompletedProcess[str]:
    """Verify ``unit`` as instance t01, with ExecStart on this checkout's tablectl (the
    installed path, /opt/tablectl, is not on a test machine)."""
    assert ANALYZE is not None
    exe = str(Path(sys.executable).with_name("tablectl"))
    body = (text or unit.read_text()).replace("/opt/tablectl/.venv/bin/tablectl", exe)
    target = tmp_path / unit.name.replace("@.", "@t01.")
    target.write_text(body)
    return subprocess.run([ANALYZE, "verify", target.name], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60, check=False)


@needs_analyze
@pytest.mark.parametrize("unit", sorted(UNITS.glob("*.service")), ids=lambda p: p.name)
def test_unit_verifies_clean(tmp_path: Path, unit: Path) -> None:
    out = _verify(tmp_path, unit)
    # verify exits 0 on keys it ignores: every line it prints is a problem
    assert out.returncode == 0 and not (out.stdout + out.stderr).strip(), out.stdout + out.stderr


@needs_analyze
def test_verify_catches_a_bad_unit(tmp_path: Path) -> None:
    unit = UNITS / "tablectl@.service"
    bad = unit.read_text().replace("Restart=always", "Restart=sometimes")
    out = _verify(tmp_path, unit, bad)
    assert "restart specifier" in out.stdout + out.stderr


def test_the_daemon_unit_is_what_the_issue_asks() -> None:
    text = (UNITS / "tablectl@.service").read_text()
    for line in ("Type=notify", "Restart=always", "WatchdogSec=10", "User=tablectl",
                 "StateDirectory=tablectl/%i", "NoNewPrivileges=yes", "ProtectSystem=strict"):
        assert re.search(rf"^{re.escape(line)}$", text, re.M), line
    assert "--journal %S/tablectl/%i/journal.sqlite" in text
    users = (UNITS / "tablectl.sysusers.conf").read_text()
    assert re.search(r"^u\s+tablectl\s", users, re.M)
    assert re.search(r"^u\s+tablectl-web\s", users, re.M)


_PAIR = re.compile(r'\s*([A-Z_]+(?:\{[^}]+\})?)\s*(==|!=|\+=|-=|:=|=)\s*"([^"]*)"\s*(,|$)')
_MATCH = {"SUBSYSTEM", "ACTION", "DRIVERS", "KERNEL", "ENV", "ATTRS", "SUBSYSTEMS"}
_ASSIGN = {"SYMLINK", "GROUP", "MODE", "TAG", "ATTR", "ENV", "OWNER"}


def test_udev_rules_are_well_formed() -> None:
    rules = (ROOT / "config" / "udev" / "70-tablectl-readers.rules").read_text()
    lines = [ln for ln in rules.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    assert lines
    for line in lines:
        pos, pairs = 0, []
        while pos < len(line):
            m = _PAIR.match(line, pos)
            assert m, f"cannot parse {line[pos:]!r}"
            pairs.append((m.group(1).split("{")[0], m.group(2), m.group(3)))
            pos = m.end()
        for key, op, val in pairs:
            if op in ("==", "!="):
                assert key in _MATCH, (key, line)
            else:
                assert key in _ASSIGN, (key, line)
            if key == "GROUP":
                assert val == "tablectl"
            if key == "SYMLINK":
                assert val.startswith("tablectl/"), line
        assert any(op == "==" for _, op, _ in pairs), f"matches every device: {line}"
