"""``tablectl doctor --config FILE``: check a table computer the way a technician would.

One line per check, ``ok``, ``FAIL`` (with what to do) or ``??`` (could not tell, said
honestly); the exit code is 0 only when no check failed (``--strict``: and none unknown).
Nothing is changed: the journal check writes and removes a scratch file, the broker check
connects and disconnects, a reader is only opened when ``--handshake`` asks for it.

Checks: the config, the deck files, the journal directory (writable, on a local disk, free
space), each reader (present, a character device, readable and writable by the daemon's user,
optionally its handshake), the broker (reachable with the configured credentials and TLS),
the certificates' expiry, the clock's synchronisation.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import grp
import os
import pwd
import shutil
import socket
import ssl
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Final, TypeAlias
from urllib.parse import urlsplit

from tablectl.config_urls import camera_index, hide_password
from tablectl.domain.errors import ConfigError, TablectlError

if TYPE_CHECKING:   # the config and the MQTT client load only when the checks run
    from firmware_bridge.messages import DeviceKind
    from tablectl.config import SourceKind, TableConfig
    from tablectl.publish.mqtt_settings import MqttSettings

_Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"

MIN_FREE: Final = 1 << 30
"""Bytes free on the journal's file system below which the check fails (a busy table writes a
few MB a day; 1 GiB is months, and a full disk stops the table)."""
CERT_WARN_DAYS: Final = 14
VOLATILE_FS: Final = frozenset({"tmpfs", "ramfs", "devtmpfs"})
REMOTE_FS: Final = frozenset({"nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "afs", "ceph",
                              "glusterfs", "fuse.sshfs", "davfs", "fuse.s3fs"})


class Status(StrEnum):
    """A check's verdict."""

    OK = "ok"
    FAIL = "FAIL"
    UNKNOWN = "??"


@dataclass(frozen=True, slots=True)
class Check:
    """One line of the report: ``name``, the verdict, what was found, what to do."""

    name: str
    status: Status
    detail: str
    fix: str = ""

    def line(self) -> str:
        """``ok    name: detail`` or ``FAIL  name: detail -> fix``."""
        text = f"{self.status.value:<5} {self.name}: {self.detail}"
        return text + (f" -> {self.fix}" if self.fix and self.status is not Status.OK else "")


def _ok(name: str, detail: str) -> Check:
    return Check(name, Status.OK, detail)


def _fail(name: str, detail: str, fix: str) -> Check:
    return Check(name, Status.FAIL, detail, fix)


# ---- the checks -----------------------------------------------------------------------------


def check_decks(config: TableConfig) -> Check:
    """The table's deck and the room's other decks load (52 distinct cards, unique UIDs)."""
    try:
        decks = config.load_decks()
        deck = config.load_deck()
    except ConfigError as exc:
        return _fail("deck files", exc.render().replace("\n", "; "),
                     "register the deck again (tablectl deck register) or fix the path")
    return _ok("deck files", f"{deck.deck_id} ({len(deck.uids_by_card)} cards) and "
                             f"{len(decks) - 1} other deck(s)")


def check_antenna_maps(config: TableConfig) -> list[Check]:
    """Each antenna map the config names loads as ``tablectl run`` loads it."""
    from tablectl.config_check import antenna_map_findings

    out: list[Check] = []
    for i, src in enumerate(config.sources):
        if src.antenna_map is None:
            continue
        label = f"antenna map {src.name or f'{src.kind.value}-{i}'}"
        found = [f.message for f in antenna_map_findings(config) if
                 f.key == f"sources[{i}].antenna_map"]
        out.append(_fail(label, "; ".join(found), "calibrate the table (tablectl table "
                                                  "calibrate) or fix the file") if found
                   else _ok(label, f"{src.antenna_map}"))
    return out


def _mount_of(path: Path) -> tuple[str, str]:
    """``(mount point, file system type)`` of the mount holding ``path``."""
    best, fstype = "/", "unknown"
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return best, fstype
    target = str(path)
    for line in lines:
        left, _, right = line.partition(" - ")
        fields = left.split()
        if len(fields) < 5 or not right:
            continue
        point = fields[4].replace("\\040", " ")
        inside = target == point or target.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best):
            best, fstype = point, right.split()[0]
    return best, fstype


