"""``tablectl doctor`` on real setups: each check shown passing, then failing for the reason a
technician meets (a reader unplugged or not the daemon's to open, a wrong broker password, a
read-only or volatile journal directory, an expired certificate)."""

from __future__ import annotations

import os
import shutil
import ssl
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablectl.config import load_config
from tablectl.doctor import Status, check_certificates
from tests.conftest import free_port
from tests.ops.helpers import ROOT, table_config
from tests.security.conftest import Site, make_site

SCENARIO = ROOT / "config" / "scenarios" / "clean-holdem-nl.toml"


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    """The production broker configuration with its test PKI and password file."""
    base = Path(tempfile.mkdtemp(prefix="tablectl-doctor-"))
    base.chmod(0o755)  # the broker's user must be able to reach its files
    try:
        s = make_site(base)
        yield s
        s.broker.stop()
    finally:
        shutil.rmtree(base, ignore_errors=True)


def doctor(cfg: Path, *extra: str, wrap: list[str] | None = None
           ) -> tuple[int, dict[str, str]]:
    """Run ``tablectl doctor``; the exit code and each check's line by name."""
    proc = subprocess.run([*(wrap or []), sys.executable, "-m", "tablectl", "doctor",
                           "--config", str(cfg), *extra], capture_output=True, text=True,
                          timeout=90, check=False, cwd=ROOT)
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = {}
    for line in proc.stdout.splitlines():
        status, _, rest = line.partition(" ")
        name = rest.strip().split(":", 1)[0]
        if status in ("ok", "FAIL", "??"):
            lines[name] = f"{status} {rest.strip()}"
    return proc.returncode, lines


def setup(tmp_path: Path, site: Site, *, password: str | None = None,
          cafile: Path | None = None) -> Path:
    """A table on a plugged-in pty reader, the site's TLS listener as controller-t01."""
    (tmp_path / "pty").mkdir(exist_ok=True)
    _master, slave = os.openpty()
    link = tmp_path / "pty" / "shoe"
    link.unlink(missing_ok=True)
    link.symlink_to(os.ttyname(slave))
    creds = tmp_path / "controller.toml"
    creds.write_text(f'username = "controller-t01"\npassword = '
                     f'"{password or site.passwords["controller-t01"]}"\n')
    url = f"mqtts://{site.lan}:{site.ports['mqtts']}"
    return table_config(tmp_path, url, SCENARIO,
                        mqtt=f'credentials = "{creds}"\ncafile = "{cafile or site.ca}"')


def test_a_good_table_computer_passes(tmp_path: Path, site: Site) -> None:
    rc, lines = doctor(setup(tmp_path, site))
    for name in ("config", "deck files", "journal directory writable",
                 "journal on a local disk", "journal free space", "reader shoe", "broker",
                 "certificate mqtt.cafile"):
        assert lines[name].startswith("ok "), lines
    assert "over TLS: connected as controller-t01" in lines["broker"]
    assert lines["clock sync"].split()[0] in ("ok", "??")   # "unknown" in a container
    assert rc == 0, lines


def test_an_unplugged_reader_fails(tmp_path: Path, site: Site) -> None:
    cfg = setup(tmp_path, site)
    (tmp_path / "pty" / "shoe").unlink()
    rc, lines = doctor(cfg)
    assert rc == 1
    assert lines["reader shoe"].startswith("FAIL") and "is not there" in lines["reader shoe"]
    assert "plug the reader in" in lines["reader shoe"]
    (tmp_path / "pty" / "shoe").write_text("")          # a file where the device should be
    rc, lines = doctor(cfg)
    assert rc == 1
    assert "is not a character device" in lines["reader shoe"], lines["reader shoe"]


def test_a_reader_the_daemon_user_may_not_open_fails(tmp_path: Path, site: Site) -> None:
    cfg = setup(tmp_path, site)
    rc, lines = doctor(cfg, "--user", "nobody")         # a pty is root:tty 0620
    assert rc == 1
    assert "nobody may not read and write it" in lines["reader shoe"]
    assert "70-tablectl-readers.rules" in lines["reader shoe"]


def test_a_wrong_broker_password_fails(tmp_path: Path, site: Site) -> None:
    rc, lines = doctor(setup(tmp_path, site, password="not-the-password"))
    assert rc == 1
    assert lines["broker"].startswith("FAIL"), lines["broker"]
    assert "as controller-t01" in lines["broker"] and "password" in lines["broker"]


def test_a_broker_that_is_not_there_fails_at_once(tmp_path: Path, site: Site) -> None:
    cfg = setup(tmp_path, site)
    text = cfg.read_text()
    cfg.write_text(text.replace(f"mqtts://{site.lan}:{site.ports['mqtts']}",
                                f"mqtts://{site.lan}:{free_port()}"))
    rc, lines = doctor(cfg)
    assert rc == 1
    assert "Connection refused" in lines["broker"], lines["broker"]
    assert "is the broker running" in lines["broker"]


def test_a_deck_file_that_does_not_load_fails(tmp_path: Path, site: Site) -> None:
    cfg = setup(tmp_path, site)
    deck = tmp_path / "demo-red.csv"
    rows = (ROOT / "config" / "decks" / "demo-red.csv").read_text().splitlines()
    deck.write_text("\n".join(rows[:-1]) + "\n")            # a card short
    text = cfg.read_text()
    start = text.index("deck = ")
    cfg.write_text(text[:start] + f'deck = "{deck}"' + text[text.index("\n", start):])
    rc, lines = doctor(cfg)
    assert rc == 1
    assert lines["deck files"].startswith("FAIL"), lines
    assert "tablectl deck register" in lines["deck files"]
    assert lines["config"].startswith("ok")


