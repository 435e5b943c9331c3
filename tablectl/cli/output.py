"""What the commands share for their output on stdout."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import TypeAlias

Handler = Callable[[argparse.Namespace], int]
"""A command: its parsed arguments in, its exit code out."""

Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def count(n: int, word: str) -> str:
    """``1 hand``, ``2 hands``."""
    return f"{n} {word}{'s' * (n != 1)}"


def print_json(obj: object) -> None:
    """One JSON document on a line of stdout."""
    print(json.dumps(obj, ensure_ascii=False, sort_keys=False), flush=True)