def _existing_dir(path: Path) -> Path:
    """``path`` or its nearest existing parent (the daemon creates the rest)."""
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def check_journal(journal: Path) -> list[Check]:
    """The journal's directory: writable (a scratch file written, fsynced and removed; for a
    folder the daemon will create, a scratch folder made and removed where it will), on a
    local persistent disk, with free space."""
    from tablectl.config_check import mkdir_probe, write_probe

    folder = journal.parent
    where = _existing_dir(folder)
    out: list[Check] = []
    try:
        if where == folder:
            write_probe(where)
        else:
            mkdir_probe(where)          # the daemon will make the journal's folder there
        out.append(_ok("journal directory writable", f"{folder}" + (
            "" if where == folder else f" (will be created in {where})")))
    except OSError as exc:
        out.append(_fail("journal directory writable", f"{where}: {exc.strerror or exc}",
                         "make it writable by the daemon's user (the unit's StateDirectory= "
                         "does), or point journal.path elsewhere"))
    point, fstype = _mount_of(where.resolve())
    if fstype in VOLATILE_FS:
        out.append(_fail("journal on a local disk", f"{point} is {fstype}: the journal would "
                         "be lost at the next reboot", "put journal.path on a disk"))
    elif fstype in REMOTE_FS or fstype.startswith("fuse."):
        out.append(_fail("journal on a local disk", f"{point} is {fstype} (a network file "
                         "system: fsync is not what it says, and the table stops when the "
                         "network does)", "put journal.path on a local disk"))
    elif fstype == "unknown":
        out.append(Check("journal on a local disk", Status.UNKNOWN,
                         "cannot read /proc/self/mountinfo"))
    else:
        out.append(_ok("journal on a local disk", f"{point} ({fstype})"))
    try:
        free = shutil.disk_usage(where).free
    except OSError as exc:
        out.append(_fail("journal free space", f"{where}: {exc}", "check the disk"))
        return out
    text = f"{free / (1 << 30):.1f} GiB free on {point}"
    out.append(_ok("journal free space", text) if free >= MIN_FREE else _fail(
        "journal free space", text + f" (under {MIN_FREE >> 30} GiB)",
        "free space or move the journal; a full disk stops the table"))
    out.append(check_journal_file(journal))
    return out


def check_journal_file(journal: Path) -> Check:
    """The journal file itself, as ``tablectl run`` checks it at start (read-only here): a
    new journal, or a sound one (``integrity_check``); an empty, truncated, corrupted or
    foreign file, or a lone ``-wal``, fails (:mod:`tablectl.journal.integrity`)."""
    from tablectl.journal.integrity import journal_refusal

    name = "journal file"
    if not journal.exists() and not Path(f"{journal}-wal").exists():
        return _ok(name, f"{journal}: none yet (the daemon creates it)")
    refused = journal_refusal(str(journal))
    if refused is None:
        return _ok(name, f"{journal}: integrity_check ok ({journal.stat().st_size} bytes)")
    return _fail(name, f"{journal}: {refused.refusal.value}: {refused.detail}",
                 "restore it from a backup or recover it (docs/operations.md, 'A journal "
                 "refused at start'), or start a new table on purpose: tablectl run "
                 "--new-journal")


def _user_can_rw(st: os.stat_result, user: str) -> bool:
    """Whether ``user`` may read and write a node with this mode and ownership."""
    entry = pwd.getpwnam(user)
    if entry.pw_uid == 0:
        return True
    mode = st.st_mode
    if st.st_uid == entry.pw_uid:
        return bool(mode & stat.S_IRUSR and mode & stat.S_IWUSR)
    groups = {entry.pw_gid} | {g.gr_gid for g in grp.getgrall() if user in g.gr_mem}
    if st.st_gid in groups:
        return bool(mode & stat.S_IRGRP and mode & stat.S_IWGRP)
    return bool(mode & stat.S_IROTH and mode & stat.S_IWOTH)


def _group_name(gid: int) -> str:
    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return str(gid)


