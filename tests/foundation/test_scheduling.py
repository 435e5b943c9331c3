"""The longest tests run first (tests/scheduling.py), and the measured list names tests that
still exist."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.scheduling import MEASURED, slowest_first

ROOT = Path(__file__).resolve().parents[2]


def test_measured_tests_come_first_longest_first_and_the_rest_keep_their_order() -> None:
    ids = ["tests/a/test_x.py::test_1", "tests/a/test_x.py::test_2[p]",
           "tests/b/test_y.py::test_3", "tests/a/test_x.py::test_2[q]",
           "tests/c/test_z.py::test_4"]
    table = {"tests/a/test_x.py::test_2": 5.0, "tests/c/test_z.py": 40.0,
             "tests/a/test_x.py::test_2[q]": 7.0}
    assert [ids[i] for i in slowest_first(ids, table)] == [
        "tests/c/test_z.py::test_4", "tests/a/test_x.py::test_2[q]",
        "tests/a/test_x.py::test_2[p]", "tests/a/test_x.py::test_1",
        "tests/b/test_y.py::test_3"]
    assert slowest_first(ids, {}) == list(range(len(ids)))


def test_every_measured_entry_names_a_test_that_exists() -> None:
    assert len(MEASURED) >= 20
    for key, seconds in MEASURED.items():
        assert seconds > 0, key
        path, _, name = key.partition("::")
        source = (ROOT / path).read_text()
        name = name.split("[", 1)[0]
        if name:
            assert re.search(rf"def {re.escape(name)}\(", source), key


def test_a_run_collects_the_longest_first(tmp_path: Path) -> None:
    slowest = max(MEASURED, key=MEASURED.__getitem__)
    folder = slowest.split("::", 1)[0].rsplit("/", 1)[0]
    # collected after a quick file named first, it is run first all the same
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                          "tests/foundation/test_deck.py", folder],
                         capture_output=True, text=True, cwd=ROOT, timeout=120, check=False)
    ids = [line for line in out.stdout.splitlines() if "::" in line]
    assert ids, out.stdout + out.stderr
    assert ids[0].startswith(slowest), ids[:3]
