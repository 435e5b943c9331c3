"""The client's side of TLS to the broker: an SSL context from the CA certificate, client
certificate and key files a config or a command names.

Each file is read as text first (at most 1 MiB, :func:`~tablectl.domain.textfile.
read_text_file`: a slip such as ``/dev/zero`` is not read until memory runs out) and must be
PEM; then OpenSSL loads it. Whatever is wrong is a :class:`~tablectl.domain.errors.
ConfigError` keyed by the setting that named the file (``mqtt.cafile``, ``--cafile``...): one
line, exit 2, never ``ssl.SSLError``'s traceback. An encrypted key is refused (no password is
asked on a daemon's terminal).
"""

from __future__ import annotations

import ssl
from pathlib import Path
from typing import Final, NamedTuple

from tablectl.domain.errors import ConfigError
from tablectl.domain.textfile import TextFileError, read_text_file


class TlsKeys(NamedTuple):
    """The settings that name the CA certificate, the client certificate and its key, as an
    error names them."""

    cafile: str = "mqtt.cafile"
    certfile: str = "mqtt.certfile"
    keyfile: str = "mqtt.keyfile"


MQTT_TLS_KEYS: Final = TlsKeys()
"""The table config's ``[mqtt]`` keys."""


def _pem(key: str, path: Path, what: str) -> str:
    """The PEM text of ``path``.

    Raises:
        ConfigError: unreadable, not text, or no ``-----BEGIN`` line.
    """
    try:
        text = read_text_file(path)
    except TextFileError as exc:
        raise ConfigError([(key, f"{path}: {exc.said(what)}")]) from None
    if "-----BEGIN " not in text:
        raise ConfigError([(key, f"{path}: not a PEM file (no -----BEGIN line): give the "
                                 f"{what} in PEM")])
    return text


def _said(exc: Exception) -> str:
    reason = getattr(exc, "reason", None)
    return str(reason or exc).split(" (_ssl.c")[0][:120]


def _no_password() -> bytes:
    raise ValueError("the key is encrypted")


def client_tls(cafile: Path | None, certfile: Path | None = None, keyfile: Path | None = None,
               *, keys: TlsKeys = MQTT_TLS_KEYS) -> ssl.SSLContext:
    """A client SSL context that verifies the broker against ``cafile`` (the system's CAs when
    None) and presents ``certfile`` (with ``keyfile``, or the key inside ``certfile``).

    Raises:
        ConfigError: a file that cannot be read, is not PEM, or that OpenSSL refuses (no
            certificate in it, a key that does not match the certificate, an encrypted key),
            keyed by ``keys``.
    """
    cadata = None if cafile is None else _pem(keys.cafile, cafile, "CA certificate")
    try:
        context = ssl.create_default_context(cadata=cadata)
    except (ssl.SSLError, ValueError) as exc:
        raise ConfigError([(keys.cafile, f"{cafile}: not a CA certificate OpenSSL takes: "
                                         f"{_said(exc)}")]) from None
    if certfile is None:
        return context
    _pem(keys.certfile, certfile, "client certificate")
    if keyfile is not None:
        _pem(keys.keyfile, keyfile, "client key")
    try:
        context.load_cert_chain(str(certfile), None if keyfile is None else str(keyfile),
                                password=_no_password)
    except (ssl.SSLError, OSError, ValueError) as exc:
        raise ConfigError([(keys.certfile, f"{certfile}"
                                           f"{'' if keyfile is None else f' with {keyfile}'}: "
                                           f"the client certificate and key do not load: "
                                           f"{_said(exc)}")]) from None
    return context