def check_reader(name: str, url: str, user: str) -> Check:
    """A serial reader's node: present, a character device, read-write for ``user``; a
    ``socket://`` reader: its port answers."""
    label = f"reader {name}"
    if url.startswith("socket://"):
        parts = urlsplit(url)
        try:
            with socket.create_connection((parts.hostname or "", parts.port or 0), timeout=3):
                return _ok(label, f"{url} answers")
        except OSError as exc:
            return _fail(label, f"{url}: {exc}", "start the reader's network bridge, or "
                                                  "check the address")
    path = Path(url)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return _fail(label, f"{url} is not there", "plug the reader in; check the cable and "
                     "`ls /dev/tablectl/ /dev/serial/by-id/` (config/udev/ names it)")
    except OSError as exc:
        return _fail(label, f"{url}: {exc}", "check the path")
    if not stat.S_ISCHR(st.st_mode):
        return _fail(label, f"{url} is not a character device", "point the source at the "
                     "reader's tty (/dev/tablectl/… or /dev/serial/by-id/…)")
    real = os.path.realpath(path)
    perms = f"{stat.filemode(st.st_mode)} {pwd.getpwuid(st.st_uid).pw_name}:" \
            f"{_group_name(st.st_gid)}"
    try:
        allowed = _user_can_rw(st, user)
    except KeyError:
        return _fail(label, f"{real} ({perms}); no user {user!r} on this computer",
                     "create the daemon's user (config/systemd/tablectl.sysusers.conf)")
    if not allowed:
        return _fail(label, f"{real} ({perms}): {user} may not read and write it",
                     f"install config/udev/70-tablectl-readers.rules (group tablectl, 0660) "
                     f"and put {user} in that group")
    return _ok(label, f"{url} -> {real} ({perms}), read-write for {user}")


def _device_kinds(kind: SourceKind) -> frozenset[DeviceKind] | None:
    """The device kinds a serial source of ``kind`` takes (its source's own)."""
    from tablectl.config import SourceKind
    from tablectl.sources.keypad import KEYPAD_KINDS
    from tablectl.sources.rfid import SHOE_KINDS, TABLE_KINDS

    return {SourceKind.RFID_SHOE: SHOE_KINDS, SourceKind.RFID_TABLE: TABLE_KINDS,
            SourceKind.KEYPAD: KEYPAD_KINDS}.get(kind)


def check_handshake(name: str, url: str, seconds: float = 4.0,
                    kinds: frozenset[DeviceKind] | None = None) -> Check:
    """Handshake with a reader (``--handshake``): it answers, speaks our protocol version,
    and is of the ``kinds`` its source takes (a shoe on a shoe's port).

    Nothing it holds is acknowledged (the client acknowledges only what its consumer took,
    and this takes nothing after the handshake): reads a daemon has not journaled stay in the
    reader. The daemon must not be running on it (its port is opened exclusively).
    """
    from firmware_bridge.client import Connected, DeviceClient, Disconnected, Incompatible

    label = f"reader {name} handshake"

    async def probe() -> Connected | Incompatible | Disconnected:
        async with DeviceClient(url, name=name, ack_when_consumed=True, backoff=(0.5,),
                                kinds=kinds) as client, asyncio.timeout(seconds):
            async for event in client.events():
                if isinstance(event, Connected | Incompatible | Disconnected):
                    return event
        raise TimeoutError

    try:
        got = asyncio.run(probe())
    except TimeoutError:
        return _fail(label, f"{url}: no answer to HELLO within {seconds:g} s", "check that "
                     "the reader is powered and runs its firmware, and that no tablectl run "
                     "holds its port")
    match got:
        case Connected(peer=peer):
            return _ok(label, f"protocol v{peer.proto_major}.{peer.proto_minor}, "
                              f"{peer.device_kind.name.lower()}, firmware {peer.fw_version!r}")
        case Incompatible(kind=None) as seen:
            return _fail(label, f"{url}: {seen.reason}", "fit a reader of protocol v1 "
                         "(docs/protocol.md); the daemon shows it incompatible and goes on "
                         "without it")
        case Incompatible() as seen:
            return _fail(label, f"{url}: {seen.reason}", "plug this source's device into "
                         "this port (or correct the config's url); the daemon refuses the "
                         "other device and goes on without it")
        case Disconnected(reason=reason):
            return _fail(label, f"{url}: {reason}", "check the reader")
    raise AssertionError(got)


