"""A damaged or hand-edited deck profile (or enrolment's labels file) is refused with a clear
error, never used.

Each case saves a real enrolled profile, damages one thing in it the way a half-written file,
an operator's edit or a file from another version would, and checks that loading (or building
the recogniser) raises :class:`ProfileError` naming what is wrong. Before these checks some of
these ended the process with a traceback (deep nesting: ``RecursionError``; vectors of another
length: a ``ValueError`` from numpy at the first read) and some were used as if sound
(``"verified": "false"`` enabled the profile; ``NaN`` vectors read every card at 0.00).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tablectl.domain.cards import Card
from tablectl.vision import profile_check
from tablectl.vision.enrol import labels_from_csv
from tablectl.vision.model import EnrolmentError, ProfileError
from tablectl.vision.profile import DeckProfile
from tablectl.vision.recognise import Recogniser

Meta = dict[str, Any]
Arrays = dict[str, np.ndarray]


@pytest.fixture(scope="module")
def saved(board_profile: DeckProfile, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sound profile saved once (saving compresses a few megabytes: a second a time)."""
    where = tmp_path_factory.mktemp("sound") / "profile"
    board_profile.save(where)
    return where


def _copy(saved: Path, tmp_path: Path) -> Path:
    shutil.copytree(saved, tmp_path, dirs_exist_ok=True)
    return tmp_path


def _set(path: tuple[str, ...], value: object) -> Callable[[Meta], None]:
    def edit(meta: Meta) -> None:
        at = meta
        for key in path[:-1]:
            at = at[key]
        at[path[-1]] = value
    return edit


META_CASES: list[tuple[str, Callable[[Meta], None], str]] = [
    ("verified as a string", _set(("verified",), "false"), "verified: expected true or false"),
    ("verified as 0", _set(("verified",), 0), "verified: expected true or false"),
    ("threshold below 0", _set(("thresholds", "accept"), -1), r"thresholds\.accept: -1\.0 is "
     "outside"),
    ("threshold as a string", _set(("thresholds", "index"), "0.5"), r"thresholds\.index: "
     "expected a number"),
    ("threshold as true", _set(("thresholds", "margin"), True), r"thresholds\.margin: "
     "expected a number"),
    ("noise above 1", _set(("noise",), 7), r"noise: 7\.0 is outside"),
    ("deck not a list", _set(("deck",), {"a": 1}), "deck: expected a list of card codes"),
    ("deck card not a card", _set(("deck",), ["Zz"]), "inconsistent deck profile"),
    ("held back not a list", _set(("held_back",), "As"), "held_back: expected a list"),
    ("shoe window not numbers", _set(("shoe_roi",), [1, 2, "x", 4]), "shoe_roi: expected four"),
    ("shoe window empty", _set(("shoe_roi",), [0, 0, 0, 10]), "shoe_roi: .* is not a window"),
    ("suit colours not an object", _set(("suit_chroma",), [1, 2]), "expected an object"),
]


def _damaged_meta(saved: Path, tmp_path: Path, edit: Callable[[Meta], None]) -> Path:
    _copy(saved, tmp_path)
    meta = json.loads((tmp_path / "profile.json").read_text())
    edit(meta)
    (tmp_path / "profile.json").write_text(json.dumps(meta))
    return tmp_path


@pytest.mark.parametrize(("what", "edit", "said"), META_CASES, ids=[c[0] for c in META_CASES])
def test_a_bad_field_in_profile_json_is_refused(
        saved: Path, tmp_path: Path, what: str, edit: Callable[[Meta], None], said: str) -> None:
    where = _damaged_meta(saved, tmp_path, edit)
    with pytest.raises(ProfileError, match=said):
        DeckProfile.load(where)


LONG_CASES: list[tuple[str, Callable[[Meta], None], str]] = [
    ("4000 numbers for 3", _set(("index_on_card",), [1.5] * 4000), "index_on_card: expected 3"),
    ("4000 cards for a window", _set(("shoe_roi",), ["As"] * 4000), "shoe_roi: expected four"),
    ("a right-to-left text for a threshold", _set(("thresholds", "index"), "\u202e9" * 2000),
     r"thresholds\.index: expected a number, got '\\u202e9"),
]


