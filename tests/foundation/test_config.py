"""Config loading: every example passes, every broken copy fails with its key path."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tablectl.cli import main
from tablectl.config import load_config
from tablectl.domain.errors import ConfigError
from tablectl.domain.games import GameKind

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "config").glob("*.toml"))


def test_there_is_an_example_for_every_preset() -> None:
    presets = {load_config(p).game.preset.value for p in EXAMPLES}
    assert presets >= {"casino", "pacific-omaha", "island", "phh"}


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_configs_check_ok(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "check", str(path)]) == 0
    assert "ok" in capsys.readouterr().out


def _broken(tmp_path: Path, old: str, new: str) -> Path:
    text = (ROOT / "config" / "casino-holdem.toml").read_text()
    assert old in text
    out = tmp_path / "broken.toml"
    out.write_text(text.replace(old, new, 1).replace('"decks/', f'"{ROOT}/config/decks/'))
    return out


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ('url = "/dev/serial/by-id/usb-tablectl_RFID_shoe_0001-if00"', 'url = "COM3x"',
         "sources[0].url: not a serial URL: 'COM3x'"),
        ('id = "t01"', 'id = "t 01/#"', "table.id: not a table id"),
        ('structure = "no-limit"', 'structure = "no-limit"\nfoo = 1',
         "game.foo: unknown key"),
        ("big_blind = 200", "big_blind = -5",
         "game.stakes.big_blind: must be at least 0, got -5"),
        ('variant = "holdem"', 'variant = "badugi"',
         "game.variant: must be one of holdem, holdem-hi-lo, omaha, omaha-hi-lo, stud, "
         "stud-hi-lo, razz, got 'badugi'"),
        ('variant = "holdem"', 'variant = "holdme"', "got 'holdme': did you mean `holdem`?"),
        ('variant = "holdem"', 'variant = "razz"', "game.structure: razz is dealt fixed-limit"),
        ("number = 3", "number = 1", "seats: seat numbers repeat: [1]"),
        ('url = "mqtt://127.0.0.1:1883"', 'url = "http://x"', "mqtt.url: not a broker URL"),
        ('[journal]\npath = "/var/lib/tablectl/t01.sqlite"', "",
         "journal: required key is missing"),
        ('"decks/demo-red.csv"', '"decks/nope.csv"', "deck ("),
        ("[table]", "[table", "not valid TOML"),
    ],
)
def test_broken_config_exits_2_with_key_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, expected: str
) -> None:
    path = _broken(tmp_path, old, new)
    assert main(["config", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert expected in err
    assert "Traceback" not in err


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    path = _broken(tmp_path, 'id = "t01"', 'id = ""')
    path.write_text(path.read_text().replace("stack = 20000", "stack = -1"))
    with pytest.raises(ConfigError) as info:
        load_config(path)
    paths = [p for p, _ in info.value.problems]
    assert "table.id" in paths
    assert paths.count("seats[0].stack") == 1 and "seats[3].stack" in paths


def test_precedence_flag_over_env_over_file() -> None:
    path = ROOT / "config" / "casino-holdem.toml"
    assert load_config(path, env={}).mqtt.url == "mqtt://127.0.0.1:1883"
    env = {"TABLECTL_MQTT__URL": "mqtt://10.0.0.1:1883"}
    assert load_config(path, env=env).mqtt.url == "mqtt://10.0.0.1:1883"
    flag = {"mqtt.url": "mqtt://127.0.0.2:1884"}
    assert load_config(path, env=env, overrides=flag).mqtt.url == "mqtt://127.0.0.2:1884"


def test_config_is_frozen() -> None:
    cfg = load_config(ROOT / "config" / "casino-holdem.toml")
    assert cfg.game.variant is GameKind.HOLDEM
    with pytest.raises(ValueError, match="frozen"):
        cfg.table.id = "x"  # type: ignore[misc]


def test_cli_entry_point_and_version() -> None:
    out = subprocess.run([sys.executable, "-m", "tablectl", "--version"],
                         capture_output=True, text=True, check=True)
    assert out.stdout.startswith("tablectl ")
    helptext = subprocess.run([sys.executable, "-m", "tablectl", "--help"],
                              capture_output=True, text=True, check=True).stdout
    assert "config" in helptext


def test_bad_config_via_subprocess_has_no_traceback(tmp_path: Path) -> None:
    path = _broken(tmp_path, 'url = "/dev/serial/by-id/usb-tablectl_RFID_shoe_0001-if00"',
                   'url = "COM3x"')
    out = subprocess.run([sys.executable, "-m", "tablectl", "config", "check", str(path)],
                         capture_output=True, text=True, check=False)
    assert out.returncode == 2
    assert "sources[0].url: not a serial URL" in out.stderr
    assert "Traceback" not in out.stderr