def check_sources(config: TableConfig, user: str, *,
                  handshake: bool = False) -> list[Check]:
    """Each device of the config (manual entry has none; a network camera is opened and one
    frame read: :func:`check_camera_stream`); with ``handshake`` each reader's protocol too
    (:func:`check_handshake`)."""
    from tablectl.config import SourceKind

    out: list[Check] = []
    for i, src in enumerate(config.sources):
        name = src.name or f"{src.kind.value}-{i}"
        if src.kind is SourceKind.MANUAL:
            continue
        if src.kind is SourceKind.CAMERA:
            index = camera_index(src.url)
            url = src.url if index is None else f"/dev/video{index}"
            if "://" in url:
                out.append(check_camera_stream(name, url))
                continue
            out.append(check_reader(name, url, user) if url.startswith("/dev/")
                       else (_ok(f"camera {name}", f"{url} exists") if Path(url).exists()
                             else _fail(f"camera {name}", f"{url} is not there",
                                        "check the camera's path")))
            continue
        found = check_reader(name, src.url, user)
        out.append(found)
        if handshake and found.status is Status.OK:
            out.append(check_handshake(name, src.url, kinds=_device_kinds(src.kind)))
    return out


def check_camera_stream(name: str, url: str) -> Check:
    """A network camera (RTSP, HTTP MJPEG) opens and sends a frame within the camera
    source's own timeouts (docs/camera.md §4). A second client beside a running daemon is
    what such cameras are made for; the frame is not kept."""
    from tablectl.vision.model import FrameSourceError
    from tablectl.vision.source import probe_stream

    label = f"camera {name}"
    try:
        width, height = probe_stream(url)
    except FrameSourceError as exc:
        return _fail(label, str(exc), "check the camera's address, its network and its "
                     "credentials in the URL; the daemon shows it offline and goes on")
    return _ok(label, f"{hide_password(url)}: sends {width}x{height} frames")


async def _connect(settings: MqttSettings, seconds: float) -> None:
    # imported here: `tablectl --help` and the other checks need no MQTT client
    from tablectl.publish.mqtt import MqttPublisher

    # its own client id, no session kept: the daemon's session is not touched (a broker with
    # use_username_as_clientid still makes it the user's, see docs/operations.md)
    settings = dataclasses.replace(settings, client_id=f"{settings.client_id}-doctor",
                                   session_expiry=0, connect_timeout=seconds)
    async with MqttPublisher(settings):
        pass


def _reach(settings: MqttSettings, url: str, timeout: float) -> Check | None:
    """The broker's port answers and, for mqtts://, the TLS handshake with the configured CA
    succeeds; the failing check (with its cause, at once) or None. The MQTT client would
    only retry until its timeout and say that nothing came."""
    where = f"{settings.host}:{settings.port}"
    try:
        sock = socket.create_connection((settings.host, settings.port), timeout=timeout)
    except OSError as exc:
        return _fail("broker", f"{url}: cannot reach {where}: {exc.strerror or exc}",
                     "is the broker running and reachable from here? check mqtt.url and the "
                     "firewall")
    with sock:
        if settings.tls is None:
            return None
        try:
            with settings.tls.wrap_socket(sock, server_hostname=settings.host):
                pass
        except (ssl.SSLError, ssl.CertificateError) as exc:
            return _fail("broker", f"{url}: TLS: {getattr(exc, 'verify_message', None) or exc}",
                         "check mqtt.cafile (the broker's CA), the broker's certificate and "
                         "the host name in mqtt.url")
        except OSError as exc:
            return _fail("broker", f"{url}: TLS handshake with {where}: "
                         f"{exc.strerror or exc}", "is it a TLS listener? mqtts:// needs one")
    return None