@pytest.mark.parametrize(("what", "edit", "said"), LONG_CASES, ids=[c[0] for c in LONG_CASES])
def test_a_refused_value_is_shown_short_and_escaped(
        saved: Path, tmp_path: Path, what: str, edit: Callable[[Meta], None], said: str) -> None:
    # Before: the refusal echoed the whole value, 20 kB on one line for 4000 numbers, and a
    # right-to-left mark reached the terminal as it was (turning the line round).
    where = _damaged_meta(saved, tmp_path, edit)
    with pytest.raises(ProfileError, match=said) as refused:
        DeckProfile.load(where)
    line = str(refused.value)
    assert len(line) < 300 and "characters)" in line and "\u202e" not in line, line[:400]


def test_an_index_gate_that_would_let_reads_through_is_refused(
        board_profile: DeckProfile, saved: Path, tmp_path: Path) -> None:
    card = next(iter(board_profile.gates))

    def negative(meta: Meta) -> None:
        meta["gates"][str(card)]["margin"] = -0.5
    with pytest.raises(ProfileError, match=r"gates: margin: -0\.5 is outside"):
        DeckProfile.load(_damaged_meta(saved, tmp_path, negative))


RAW_CASES: list[tuple[str, str, str]] = [
    ("empty file", "", r"profile\.json: \$: empty"),
    ("not JSON", "{\"format\": 1", r"profile\.json: \$: not JSON"),
    ("nested past the parser", "[" * 100_000 + "]" * 100_000, "nested deeper than 4 levels"),
    ("a JSON array", "[1, 2]", "is not a JSON object"),
    ("NaN", "{\"format\": 1, \"noise\": NaN}", r"\$\.noise: NaN is not a number"),
]


@pytest.mark.parametrize(("what", "text", "said"), RAW_CASES, ids=[c[0] for c in RAW_CASES])
def test_an_unreadable_profile_json_is_refused(
        saved: Path, tmp_path: Path, what: str, text: str, said: str) -> None:
    _copy(saved, tmp_path)
    (tmp_path / "profile.json").write_text(text)
    with pytest.raises(ProfileError, match=said):
        DeckProfile.load(tmp_path)


def test_a_key_given_twice_is_refused(saved: Path, tmp_path: Path) -> None:
    """Which of two ``verified`` keys a reader keeps is the reader's choice: neither is."""
    _copy(saved, tmp_path)
    text = (tmp_path / "profile.json").read_text().rstrip()
    (tmp_path / "profile.json").write_text(text[:-1] + ', "verified": false}')
    with pytest.raises(ProfileError, match="'verified' appears twice"):
        DeckProfile.load(tmp_path)


def _arrays(saved: Path, tmp_path: Path) -> Arrays:
    _copy(saved, tmp_path)
    with np.load(tmp_path / "glyphs.npz") as data:
        return {k: data[k] for k in data.files}


NPZ_CASES: list[tuple[str, Callable[[Arrays], None], str]] = [
    ("NaN in the rank vectors", lambda a: a.__setitem__("rank", a["rank"] * np.nan),
     "rank: holds values that are not finite"),
    ("a missing row", lambda a: a.__setitem__("suit", a["suit"][:-1]), "suit: .* rows for"),
    ("text instead of numbers",
     lambda a: a.__setitem__("index", np.full((len(a["index"]), 2), "x")),
     "index: expected a 2-D array of numbers"),
    ("three dimensions", lambda a: a.__setitem__("layout", a["layout"][:, :, None]),
     "layout: expected a 2-D array"),
    ("faces and their labels differ", lambda a: a.__setitem__("face_cards", a["face_cards"][:3]),
     "face: .* rows for 3 face cards"),
]


@pytest.mark.parametrize(("what", "edit", "said"), NPZ_CASES, ids=[c[0] for c in NPZ_CASES])
def test_bad_exemplar_arrays_are_refused(
        saved: Path, tmp_path: Path, what: str, edit: Callable[[Arrays], None],
        said: str) -> None:
    arrays = _arrays(saved, tmp_path)
    edit(arrays)
    np.savez(tmp_path / "glyphs.npz", **arrays)
    with pytest.raises(ProfileError, match=said):
        DeckProfile.load(tmp_path)


