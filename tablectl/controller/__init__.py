"""The hand controller: binds card reads and dealer commands to the rules engine (sans-IO).

Feed :class:`HandController` one input at a time (:class:`CardRead`, :class:`TagLeft`,
:class:`Command`, :class:`DeviceStatus`); each :meth:`HandController.handle` returns an
:class:`Outcome` (reply, public and secure events, snapshot changes, error states, hand
boundaries) for the app to journal and publish; the snapshots are built lazily, when asked for
(:meth:`HandController.public_snapshot`, :class:`SnapshotChange`). Inputs have a JSON codec
(:func:`input_to_json` / :func:`input_from_json`) for the journal; :class:`TableState` is the
checkpoint to restore from. Payload models and JSON Schemas: :mod:`tablectl.controller.payloads`.
"""

from tablectl.controller.commands import COMMAND_TABLE, COMMANDS, CommandRule
from tablectl.controller.controller import HandController
from tablectl.controller.core import Phase, Stage
from tablectl.controller.errors import CodecError, ControllerError, SetupError
from tablectl.controller.inputs import (
    INPUT_KINDS,
    CardRead,
    Command,
    ControllerInput,
    DeviceStatus,
    Location,
    LocationKind,
    ReadMissed,
    ReadStatus,
    TagLeft,
    input_from_json,
    input_to_json,
)
from tablectl.controller.outcome import (
    ErrorChange,
    Event,
    HandClosed,
    HandStarted,
    Outcome,
    SnapshotChange,
)
from tablectl.controller.reply import READ_ERRORS, ErrorCode, Reply
from tablectl.controller.snapshots import SECURE_STATE_SCHEMA, STATE_SCHEMA
from tablectl.controller.table import (
    PERMISSIONS,
    ActiveError,
    CachedReply,
    DeviceState,
    Role,
    SeatState,
    TableSetup,
    TableState,
    game_label,
)

__all__ = [
    "COMMANDS", "COMMAND_TABLE", "INPUT_KINDS", "PERMISSIONS", "READ_ERRORS",
    "SECURE_STATE_SCHEMA", "STATE_SCHEMA", "ActiveError", "CachedReply", "CardRead",
    "CodecError", "Command", "CommandRule", "ControllerError", "ControllerInput",
    "DeviceState", "DeviceStatus", "ErrorChange", "ErrorCode", "Event", "HandClosed",
    "HandController", "HandStarted", "Location", "LocationKind", "Outcome", "Phase", "ReadMissed",
    "ReadStatus", "Reply", "Role", "SeatState", "SetupError", "SnapshotChange", "Stage",
    "TableSetup", "TableState", "TagLeft", "game_label", "input_from_json", "input_to_json",
]
