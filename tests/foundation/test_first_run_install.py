"""The first run's install (``.ci/setup.sh``, which ``.ci/tablectl`` sources) says one line
while it works and keeps pip's output in a log, shown only when the install fails.

A stand-in Python makes the virtual environment and plays pip: a page of output, then success
or failure; nothing is installed and the project's own .venv is not touched.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PYTHON = f"""#!/usr/bin/env bash
# a Python 3 that makes a venv whose python plays pip
if [ "$1" = -m ] && [ "$2" = venv ]; then
  mkdir -p "$3/bin" && cp "$(dirname "$0")/venv-python" "$3/bin/python" && exit 0
fi
exec {sys.executable} "$@"
"""

VENV_PYTHON = """#!/usr/bin/env bash
# pip: a page of what setuptools and pip say, then the exit code asked for
for i in $(seq 1 45); do echo "SetuptoolsDeprecationWarning: line $i"; echo "noise $i" >&2; done
exit "${STAND_IN_PIP_EXIT:-0}"
"""


def first_run(tmp_path: Path, pip_exit: int) -> subprocess.CompletedProcess[str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in (("python3", PYTHON), ("venv-python", VENV_PYTHON)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    venv = tmp_path / "venv"
    script = f'. "{ROOT}/.ci/setup.sh"; VENV="{venv}"; ensure_venv test'
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60,
                          check=False, env={"PATH": "/usr/bin:/bin",
                                            "PYTHON": str(bin_dir / "python3"),
                                            "STAND_IN_PIP_EXIT": str(pip_exit)})


def test_the_install_says_one_line(tmp_path: Path) -> None:
    out = first_run(tmp_path, 0)
    assert out.returncode == 0, out.stderr
    assert out.stdout == ""
    assert out.stderr.splitlines() == [
        "installing tablectl and its pinned dependencies into .venv (once, about a minute)"]
    assert (tmp_path / "venv" / ".tablectl-stamp").is_file()
    assert "noise 45" in (tmp_path / "venv" / ".tablectl-install.log").read_text()


def test_a_failed_install_shows_pip_and_where_its_log_is(tmp_path: Path) -> None:
    out = first_run(tmp_path, 1)
    assert out.returncode == 1
    assert "noise 45" in out.stderr and "SetuptoolsDeprecationWarning: line 45" in out.stderr
    assert out.stderr.splitlines()[-1] == (
        f"installing into .venv failed (the output above is in "
        f"{tmp_path}/venv/.tablectl-install.log)")
    assert not (tmp_path / "venv" / ".tablectl-stamp").exists()
