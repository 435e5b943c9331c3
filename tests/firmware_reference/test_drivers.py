"""The PN532 (ISO 14443A, I2C) and PN5180 (ISO 15693 16-slot inventory, SPI) drivers of the
reference firmware, against byte-level fakes of their chips that check every frame the
driver sends (``host/check_drivers.c``, built under ASan/UBSan): init, empty field, one and
several tags, anti-collision by mask, the chip's limits, corrupted answers, a silent or
missing chip, and a whole reader reading through the PN5180 driver."""

from __future__ import annotations

import subprocess
from pathlib import Path

from .harness import sanitizer_report


def test_the_radio_drivers_against_their_chips(reference_build: Path) -> None:
    done = subprocess.run([str(reference_build / "check-drivers")], capture_output=True,
                          text=True, timeout=60, check=False)
    assert sanitizer_report(done.stderr) is None, done.stderr
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines() == ["ok pn532", "ok pn5180", "ok reader-pn5180"]
