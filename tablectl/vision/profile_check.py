"""The checks a deck profile directory passes before anything reads with it.

A profile is a file an operator can copy, edit or damage: a half-written ``profile.json``, a
``NaN`` or a string where a threshold was, ``"verified": "false"`` (which ``bool()`` would
take as true), a ``glyphs.npz`` from another version with vectors of another length, or one
compressed to expand to gigabytes. Each is refused here with a :class:`ProfileError` saying
what is wrong, before the recogniser uses it; none may reach a frame, where it would fail on
every read or, worse, let every read through.

Only numpy and the standard library at import time (:func:`check_widths` imports the glyph
and face modules when it is called, so the daemon can load a profile's metadata without
OpenCV).
"""

from __future__ import annotations

import math
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Final

import numpy as np

from tablectl.domain.strictjson import JsonLimits, StrictJsonError, brief, check_text, decode_strict
from tablectl.vision.model import ProfileError

META_LIMITS: Final = JsonLimits(max_bytes=1024 * 1024, max_depth=4, max_string=4096,
                                max_key=64, max_items=4096)
"""``profile.json``: a few kilobytes, nested three deep (``gates`` -> card -> fields)."""
MAX_DECK_ID: Final = 64
"""The longest deck id (the operator's name for a deck, shown on consoles and in logs)."""
MAX_NPZ_BYTES: Final = 512 * 1024 * 1024
"""The most ``glyphs.npz`` may expand to (a full deck enrolled from many photos is a few
megabytes)."""
_ROWS: Final = ("rank", "suit", "index", "layout")


def read_meta(path: Path) -> dict[str, object]:
    """``profile.json`` through the strict decoder (no ``NaN``, no deep nesting, no huge
    strings, no repeated key), as an object.

    Raises:
        ProfileError: unreadable or not such JSON (``FileNotFoundError`` passes through).
    """
    data = path.read_bytes()
    try:
        meta = decode_strict(data, META_LIMITS)
    except StrictJsonError as exc:
        raise ProfileError(f"unreadable deck profile: {path.name}: {exc}",
                           str(path.parent)) from None
    if not isinstance(meta, dict):
        raise ProfileError(f"unreadable deck profile: {path.name} is not a JSON object",
                           str(path.parent))
    return meta


def check_npz_size(path: Path) -> None:
    """Refuse a ``glyphs.npz`` that would expand beyond :data:`MAX_NPZ_BYTES`, before any
    array is decompressed.

    Raises:
        ProfileError: not a zip archive, or too large once expanded.
    """
    try:
        with zipfile.ZipFile(path) as archive:
            size = sum(i.file_size for i in archive.infolist())
    except (zipfile.BadZipFile, ValueError) as exc:
        raise ProfileError(f"unreadable deck profile: {path.name}: {exc}",
                           str(path.parent)) from None
    if size > MAX_NPZ_BYTES:
        raise ProfileError(f"unreadable deck profile: {path.name} expands to {size} bytes "
                           f"(at most {MAX_NPZ_BYTES})", str(path.parent))


def check_arrays(arrays: Mapping[str, np.ndarray]) -> None:
    """The exemplar arrays: numbers, one row per exemplar, every value finite.

    Raises:
        ValueError: what is wrong, naming the array.
    """
    n = len(arrays["cards"])
    for key in (*_ROWS, "face", "pips"):
        if key not in arrays:
            continue
        a = arrays[key]
        if a.ndim != 2 or a.dtype.kind not in "fiu":
            raise ValueError(f"{key}: expected a 2-D array of numbers, got {a.dtype} "
                             f"{a.shape}")
        if not np.isfinite(a).all():
            raise ValueError(f"{key}: holds values that are not finite numbers")
        if key in _ROWS and len(a) != n:
            raise ValueError(f"{key}: {len(a)} rows for {n} exemplars")
    if "face" in arrays and len(arrays["face"]) != len(arrays["face_cards"]):
        raise ValueError(f"face: {len(arrays['face'])} rows for "
                         f"{len(arrays['face_cards'])} face cards")
    if "pips" in arrays and len(arrays["pips"]) != len(arrays["pip_suits"]):
        raise ValueError(f"pips: {len(arrays['pips'])} rows for "
                         f"{len(arrays['pip_suits'])} pip suits")


def unit_number(value: object, where: str, low: float = 0.0, high: float = 1.0) -> float:
    """A JSON number between ``low`` and ``high`` (a bool is not a number here).

    Raises:
        ValueError: anything else.
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{where}: expected a number, got {brief(value)}")
    f = float(value)
    if not (math.isfinite(f) and low <= f <= high):
        raise ValueError(f"{where}: {f} is outside {low}..{high}")
    return f


def thresholds(value: object) -> dict[str, float]:
    """The ``thresholds`` object: every gate a correlation or distance in 0..1."""
    if not isinstance(value, dict):
        raise ValueError(f"thresholds: expected an object, got {brief(value)}")
    return {str(k): unit_number(v, f"thresholds.{k}") for k, v in value.items()}


def checked_deck_id(value: object) -> str:
    """A deck id: text of 1 to :data:`MAX_DECK_ID` characters, no control characters.

    Raises:
        ProfileError: anything else.
    """
    try:
        text = check_text(value, max_len=MAX_DECK_ID, where="deck id")
    except StrictJsonError as exc:
        raise ProfileError(str(exc)) from None
    if not text.strip():
        raise ProfileError("deck id: must not be empty")
    return text


def flag(value: object, where: str) -> bool:
    """A JSON ``true`` or ``false`` (``"false"``, 0 or ``null`` are refused, not guessed)."""
    if not isinstance(value, bool):
        raise ValueError(f"{where}: expected true or false, got {brief(value)}")
    return value


def check_widths(vectors: Mapping[str, np.ndarray | None], deck_id: str) -> None:
    """A profile's vectors (``DeckProfile.vectors``) have the lengths this version's reader
    makes (a profile saved by a version with other glyph or face sizes cannot be compared
    with a read).

    Raises:
        ProfileError: naming the array, its length and the one expected.
    """
    from tablectl.vision.face import KEEP
    from tablectl.vision.glyphs import INDEX_BOX, LAYOUT_LEN, RANK_BOX, SUIT_BOX

    want = {"rank": RANK_BOX[0] * RANK_BOX[1], "suit": SUIT_BOX[0] * SUIT_BOX[1],
            "index": INDEX_BOX[0] * INDEX_BOX[1], "layout": LAYOUT_LEN,
            "face": int(KEEP.sum())}
    for key, a in vectors.items():
        if a is not None and len(a) and a.shape[1] != want[key]:
            raise ProfileError(f"inconsistent deck profile: {key} vectors of length "
                               f"{a.shape[1]}, this version reads {want[key]} (enrol the "
                               "deck again)", f"deck profile {deck_id!r}")
