"""``tablectl camera enrol`` and ``tablectl camera recognise`` on image files."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from hardware_sim.camera import SHOE_ROI, SimCamera, random_style
from tablectl.cli import main
from tablectl.domain.cards import FULL_DECK, Rank
from tablectl.vision.profile import DeckProfile


@pytest.fixture(scope="module")
def enrol_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One board photo per card, named like ``As.png`` and ``10h.png``."""
    d = tmp_path_factory.mktemp("enrol")
    cam = SimCamera(41, random_style(41), strength=0.4)
    for card in FULL_DECK:
        name = f"10{card.suit.value}" if card.rank is Rank.TEN else str(card)
        cv2.imwrite(str(d / f"{name}.png"), cam.board_frame([card], (140, 160))[0])
    return d


def test_enrol_then_recognise_json(enrol_dir: Path, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    images = sorted(str(p) for p in enrol_dir.glob("*.png"))
    profile = tmp_path / "profile"
    assert main(["camera", "enrol", "--deck-id", "blue", "--out", str(profile), *images]) == 0
    shown = capsys.readouterr()
    assert "52/52 read back correctly" in shown.out
    # progress on stderr (not a terminal here: plain lines), each image enrolled and read back
    assert shown.err.strip().splitlines()[-1] == "enrolling deck blue: 104/104 done", shown.err
    cam = SimCamera(42, random_style(41), strength=0.8)
    deal = cam.shuffled_deck()[:4]
    board = tmp_path / "board.jpg"
    cv2.imwrite(str(board), cam.board_frame(deal, (120, 140))[0])
    assert main(["camera", "recognise", "--profile", str(profile), "--json",
                 str(board), str(enrol_dir / "10d.png")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    first, second = (json.loads(line) for line in lines)
    assert sorted(r["card"] for r in first) == sorted(str(c) for c in deal)
    assert all(set(r) == {"card", "confidence", "status", "quad"} for r in first)
    assert all(len(r["quad"]) == 4 for r in first)
    assert [(r["card"], r["status"]) for r in second] == [("Td", "accepted")]


def test_enrol_refuses_bad_input_and_writes_nothing(enrol_dir: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "p"
    bad = tmp_path / "joker.png"
    ace = cv2.imread(str(enrol_dir / "As.png"))
    assert ace is not None
    cv2.imwrite(str(bad), ace)
    assert main(["camera", "enrol", "--deck-id", "x", "--out", str(out), str(bad)]) == 2
    assert "does not start with a card code" in capsys.readouterr().err
    few = [str(enrol_dir / "As.png"), str(enrol_dir / "Kd.png")]
    assert main(["camera", "enrol", "--deck-id", "x", "--out", str(out), *few]) == 2
    assert "missing" in capsys.readouterr().err
    assert not out.exists()


def test_a_photo_with_no_card_is_skipped_not_fatal(enrol_dir: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """One photo shows no card (the Ks is a shot of the empty table): enrolment goes on
    without it, names it, exits 1, and the profile reads the Ks from the rank and suit
    learnt on the other cards."""
    photos = tmp_path / "photos"
    photos.mkdir()
    for p in enrol_dir.glob("*.png"):
        (photos / p.name).write_bytes(p.read_bytes())
    cv2.imwrite(str(photos / "Ks.png"), SimCamera(45).board_frame([], (140, 160))[0])
    out = tmp_path / "p"
    assert main(["camera", "enrol", "--deck-id", "blue", "--out", str(out),
                 *sorted(str(p) for p in photos.glob("*.png"))]) == 1
    said = capsys.readouterr()
    assert "Ks.png: no card index found for Ks" in said.out, said.out
    assert "51/51 read back correctly" in said.out
    assert "1 card of the deck was not shown (Ks)" in said.out
    assert main(["camera", "recognise", "--profile", str(out), "--json",
                 str(enrol_dir / "Ks.png")]) == 0
    (read,) = json.loads(capsys.readouterr().out)
    assert read["card"] == "Ks" and read["status"] in ("accepted", "needs_confirmation")
    # without the only photo of a rank, the deck cannot be built: exit 2, the photo named
    for p in photos.glob("K*.png"):
        if p.name != "Ks.png":
            p.unlink()
    assert main(["camera", "enrol", "--deck-id", "blue", "--out", str(tmp_path / "q"),
                 *sorted(str(p) for p in photos.glob("*.png"))]) == 2
    err = capsys.readouterr().err
    assert "missing ranks: K" in err and "no card index found in: Ks.png (Ks)" in err
    assert not (tmp_path / "q").exists()


def test_recognise_with_a_missing_profile(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    img = tmp_path / "x.png"
    cv2.imwrite(str(img), SimCamera(43).shoe_frame(None))
    assert main(["camera", "recognise", "--profile", str(tmp_path), str(img)]) == 2
    assert "not a deck profile" in capsys.readouterr().err


def test_recognise_a_missing_image_says_so(board_profile: DeckProfile, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    profile = tmp_path / "p"
    board_profile.save(profile)     # the session's enrolled deck: a whole enrolment is not needed
    assert main(["camera", "recognise", "--profile", str(profile),
                 str(tmp_path / "gone.jpg")]) == 2
    assert capsys.readouterr().err.strip() == (
        f"camera recognise: {tmp_path / 'gone.jpg'}: no such file")


def test_shoe_mode_enrol_with_roi_and_csv(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    cam = SimCamera(44, random_style(44), strength=0.3)
    rows = ["file,card"]
    images = []
    for i, card in enumerate(FULL_DECK):
        path = tmp_path / f"frame{i:02d}.png"
        cv2.imwrite(str(path), cam.shoe_frame(card))
        rows.append(f"{path.name},{card}")
        images.append(str(path))
    labels = tmp_path / "labels.csv"
    labels.write_text("\n".join(rows) + "\n")
    roi = ",".join(str(v) for v in SHOE_ROI)
    out = tmp_path / "shoe-profile"
    assert main(["camera", "enrol", "--deck-id", "shoe", "--out", str(out), "--mode", "shoe",
                 "--roi", roi, "--labels", str(labels), *images]) == 0
    enrolled = capsys.readouterr().out
    # enrolment measured its own deck: the closest pairs by index, each with its verdict
    assert "closest pairs by index" in enrolled
    assert "index alone needs a rank margin of" in enrolled or "face agrees" in enrolled
    probe = tmp_path / "probe.png"
    cv2.imwrite(str(probe), cam.shoe_frame(FULL_DECK[33]))
    explained = tmp_path / "explained"
    assert main(["camera", "recognise", "--profile", str(out), "--mode", "shoe", "--json",
                 "--explain", str(explained), str(probe)]) == 0
    (read,) = json.loads(capsys.readouterr().out)
    assert read["card"] == str(FULL_DECK[33])
    assert read["quad"] is None
    frame = cv2.imread(str(probe))
    drawn = cv2.imread(str(explained / "probe.explain.png"))
    assert drawn is not None and drawn.shape == frame.shape
    x, y, w, h = SHOE_ROI
    changed = (drawn != frame).any(axis=2)
    assert changed[y + h // 2, x - 1:x + 2].any(), "the index window is not drawn"
    assert not changed[y + 5:y + h - 5, x + 5:x + w - 5].all(), "the window is covered"


def test_enrol_takes_every_photo_of_a_card_and_prints_the_spread(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two photos of each card named ``td_1.png``/``td_2.png``: both are enrolled, and
    enrolment prints the spread it measured between them (tablectl/vision/spread.py)."""
    cam = SimCamera(45, random_style(45), strength=0.3)
    images = []
    for card in FULL_DECK:
        for n in (1, 2):
            path = tmp_path / f"{str(card).lower()}_{n}.png"
            cv2.imwrite(str(path), cam.shoe_frame(card))
            images.append(str(path))
    roi = ",".join(str(v) for v in SHOE_ROI)
    out = tmp_path / "two-photos"
    assert main(["camera", "enrol", "--deck-id", "two", "--out", str(out), "--mode", "shoe",
                 "--roi", roi, *images]) == 0
    enrolled = capsys.readouterr().out
    assert "from 104 images" in enrolled
    assert "spread between photos of the same card (52 card(s) shown in two" in enrolled
    meta = json.loads((out / "profile.json").read_text())
    assert {g["photos"] for g in meta["print_gates"].values()} == {2}
    assert len(meta["print_gates"]) == 52


def test_a_deck_text_pasted_by_mistake_is_refused_in_one_short_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Before: the refusal echoed all 100,000 characters of it.
    with pytest.raises(SystemExit) as ended:
        main(["camera", "enrol", "--deck-id", "x", "--out", str(tmp_path / "p"),
              "--deck", "Ah " * 33_000, "a.jpg"])
    assert ended.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "argument --deck" in err and "98999 characters" in err and len(err) < 300, err
    assert not (tmp_path / "p").exists()
