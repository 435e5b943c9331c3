"""``tablectl doctor`` loads what ``tablectl run`` loads before it runs: before, it did not look
at antenna maps at all (a map ``run`` refuses passed the doctor), and a CA file that was not a
certificate was reported through ``ssl.SSLError``'s text."""

from __future__ import annotations

from pathlib import Path

from tablectl.config import load_config
from tablectl.doctor import Status, check_antenna_maps, check_broker
from tests.ops.helpers import ROOT
from tests.tables import two_seat_table


def _config(tmp_path: Path, antennas: str, mqtt: str = "") -> Path:
    (tmp_path / "antennas.toml").write_text(antennas, encoding="utf-8")
    return two_seat_table(tmp_path, '[[sources]]\nkind = "rfid-table"\nname = "felt"\n'
                                    'url = "/dev/ttyACM0"\nantenna_map = "antennas.toml"\n', mqtt)


def test_an_antenna_map_run_would_refuse_fails(tmp_path: Path) -> None:
    config = load_config(_config(tmp_path, '[antennas]\n"٣" = "seat 1"\n'))
    [check] = check_antenna_maps(config)
    assert check.status is Status.FAIL and check.name == "antenna map felt"
    assert "antenna numbers are 0..255 in ASCII digits" in check.detail


def test_a_sound_antenna_map_passes(tmp_path: Path) -> None:
    config = load_config(_config(tmp_path, (ROOT / "config/antennas/ten-seat.toml").read_text()))
    [check] = check_antenna_maps(config)
    assert check.status is Status.OK


def test_a_cafile_that_is_not_pem_fails_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "ca.crt").write_text("hello\n")
    config = load_config(_config(tmp_path, "", '[mqtt]\nurl = "mqtts://127.0.0.1:1"\n'
                                               'cafile = "ca.crt"\n'))
    check = check_broker(config, timeout=1)
    assert check.status is Status.FAIL
    assert f"mqtt.cafile: {tmp_path}/ca.crt: not a PEM file" in check.detail
