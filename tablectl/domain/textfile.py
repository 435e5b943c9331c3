"""Reading a small text file an operator hands over, as hostile input.

Decks, antenna maps, card orders, credentials, web users, house rules, tournament structures
and PHH hand histories are files someone wrote or copied, possibly badly: bytes that are not
UTF-8, a NUL, a TOML array nested deeper than the parser's recursion, a file of gigabytes, or
a path that is a device or a FIFO that never ends. :func:`read_text_file` reads at most a
bounded number of bytes (a device reads no further) and says in one line why a file is not
text; :func:`parse_toml` says why text is not TOML, the nesting included. Both raise only
:class:`TextFileError`, which each loader turns into its own error naming the file.

Stdlib only.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Final

from tablectl.domain.errors import TablectlError

MAX_TEXT_FILE: Final = 1024 * 1024
"""The default bound: every such file of a table is a few KiB."""


class TextFileError(TablectlError, ValueError):
    """A file that is not the text it should be.

    Attributes:
        reason: one line, without the path (``"not UTF-8 text (byte 0)"``).
        unreadable: the file could not be opened or read at all (``reason`` is then the
            system's word for why, ``"No such file or directory"``).
    """

    def __init__(self, reason: str, *, unreadable: bool = False) -> None:
        self.reason = reason
        self.unreadable = unreadable
        super().__init__(reason)

    def said(self, what: str) -> str:
        """The line for a file that is ``what``: ``"cannot read deck file: No such file or
        directory"``, ``"deck file: not UTF-8 text (byte 0)"``."""
        return (f"cannot read {what}: {self.reason}" if self.unreadable
                else f"{what}: {self.reason}")


def read_text_file(path: Path, *, max_bytes: int = MAX_TEXT_FILE) -> str:
    """The UTF-8 text of ``path``, reading at most ``max_bytes`` (+1 to tell it is larger).

    Raises:
        TextFileError: cannot be read, larger than ``max_bytes``, not UTF-8, or holds a NUL.
    """
    try:
        with path.open("rb") as f:
            raw = f.read(max_bytes + 1)
    except OSError as exc:
        raise TextFileError(exc.strerror or str(exc), unreadable=True) from None
    if len(raw) > max_bytes:
        raise TextFileError(f"larger than {_size(max_bytes)}: not the file expected")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TextFileError(f"not UTF-8 text (byte {exc.start})") from None
    if "\x00" in text:
        raise TextFileError(f"a NUL byte at {text.index(chr(0))}: not a text file")
    return text


def parse_toml(text: str) -> dict[str, object]:
    """``text`` as a TOML document.

    Raises:
        TextFileError: not TOML, or nested deeper than the parser goes.
    """
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TextFileError(f"not valid TOML: {exc}") from None
    except (RecursionError, ValueError, MemoryError) as exc:
        raise TextFileError(f"not valid TOML: {type(exc).__name__} (nested too deep or too "
                            "large)") from None


def read_toml_file(path: Path, *, max_bytes: int = MAX_TEXT_FILE) -> dict[str, object]:
    """:func:`read_text_file` then :func:`parse_toml`."""
    return parse_toml(read_text_file(path, max_bytes=max_bytes))


def _size(n: int) -> str:
    return f"{n // (1024 * 1024)} MiB" if n >= 4 * 1024 * 1024 else f"{n // 1024} KiB"