def _expired_certificate(where: Path) -> Path:
    """A certificate that expired in 2020, made with openssl as make-test-pki.sh does."""
    where.mkdir()
    (where / "index.txt").touch()
    (where / "serial").write_text("01\n")
    (where / "ca.cnf").write_text("[ca]\ndefault_ca = c\n[c]\ndir = .\ndatabase = index.txt\n"
                                  "new_certs_dir = .\nserial = serial\ndefault_md = sha256\n"
                                  "policy = p\n[p]\ncommonName = supplied\n")
    for cmd in (["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                 "-nodes", "-keyout", "k.pem", "-out", "r.csr", "-subj", "/CN=expired-ca"],
                ["ca", "-batch", "-config", "ca.cnf", "-selfsign", "-keyfile", "k.pem", "-in",
                 "r.csr", "-out", "ca.pem", "-startdate", "20200101000000Z", "-enddate",
                 "20200201000000Z"]):
        subprocess.run(["openssl", *cmd], cwd=where, check=True, capture_output=True,
                       timeout=30)
    return where / "ca.pem"


def test_an_expired_certificate_fails(tmp_path: Path, site: Site) -> None:
    cfg = setup(tmp_path, site, cafile=_expired_certificate(tmp_path / "old"))
    rc, lines = doctor(cfg)
    assert rc == 1
    assert lines["certificate mqtt.cafile"].startswith("FAIL")
    assert "expired on 2020-02-01" in lines["certificate mqtt.cafile"]
    assert lines["broker"].startswith("FAIL") and "TLS" in lines["broker"]
    # the handshake's own reason, at once (not the MQTT client's timeout)
    assert "TLS: self-signed certificate" in lines["broker"], lines["broker"]
    assert "check mqtt.cafile" in lines["broker"]


def test_a_certificate_near_its_expiry_fails(tmp_path: Path, site: Site) -> None:
    # the site's real CA, read by openssl, on the day ten days before it expires
    config = load_config(setup(tmp_path, site))
    [now] = check_certificates(config)
    assert now.status is Status.OK, now
    expiry = float(ssl.cert_time_to_seconds(subprocess.run(
        ["openssl", "x509", "-noout", "-enddate", "-in", str(site.ca)], capture_output=True,
        text=True, check=True, timeout=30).stdout.strip().split("=", 1)[1]))
    [soon] = check_certificates(config, now=expiry - 10 * 86400)
    assert soon.status is Status.FAIL and "in 10 days" in soon.detail, soon
    assert "renew it now" in soon.line()


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None,
                    reason="a read-only bind mount needs root and unshare(1)")
def test_a_read_only_journal_directory_fails(tmp_path: Path, site: Site) -> None:
    cfg = setup(tmp_path, site)
    journal = tmp_path / "journal"
    journal.mkdir()
    # the directory read-only for the doctor only: a private mount namespace with a
    # read-only bind mount of it (as a disk remounted read-only after errors looks)
    script = (f'mount --bind "{journal}" "{journal}" && '
              f'mount -o remount,bind,ro "{journal}" && exec "$@"')
    wrap = ["unshare", "-m", "sh", "-c", script, "sh"]
    rc, lines = doctor(cfg, wrap=wrap)
    assert rc == 1
    assert lines["journal directory writable"].startswith("FAIL")
    assert "Read-only file system" in lines["journal directory writable"]
    assert lines["reader shoe"].startswith("ok")


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None,
                    reason="a small private mount needs root and unshare(1)")
def test_a_journal_disk_without_free_space_fails(tmp_path: Path, site: Site) -> None:
    cfg = setup(tmp_path, site)
    journal = tmp_path / "journal"
    journal.mkdir()
    # a 4 MiB file system on the journal's directory, for the doctor only
    script = f'mount -t tmpfs -o size=4m tablectl-doctor "{journal}" && exec "$@"'
    rc, lines = doctor(cfg, wrap=["unshare", "-m", "sh", "-c", script, "sh"])
    assert rc == 1
    assert lines["journal free space"].startswith("FAIL"), lines
    assert "under 1 GiB" in lines["journal free space"]
    assert lines["journal directory writable"].startswith("ok")


def test_a_journal_on_tmpfs_fails(tmp_path: Path, site: Site) -> None:
    shm = Path("/dev/shm")
    if not shm.is_dir() or not os.access(shm, os.W_OK):
        pytest.skip("no writable /dev/shm")
    cfg = setup(tmp_path, site)
    rc, lines = doctor(cfg, "--journal", f"/dev/shm/{tmp_path.name}/journal.sqlite")
    assert rc == 1
    assert "tmpfs" in lines["journal on a local disk"]
    assert lines["journal on a local disk"].startswith("FAIL")


def test_a_bad_config_fails_first_and_alone(tmp_path: Path) -> None:
    cfg = tmp_path / "bad.toml"
    cfg.write_text("[table]\nid = 'no spaces allowed'\n")
    rc, lines = doctor(cfg)
    assert rc == 1
    assert list(lines) == ["config"] and lines["config"].startswith("FAIL")
