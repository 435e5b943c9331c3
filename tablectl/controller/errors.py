"""Errors of the hand controller, rooted in :class:`~tablectl.domain.errors.TablectlError`.

The controller reports problems with a *table's* inputs (a bad read, a refused command) as
values in its :class:`~tablectl.controller.outcome.Outcome`, never as exceptions: an input is
always handled. Exceptions are for programming and configuration mistakes only.
"""

from __future__ import annotations

from tablectl.domain.errors import TablectlError


class ControllerError(TablectlError):
    """Root of the controller's errors."""


class CodecError(ControllerError, ValueError):
    """A journaled payload that is not a controller input (or checkpoint) this version reads."""


class SetupError(ControllerError, ValueError):
    """A :class:`~tablectl.controller.table.TableSetup` or checkpoint that cannot make a table."""