def check_broker(config: TableConfig, timeout: float = 8.0) -> Check:
    """The broker's port answers, its TLS handshake succeeds, and a connection with the
    configured URL, credentials and TLS gets its CONNACK."""
    from tablectl.app import daemon_mqtt_settings
    from tablectl.publish.errors import PublishError

    url = config.mqtt.url
    try:
        settings = daemon_mqtt_settings(config)
    except ConfigError as exc:     # the credentials, or a CA or client certificate file
        return _fail("broker", exc.render().replace("\n", "; "),
                     "fix the file named (mqtt.credentials: TOML; mqtt.cafile, mqtt.certfile "
                     "and mqtt.keyfile: PEM files the daemon's user can read)")
    who = settings.username or "anonymous"
    failed = _reach(settings, url, min(timeout, 5.0))
    if failed is not None:
        return failed
    try:
        asyncio.run(_connect(settings, timeout))
    except ssl.SSLError as exc:
        return _fail("broker", f"{url}: TLS: {exc}", "check mqtt.cafile (the broker's CA) "
                     "and the broker's certificate")
    except (PublishError, OSError) as exc:
        text = str(exc)
        fix = ("check the user and password in mqtt.credentials, and the broker's password "
               "file and ACL" if "auth" in text.lower() or "bad user" in text.lower()
               else "the port answers but MQTT does not: is it the broker's port? check "
                    "mqtt.url and the broker's log")
        return _fail("broker", f"{url} as {who}: {text}", fix)
    tls = " over TLS" if urlsplit(url).scheme == "mqtts" else ""
    return _ok("broker", f"{url}{tls}: connected as {who}")


def _not_after(path: Path) -> float | None:
    """The certificate's expiry (epoch seconds) by ``openssl x509``, None if unreadable."""
    openssl = shutil.which("openssl")
    if openssl is None:
        return None
    proc = subprocess.run([openssl, "x509", "-noout", "-enddate", "-in", str(path)],
                          capture_output=True, text=True, timeout=10, check=False)
    if proc.returncode != 0 or "=" not in proc.stdout:
        return None
    return float(ssl.cert_time_to_seconds(proc.stdout.strip().split("=", 1)[1]))


def check_certificates(config: TableConfig, now: float | None = None) -> list[Check]:
    """Every certificate the config names: not expired, not expiring within 14 days."""
    now = time.time() if now is None else now
    files = {"mqtt.cafile": config.mqtt.cafile, "mqtt.certfile": config.mqtt.certfile}
    if config.web is not None:
        files["web.secure_certfile"] = config.web.secure_certfile
    out: list[Check] = []
    for key, path in files.items():
        if path is None:
            continue
        label = f"certificate {key}"
        if not path.exists():
            out.append(_fail(label, f"{path} is not there", "install the certificate"))
            continue
        if shutil.which("openssl") is None:
            out.append(Check(label, Status.UNKNOWN, "openssl is not installed to read it"))
            continue
        expiry = _not_after(path)
        if expiry is None:
            out.append(_fail(label, f"{path} is not a PEM certificate", "install the right "
                             "file"))
            continue
        days = (expiry - now) / 86400
        when = time.strftime("%Y-%m-%d", time.gmtime(expiry))
        if days < 0:
            out.append(_fail(label, f"{path} expired on {when}", "renew it (docs/security.md)"))
        elif days < CERT_WARN_DAYS:
            out.append(_fail(label, f"{path} expires on {when}, in {days:.0f} days",
                             "renew it now (docs/security.md)"))
        else:
            out.append(_ok(label, f"{path} valid until {when} ({days:.0f} days)"))
    return out


def _run(cmd: list[str]) -> str | None:
    exe = shutil.which(cmd[0])
    if exe is None:
        return None
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        proc = subprocess.run([exe, *cmd[1:]], capture_output=True, text=True, timeout=5,
                              check=False)
        if proc.returncode == 0:
            return proc.stdout
    return None


