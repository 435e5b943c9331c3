"""Is a valid config workable on this machine? What ``tablectl config check`` adds to parsing.

:func:`tablectl.config.load_config` refuses a config that is not well formed. A well-formed
config can still not work: a credentials file that does not exist or that the table would
refuse (it is read as the table reads it), a journal folder that cannot be created, nobody
with a role (every command is refused ``not_authorised``), a web server nobody can log in to.
:func:`findings` names each such problem, as an **error** (the table cannot work: ``config
check`` exits 2) or a **warning** (it works, but probably not as meant), each with what to do
about it.

>>> Finding("error", "access.roles", "no roles").render("t.toml")
't.toml: error: access.roles: no roles'
"""

from __future__ import annotations

import errno
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tablectl.config import SourceKind, TableConfig
from tablectl.domain.errors import ConfigError

Level = Literal["error", "warning"]


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem of a config: its level, the key it is about and what to do."""

    level: Level
    key: str
    message: str

    def render(self, source: str) -> str:
        """``file: error: key: message`` (one line; without a key for the file as a whole)."""
        key = f"{self.key}: " if self.key else ""
        return f"{source}: {self.level}: {key}{self.message}"


_CREDENTIALS_HINT = ('create it as a TOML file with username = "..." and password = "..." '
                     "(chmod 600), or remove the key for a broker that needs no password")

_PKI_HINT = ("give {} here (config/mosquitto/make-test-pki.sh makes a test one; "
             "docs/security.md), or remove the key")


def findings(config: TableConfig) -> list[Finding]:
    """Every problem of ``config`` that parsing cannot see, errors first."""
    out: list[Finding] = []
    files: list[tuple[str, Path | None, str]] = [
        ("mqtt.credentials", config.mqtt.credentials, _CREDENTIALS_HINT),
        ("mqtt.cafile", config.mqtt.cafile, _PKI_HINT.format("the broker's CA certificate")),
        ("mqtt.certfile", config.mqtt.certfile, _PKI_HINT.format("the client certificate")),
        ("mqtt.keyfile", config.mqtt.keyfile, _PKI_HINT.format("the client key")),
    ]
    if config.web is not None:
        files += [
            ("web.credentials", config.web.credentials, _CREDENTIALS_HINT),
            ("web.console_credentials", config.web.console_credentials, _CREDENTIALS_HINT),
            ("web.users", config.web.users,
             "create it with one [[users]] table per login (docs/web.md, the hash from "
             "tablectl web --hash-password)"),
            ("web.secure_certfile", config.web.secure_certfile,
             _PKI_HINT.format("the overlay's client certificate")),
            ("web.secure_keyfile", config.web.secure_keyfile,
             _PKI_HINT.format("the overlay's client key")),
        ]
    for key, path, hint in files:
        if path is not None and not path.is_file():
            out.append(Finding("error", key, f"{path} does not exist: {hint}"))
        elif path is not None and key.endswith("credentials"):
            problem = _credentials_problem(path)
            if problem is not None:
                out.append(Finding("error", key, f"{path}: {problem}: write it as TOML with "
                                   'username = "..." and password = "..." (chmod 600)'))
        elif path is not None and key == "web.users":
            problem = _users_problem(path)
            if problem is not None:
                out.append(Finding("error", key, f"tablectl web would not start: {problem}"))
    out += antenna_map_findings(config)
    out += tls_findings(config, missing={f.key for f in out})
    problem = journal_folder_problem(config.journal.path)
    if problem is not None:
        out.append(Finding("error", "journal.path", problem))
    else:
        from tablectl.journal.integrity import journal_refusal

        refused = journal_refusal(str(config.journal.path))
        if refused is not None:
            out.append(Finding("error", "journal.path", f"tablectl run would refuse it: "
                                                        f"{refused}"))
    if not config.access.roles:
        keypad = any(s.kind is SourceKind.KEYPAD for s in config.sources)
        out.append(Finding(
            "error", "access.roles",
            "no roles: every command over MQTT is refused not_authorised"
            + (f" (only the keypad deals, as {config.access.keypad_user!r}, and nobody is "
               "floor to clear an error)" if keypad else "")
            + '; add [access] roles = {dealer-t01 = "dealer", floor-t01 = "floor"} with '
              "your broker users"))
    elif "floor" not in config.access.roles.values():
        out.append(Finding("warning", "access.roles",
                           "nobody is floor: nobody can clear a read error, kill a hand or "
                           "adjust a stack"))
    out += console_user_findings(config)
    if config.web is not None and config.web.users is None:
        out.append(Finding("warning", "web.users",
                           "not set: the table display works, but nobody can log in to the "
                           "dealer console or the broadcast overlay"))
    return sorted(out, key=lambda f: f.level != "error")


def console_user_findings(config: TableConfig) -> list[Finding]:
    """A warning when the dealer console's broker user (:func:`~tablectl.config.
    web_command_user`) has no role in ``[access.roles]``: the table would refuse every
    command the console sends; an error when that user cannot be known (a ``command_user``
    that is not the credentials' username). Nothing without a ``[web]`` section, or when a
    credentials file is unreadable (reported on its own key)."""
    if config.web is None:
        return []
    from tablectl.config import web_command_user

    try:
        user = web_command_user(config)
    except ConfigError as exc:
        return [Finding("error", key or "web", msg) for key, msg in exc.problems
                if key == "web.command_user"]
    if user in config.access.roles:
        return []
    return [Finding("warning", "access.roles", (
        f"the dealer console sends commands as {user!r}, which has no role here: the table "
        f"refuses all of them; add {user} = \"dealer\" to [access] roles (\"floor\" for "
        "floor logins' seat, unseat and stack controls)"))]


def antenna_map_findings(config: TableConfig) -> list[Finding]:
    """An error for each antenna map the config names that ``tablectl run`` would refuse (read
    as the daemon reads it), keyed by its source: ``sources[1].antenna_map``."""
    from tablectl.sources.base import load_antenna_map  # the daemon's own reading

    out: list[Finding] = []
    for i, src in enumerate(config.sources):
        if src.antenna_map is None:
            continue
        key = f"sources[{i}].antenna_map"
        if not src.antenna_map.is_file():
            out.append(Finding("error", key, f"{src.antenna_map} does not exist: calibrate the "
                                             "table (tablectl table calibrate) or fix the path"))
            continue
        try:
            load_antenna_map(src.antenna_map)
        except ConfigError as exc:
            out += [Finding("error", key, f"{src.antenna_map}: {where + ': ' if where else ''}"
                                          f"{msg}") for where, msg in exc.problems]
    return out


def tls_findings(config: TableConfig, *, missing: set[str]) -> list[Finding]:
    """An error for a CA certificate, client certificate or key that the table (``[mqtt]``) or
    the web server's hole-card connection (``[web] secure_*``) would refuse, loaded as they
    load them (:func:`tablectl.publish.tls.client_tls`); files in ``missing`` (already
    reported as absent) are not read again."""
    from tablectl.publish.tls import MQTT_TLS_KEYS, TlsKeys, client_tls

    mq = config.mqtt
    sets: list[tuple[TlsKeys, Path | None, Path | None, Path | None]] = [
        (MQTT_TLS_KEYS, mq.cafile, mq.certfile, mq.keyfile)]
    if config.web is not None and config.web.secure_certfile is not None:
        sets.append((TlsKeys(cafile="mqtt.cafile", certfile="web.secure_certfile",
                             keyfile="web.secure_keyfile"),
                     None, config.web.secure_certfile, config.web.secure_keyfile))
    out: list[Finding] = []
    for keys, cafile, certfile, keyfile in sets:
        if set(keys) & missing or not (cafile or certfile):
            continue
        try:
            client_tls(cafile, certfile, keyfile, keys=keys)
        except ConfigError as exc:
            out += [Finding("error", key, msg) for key, msg in exc.problems]
    return out


def _users_problem(path: Path) -> str | None:
    """Why ``tablectl web`` would refuse the users file at ``path`` (plain-text password,
    unknown role, repeated name...), in its own words."""
    from tablectl.web.auth import Users  # the web server's own reading
    from tablectl.web.errors import UsersFileError

    try:
        Users.load(path)
    except UsersFileError as exc:
        return str(exc)
    return None


def _credentials_problem(path: Path) -> str | None:
    """Why the credentials file at ``path`` would be refused when the table starts."""
    from tablectl.config import read_credentials  # the daemon's own reading of the file

    try:
        read_credentials(path)
    except ConfigError as exc:
        return "; ".join(f"{key}: {msg}" if key else msg for key, msg in exc.problems)
    return None


def journal_folder_problem(path: Path) -> str | None:
    """Why the journal at ``path`` cannot be created or written, with what to do; None when
    it can (the folder exists and is writable, or can be made)."""
    if path.exists() and path.is_dir():
        return f"{path} is a folder: give the journal's file name (e.g. {path / 'table.sqlite'})"
    folder = path.parent
    probe = folder
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if not probe.is_dir():
        return (f"cannot create the folder {folder}: {probe} is a file, not a folder; "
                "set journal.path (or --journal) to a file in a folder")
    # tried, not asked of os.access: root passes os.access where the OS still refuses
    # (/proc, a read-only mount)
    try:
        if probe == folder:
            write_probe(folder)
        else:
            mkdir_probe(probe)
    except OSError as exc:
        if exc.errno in (errno.EACCES, errno.EPERM):
            what = "write in" if probe == folder else "create"
            return (f"cannot {what} {folder} (no write permission in {probe}): create it and "
                    f"give it to the user running tablectl (sudo install -d -o \"$USER\" "
                    f"{folder}), or set journal.path (or --journal) to a folder of yours")
        if probe == folder:
            return f"cannot write in the folder {folder}: {exc.strerror or exc}"
        return f"cannot create the folder {folder}: {exc.strerror or exc}"
    return None


def _scratch(folder: Path) -> Path:
    return folder / f".tablectl-probe-{os.getpid()}-{secrets.token_hex(4)}"


def write_probe(folder: Path) -> None:
    """Create, write, fsync and remove a scratch file in the existing ``folder``.

    Raises:
        OSError: the folder cannot be written.
    """
    probe = _scratch(folder)
    fd = os.open(probe, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    try:
        os.write(fd, b"tablectl\n")
        os.fsync(fd)
    finally:
        os.close(fd)
        probe.unlink(missing_ok=True)


def mkdir_probe(folder: Path) -> None:
    """Make and remove a scratch folder in the existing ``folder``.

    Raises:
        OSError: no folder can be made there.
    """
    probe = _scratch(folder)
    os.mkdir(probe, 0o700)
    os.rmdir(probe)


def ensure_journal_folder(path: Path) -> None:
    """Create the journal's folder if needed.

    Raises:
        ConfigError: it cannot be (one line saying why and what to do).
    """
    problem = journal_folder_problem(path)
    if problem is None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            return
        except OSError as exc:
            problem = f"cannot create the folder {path.parent}: {exc.strerror}"
    raise ConfigError([("journal.path", problem)])
