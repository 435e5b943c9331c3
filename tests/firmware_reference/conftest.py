"""Fixtures of the reference firmware tests: the host build (made once per run) and the
bridge tests' leak check."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.firmware_bridge.conftest import _no_leaked_tasks, blue_deck, red_deck

from .emulator import build_emulated
from .harness import build_reference

__all__ = ["_no_leaked_tasks", "blue_deck", "red_deck"]


@pytest.fixture(scope="session")
def reference_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The directory holding ``reader-host`` and ``fuzz-frames`` (skips without gcc)."""
    return build_reference(tmp_path_factory.getbasetemp().parent)


@pytest.fixture(scope="session")
def emulated_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The Cortex-M3 ELF and the build's flash/RAM line (skips without the toolchain or
    QEMU)."""
    return build_emulated(tmp_path_factory.getbasetemp().parent)