def check_clock() -> Check:
    """The clock is synchronised: timedatectl (systemd), else chronyc, else ntpq; 'unknown'
    when none of them answers (a container, or no time daemon)."""
    out = _run(["timedatectl", "show", "-p", "NTPSynchronized", "--value"])
    if out is not None and out.strip() in ("yes", "no"):
        if out.strip() == "yes":
            return _ok("clock sync", "synchronised (timedatectl)")
        return _fail("clock sync", "not synchronised (timedatectl)",
                     "enable NTP: timedatectl set-ntp true, and check the time server")
    out = _run(["chronyc", "-n", "tracking"])
    if out is not None:
        leap = next((ln.split(":", 1)[1].strip() for ln in out.splitlines()
                     if ln.startswith("Leap status")), "")
        if leap == "Normal":
            return _ok("clock sync", "synchronised (chrony)")
        return _fail("clock sync", f"chrony: leap status {leap or 'unknown'}",
                     "check chrony's sources: chronyc sources")
    out = _run(["ntpq", "-c", "rv"])
    if out is not None:
        if "sync_ntp" in out or "leap_none" in out:
            return _ok("clock sync", "synchronised (ntpd)")
        return _fail("clock sync", "ntpd is not synchronised", "check ntpq -p")
    return Check("clock sync", Status.UNKNOWN, "unknown: no timedatectl, chronyc or ntpq "
                 "answered (a container, or no time daemon)",
                 "install chrony or systemd-timesyncd on a table computer")


# ---- the command ----------------------------------------------------------------------------


def run_checks(path: Path, *, user: str, journal: Path | None = None,
               handshake: bool = False) -> Iterator[Check]:
    """Every check of the config at ``path``, in order (the rest are skipped when the config
    itself is invalid)."""
    from tablectl.config import load_config
    from tablectl.config_games import described

    try:
        config = load_config(path)
    except ConfigError as exc:
        yield _fail("config", exc.render().replace("\n", "; "),
                    "fix the file (tablectl config check FILE shows each problem)")
        return
    yield _ok("config", f"{path} (table {config.table.id}, {described(config.game)}, "
                        f"{len(config.sources)} sources)")
    steps: list[Callable[[], Check | list[Check]]] = [
        lambda: check_decks(config),
        lambda: check_antenna_maps(config),
        lambda: check_journal(journal or config.journal.path),
        lambda: check_sources(config, user, handshake=handshake),
        lambda: check_broker(config),
        lambda: check_certificates(config),
        check_clock,
    ]
    for step in steps:
        got = step()
        yield from (got if isinstance(got, list) else [got])


def _doctor(args: argparse.Namespace) -> int:
    strict: bool = args.strict
    bad = 0
    try:
        for check in run_checks(Path(args.config), user=args.user,
                                journal=Path(args.journal) if args.journal else None,
                                handshake=args.handshake):
            print(check.line(), flush=True)  # noqa: T201 (the command's output)
            bad += check.status is Status.FAIL or (strict and check.status is Status.UNKNOWN)
    except TablectlError as exc:
        print(f"tablectl doctor: {exc}", file=sys.stderr)  # noqa: T201
        return 1
    print(f"{'all checks passed' if not bad else f'{bad} check(s) failed'}")  # noqa: T201
    return 1 if bad else 0


def add_doctor(sub: _Subparsers) -> None:
    """Register ``tablectl doctor``."""
    p = sub.add_parser("doctor", help="check this table computer: config, decks, journal, "
                                      "readers, broker, certificates, clock",
                       description="Check a table computer the way a technician would: one "
                                   "line per check (ok, FAIL or ?? and what to do); exit 1 if "
                                   "any check failed.")
    p.add_argument("--config", required=True, metavar="FILE", help="the table config file")
    p.add_argument("--user", default=pwd.getpwuid(os.getuid()).pw_name,
                   help="the user the daemon runs as, whose access to the readers is checked "
                        "(default: you; the unit runs as tablectl)")
    p.add_argument("--journal", metavar="PATH",
                   help="the journal the daemon will use (the unit's: "
                        "/var/lib/tablectl/TABLE/journal.sqlite; default: journal.path)")
    p.add_argument("--handshake", action="store_true",
                   help="also handshake with each reader: it answers and speaks protocol v1 "
                        "(stop the daemon first: it holds the readers' ports)")
    p.add_argument("--strict", action="store_true",
                   help="a check that cannot tell (??) fails too")
    # a client, not a daemon: warnings and up by default (tablectl/cli/logs.py)
    p.set_defaults(handler=_doctor, default_log_level="warning")
