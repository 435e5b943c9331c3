"""A CA certificate, client certificate or key that is not what it should be is one line naming
its setting, exit 2, and changes nothing: before, ``tablectl run`` opened (and created) the
journal, then ended in ``ssl.SSLError``'s traceback ("no certificate or crl found"), and
``config check`` said ``ok`` of the same config. The files are loaded by
``tablectl.publish.tls.client_tls`` for ``run``, ``web``, ``watch``, ``floor`` and
``tournament`` alike."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tablectl.cli import main
from tablectl.domain.errors import ConfigError
from tablectl.publish.tls import TlsKeys, client_tls

ROOT = Path(__file__).resolve().parents[2]
FAKE_PEM = "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n"

needs_openssl = pytest.mark.skipif(shutil.which("openssl") is None,
                                   reason="making a certificate needs openssl(1)")


def _pair(where: Path, name: str) -> tuple[Path, Path]:
    """A self-signed certificate and its key, made with openssl."""
    cert, key = where / f"{name}.crt", where / f"{name}.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:P-256", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "2", "-subj", f"/CN={name}"], check=True, capture_output=True,
                   timeout=60)
    return cert, key


@pytest.mark.parametrize(("content", "expected"), [
    (b"hello\n", "not a PEM file (no -----BEGIN line): give the CA certificate in PEM"),
    (b"\xff\xd8\xff\xe0 a JPEG", "CA certificate: not UTF-8 text (byte 0)"),
    (FAKE_PEM.encode(), "not a CA certificate OpenSSL takes: "),
    (b"-----BEGIN " + b"x" * (2 * 1024 * 1024), "larger than 1024 KiB"),
])
def test_a_cafile_that_is_not_a_pem_certificate_is_refused(tmp_path: Path, content: bytes,
                                                           expected: str) -> None:
    ca = tmp_path / "ca.crt"
    ca.write_bytes(content)
    with pytest.raises(ConfigError) as info:
        client_tls(ca)
    (key, message), = info.value.problems
    assert key == "mqtt.cafile" and message.startswith(f"{ca}: ")
    assert expected in message and "\n" not in message


def test_a_missing_file_is_named_by_its_setting(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        client_tls(tmp_path / "nope.crt", keys=TlsKeys(cafile="--cafile"))
    assert info.value.problems == [("--cafile", f"{tmp_path / 'nope.crt'}: cannot read CA "
                                                "certificate: No such file or directory")]


@needs_openssl
def test_a_client_certificate_with_another_key_is_refused(tmp_path: Path) -> None:
    ca, _ = _pair(tmp_path, "ca")
    cert, _ = _pair(tmp_path, "client")
    _, other = _pair(tmp_path, "other")
    assert client_tls(ca, cert, tmp_path / "client.key") is not None
    with pytest.raises(ConfigError) as info:
        client_tls(ca, cert, other)
    (key, message), = info.value.problems
    assert key == "mqtt.certfile"
    assert "the client certificate and key do not load: " in message
    with pytest.raises(ConfigError) as info:
        client_tls(ca, tmp_path / "client.key", other)       # a key given as the certificate
    assert info.value.problems[0][0] == "mqtt.certfile"
    locked = tmp_path / "locked.key"
    subprocess.run(["openssl", "pkey", "-in", str(tmp_path / "client.key"), "-aes128",
                    "-passout", "pass:x", "-out", str(locked)], check=True,
                   capture_output=True, timeout=60)
    with pytest.raises(ConfigError) as info:              # never a password prompt
        client_tls(ca, cert, locked)
    assert info.value.problems[0][1].endswith("do not load: the key is encrypted")


def _config(tmp_path: Path, cafile: str) -> Path:
    text = (ROOT / "config" / "casino-holdem.toml").read_text()
    text = text.replace('"decks/', f'"{ROOT}/config/decks/').replace(
        'path = "/var/lib/tablectl/t01.sqlite"', f'path = "{tmp_path}/journal/t01.sqlite"')
    text = text.replace('url = "mqtt://127.0.0.1:1883"',
                        f'url = "mqtts://127.0.0.1:1"\ncafile = "{cafile}"')
    out = tmp_path / "t.toml"
    out.write_text(text)
    return out


def test_config_check_loads_the_cafile(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "ca.crt").write_text("hello\n")
    assert main(["config", "check", str(_config(tmp_path, "ca.crt"))]) == 2
    got = capsys.readouterr()
    assert "ok" not in got.out
    assert (f"error: mqtt.cafile: {tmp_path}/ca.crt: not a PEM file (no -----BEGIN line)"
            in got.err)


def test_run_refuses_a_bad_cafile_before_the_journal(tmp_path: Path) -> None:
    (tmp_path / "ca.crt").write_text(FAKE_PEM)
    config = _config(tmp_path, "ca.crt")
    out = subprocess.run([sys.executable, "-m", "tablectl", "run", "--config", str(config)],
                         capture_output=True, text=True, timeout=120, check=False,
                         cwd=ROOT, stdin=subprocess.DEVNULL)
    assert out.returncode == 2, out.stderr[-2000:]
    assert "Traceback" not in out.stderr
    [line] = out.stderr.strip().splitlines()
    assert line.startswith(f"tablectl run: mqtt.cafile: {tmp_path}/ca.crt: not a CA "
                           "certificate OpenSSL takes: ")
    assert not (tmp_path / "journal").exists()       # nothing on disk


def test_watch_names_its_cafile_option(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "ca.crt").write_text("hello\n")
    code = main(["watch", "--table", "t1", "--broker", "mqtts://127.0.0.1:1", "--cafile",
                 str(tmp_path / "ca.crt"), "--timeout", "1"])
    assert code == 2
    assert f"--cafile: {tmp_path}/ca.crt: not a PEM file" in capsys.readouterr().err
