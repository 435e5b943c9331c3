"""An antenna map's numbers are ASCII digits 0..255 and nothing else: ``str.isdigit`` took
``"²"`` (then ``int`` raised ValueError, a traceback out of ``tablectl run``) and ``"٣"`` (read
as antenna 3). ``tablectl config check`` reads the maps the config names as the daemon does."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablectl.cli import main
from tablectl.domain.errors import ConfigError
from tablectl.sources.base import load_antenna_map
from tests.tables import two_seat_table

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("key", ["²", "٣", "1e3", " 7 ", "+7", "-1", "07", "256", "0x10", "",
                                 "7\u0000"])
def test_a_number_that_is_not_ascii_digits_0_to_255_is_refused(tmp_path: Path,
                                                                key: str) -> None:
    path = tmp_path / "antennas.toml"
    path.write_text(f'[antennas]\n"{key.replace(chr(0), chr(92) + "u0000")}" = "seat 1"\n',
                    encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_antenna_map(path)
    (where, message), = info.value.problems
    assert where.startswith("antennas.") and where.isascii() and where.isprintable()
    assert message.startswith("antenna numbers are 0..255 in ASCII digits")


@pytest.mark.parametrize(("key", "number"), [("0", 0), ("9", 9), ("17", 17), ("255", 255)])
def test_ascii_digits_0_to_255_are_read(tmp_path: Path, key: str, number: int) -> None:
    path = tmp_path / "antennas.toml"
    path.write_text(f'[antennas]\n"{key}" = "board 2"\n')
    assert list(load_antenna_map(path)) == [number]


def _config(tmp_path: Path, antennas: str) -> Path:
    (tmp_path / "antennas.toml").write_text(antennas, encoding="utf-8")
    return two_seat_table(tmp_path, '[[sources]]\nkind = "rfid-table"\nurl = "/dev/ttyACM0"\n'
                                    'antenna_map = "antennas.toml"\n')


def test_config_check_reads_the_antenna_maps(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """Before: ``ok`` (the map was first read by ``tablectl run``, which ended in a traceback)."""
    config = _config(tmp_path, '[antennas]\n"²" = "seat 1"\n"3" = "table"\n')
    assert main(["config", "check", str(config)]) == 2
    got = capsys.readouterr()
    assert "ok" not in got.out
    lines = got.err.replace(str(tmp_path) + "/", "").splitlines()
    assert lines[0] == ("table.toml: error: sources[0].antenna_map: antennas.toml: "
                        "antennas.\\xb2: antenna numbers are 0..255 in ASCII digits (no sign, "
                        "space, exponent or leading zero)")
    assert lines[1].startswith("table.toml: error: sources[0].antenna_map: antennas.toml: "
                               "antennas.3: not an antenna role: 'table'")
    assert not (tmp_path / "t9.sqlite").exists()


def test_config_check_names_a_missing_antenna_map(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    config = _config(tmp_path, "")
    (tmp_path / "antennas.toml").unlink()
    assert main(["config", "check", str(config)]) == 2
    assert "error: sources[0].antenna_map: " in capsys.readouterr().err


def test_config_check_passes_a_sound_antenna_map(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    config = _config(tmp_path, (ROOT / "config/antennas/ten-seat.toml").read_text())
    assert main(["config", "check", str(config)]) == 0
    assert "ok" in capsys.readouterr().out
