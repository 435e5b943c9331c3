"""Logging of the ``tablectl`` command: one handler on stderr, human lines or JSON lines."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from datetime import UTC, datetime
from typing import Final

TRACE: Final = 5
"""Log level for raw frames and other very chatty detail (below DEBUG)."""

_HAND_FIELDS: Final = ("table", "hand")


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, and ``table``/``hand`` when the
    record carries them (pass ``extra={"table": ..., "hand": ...}`` on hand-level lines)."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key in _HAND_FIELDS:
            value = getattr(record, key, None)
            if value is not None:
                out[key] = value
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


class HumanFormatter(logging.Formatter):
    """``time level logger [table/hand] message`` for a terminal."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)-7s %(name)s %(message)s", "%H:%M:%S")

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        ids = [str(getattr(record, key)) for key in _HAND_FIELDS
               if getattr(record, key, None) is not None]
        if ids:
            head, _, tail = text.partition(record.name + " ")
            text = f"{head}{record.name} [{'/'.join(ids)}] {tail}"
        return text


CLIENT_LOG_LEVEL: Final = "warning"
"""The default log level of a command a person runs to look at something (``watch``,
``doctor``, ``equity``): routine daemon-style lines such as the MQTT client's "connected" are
noise in front of a user. Such a command says so with
``parser.set_defaults(default_log_level=CLIENT_LOG_LEVEL)``."""


def log_level_of(args: argparse.Namespace) -> str:
    """``--log-level`` if given, else the command's own default (``default_log_level``), else
    ``info`` (the daemons: ``run``, ``web``, ``floor run``)."""
    given: str | None = args.log_level
    if given is not None:
        return given
    default: str = getattr(args, "default_log_level", "info")
    return default


def setup_logging(level: str, fmt: str) -> None:
    """Configure the root logger once, on stderr."""
    logging.addLevelName(TRACE, "TRACE")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else HumanFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(TRACE if level == "trace" else getattr(logging, level.upper()))
