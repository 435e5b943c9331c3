"""The package builds without a warning from its build backend (the first run's install is
quiet): the project's pyproject.toml, built with its declared build requirements in pip's
isolated build environment, on a copy holding only empty packages (nothing is written into the
repository)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_project_builds_without_warnings(tmp_path: Path) -> None:
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    shutil.copy(ROOT / "README.md", tmp_path)
    include = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "packages"]["find"]["include"]
    for pattern in include:
        package = tmp_path / pattern.rstrip("*")
        package.mkdir()
        (package / "__init__.py").write_text("")
    out = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                          "--disable-pip-version-check", "-w", str(tmp_path / "dist"),
                          str(tmp_path)], capture_output=True, text=True, timeout=300,
                         check=False)
    assert out.returncode == 0, out.stderr
    backend = [line for line in (out.stdout + out.stderr).splitlines()
               if "Warning" in line or "deprecated" in line]
    assert backend == []
    assert list((tmp_path / "dist").glob("tablectl-*.whl"))