@pytest.mark.parametrize("key", ["rank", "suit", "index", "layout", "face"])
def test_vectors_of_another_length_are_refused_before_any_read(
        saved: Path, tmp_path: Path, key: str) -> None:
    """A profile saved by a version with other glyph or face sizes loads (its file is sound)
    but the recogniser refuses it: compared with a read it would fail on every frame."""
    arrays = _arrays(saved, tmp_path)
    arrays[key] = arrays[key][:, :5]
    np.savez(tmp_path / "glyphs.npz", **arrays)
    loaded = DeckProfile.load(tmp_path)
    with pytest.raises(ProfileError, match=f"{key} vectors of length 5, this version reads"):
        Recogniser(loaded)


def test_a_profile_that_expands_beyond_the_limit_is_refused_unread(
        saved: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bound lowered to the sound profile's own size (a test does not make half a
    gigabyte): the same archive with its rank vectors doubled in zeros is refused."""
    arrays = _arrays(saved, tmp_path)
    sound = sum(a.nbytes for a in arrays.values())
    monkeypatch.setattr(profile_check, "MAX_NPZ_BYTES", sound + 4096)
    arrays["rank"] = np.zeros((2 * len(arrays["rank"]), arrays["rank"].shape[1]), np.float32)
    np.savez_compressed(tmp_path / "glyphs.npz", **arrays)
    with pytest.raises(ProfileError, match=r"glyphs\.npz expands to \d+ bytes \(at most"):
        DeckProfile.load(tmp_path)


def test_the_sound_profile_still_loads(board_profile: DeckProfile, saved: Path) -> None:
    loaded = DeckProfile.load(saved)
    Recogniser(loaded)
    assert loaded.verified and loaded.gates.keys() == board_profile.gates.keys()
    assert loaded.thresholds == board_profile.thresholds


def test_the_command_says_what_is_wrong_and_exits_2(saved: Path, tmp_path: Path) -> None:
    """``camera recognise`` with a profile nested past the parser: one line, exit 2."""
    prof = _copy(saved, tmp_path / "prof")
    (prof / "profile.json").write_text("[" * 100_000 + "]" * 100_000)
    image = tmp_path / "blank.png"
    import cv2
    cv2.imwrite(str(image), np.full((64, 64, 3), 255, np.uint8))
    done = subprocess.run([sys.executable, "-m", "tablectl", "camera", "recognise",
                           "--profile", str(prof), str(image)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "nested deeper than 4 levels" in done.stderr


LABEL_CASES: list[tuple[str, bytes, str]] = [
    ("larger than a labels file", b"file,card\n" + b"x" * (1024 * 1024) + b",As\n",
     "larger than 1024 KiB"),
    ("a field beyond the CSV reader", b"file,card\n" + b"x" * 200_000 + b",As\n",
     "not a CSV: field larger than field limit"),
    ("not UTF-8", b"\xff\xfe\x00garbage", r"not UTF-8 text \(byte 0\)"),
    ("a NUL byte", b"file,card\nAs.jpg\x00,As\n", "a NUL byte"),
    ("a bad card", b"file,card\nAs.jpg,Zz\n", "line 2: not a card"),
]


@pytest.mark.parametrize(("what", "data", "said"), LABEL_CASES, ids=[c[0] for c in LABEL_CASES])
def test_a_labels_csv_that_is_not_one_is_refused(tmp_path: Path, what: str, data: bytes,
                                                said: str) -> None:
    """``camera enrol --labels``: each was a traceback (``csv.Error``, ``UnicodeDecodeError``)
    or read a file of any size whole before these checks."""
    path = tmp_path / "labels.csv"
    path.write_bytes(data)
    with pytest.raises(EnrolmentError, match=said):
        labels_from_csv(path)


def test_a_labels_csv_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    path.write_bytes("\ufefffile,card\nace.jpg,As\n".encode())
    assert labels_from_csv(path) == {"ace.jpg": Card.parse("As")}


@pytest.mark.parametrize(("deck_id", "said"), [
    ("  ", "deck id: must not be empty"),
    ("red\x1b[2Jdeck", "control character U\\+001B"),
    ("x" * 65, "deck id: 65 characters, more than 64"),
])
def test_a_deck_id_no_console_can_show_is_refused(saved: Path, tmp_path: Path, deck_id: str,
                                                  said: str) -> None:
    """At enrolment (the profile is built) and in a saved profile edited by hand."""
    with pytest.raises(ProfileError, match=said):
        DeckProfile.from_exemplars(deck_id, [])
    with pytest.raises(ProfileError, match=said):
        DeckProfile.load(_damaged_meta(saved, tmp_path, _set(("deck_id",), deck_id)))
