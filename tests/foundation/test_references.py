"""Every note a file points a reader to is in this repository: the design and research notes
the project grew from are not, so what a maintainer needs from them lives in docs/, and code,
tests, config and data point there. Only docs/ (and this test, which names the notes) may
mention them; the real-photo corpus beside the checkout (``../shared/corpus``) is data the
vision tests read, not a note, and may be named anywhere.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

OUTSIDE_NOTES = re.compile(
    rb"research/|DESIGN\.md|STYLE\.md|STYLE shape|mqtt_payloads\.md|\bshared/(?!corpus/)")
"""What points outside the repository: the notes by name, and the folder beside it."""


def _tracked_files() -> list[str]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    return [name for name in out.stdout.decode().split("\0") if name]


def test_no_file_outside_docs_points_to_notes_outside_the_repository() -> None:
    me = Path(__file__).resolve().relative_to(ROOT).as_posix()
    offenders = []
    for name in _tracked_files():
        if name.startswith("docs/") or name == me or not (ROOT / name).is_file():
            continue
        for number, line in enumerate((ROOT / name).read_bytes().splitlines(), start=1):
            if OUTSIDE_NOTES.search(line):
                offenders.append(f"{name}:{number}: {line.decode(errors='replace').strip()}")
    assert offenders == [], "\n".join(offenders)


def test_the_pattern_catches_each_kind_of_reference() -> None:
    for line in (b"see research/serial.md", b"(DESIGN.md \xc2\xa75)", b"set by STYLE.md",
                 b"STYLE shape 7", b"mqtt_payloads.md", b"../shared/rules/house.txt",
                 b"(shared/rules)"):
        assert OUTSIDE_NOTES.search(line), line
    for line in (b"../shared/corpus/cards", b"shared/corpus/cards", b"docs/mqtt.md \xc2\xa75.1",
                 b"_SUIT_STYLE"):
        assert not OUTSIDE_NOTES.search(line), line
