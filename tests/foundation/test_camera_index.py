"""A camera named by its device index takes ASCII digits 0..9999 only: ``str.isdigit`` let
``"²"`` through the config (then ``int`` raised ValueError when the camera opened) and read
``"٣"`` as camera 3; a 70-digit index went to OpenCV as a Python int it cannot hold."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablectl.cli import main
from tablectl.config_urls import camera_index, check_camera_url
from tests.tables import two_seat_table

ROOT = Path(__file__).resolve().parents[2]
REFUSED = ["²", "٣", "１", "10000", "0" * 70, "-1", "+1", " 1", "1e3", ""]


@pytest.mark.parametrize("url", REFUSED)
def test_a_camera_index_that_is_not_ascii_digits_0_to_9999_is_refused(url: str) -> None:
    with pytest.raises(ValueError, match=r"not a camera (URL|device index): .*0\.\.9999"):
        check_camera_url(url)


@pytest.mark.parametrize(("url", "index"), [("0", 0), ("7", 7), ("9999", 9999),
                                            ("/dev/video2", None), ("rtsp://cam/1", None)])
def test_an_index_a_path_and_a_stream_are_taken(url: str, index: int | None) -> None:
    assert check_camera_url(url) == url
    assert camera_index(url) == index


def _config(tmp_path: Path, url: str) -> Path:
    return two_seat_table(tmp_path, f'[[sources]]\nkind = "camera"\nurl = "{url}"\n'
                                    'profile = "profile"\n')


@pytest.mark.parametrize("url", ["²", "٣", "123456"])
def test_config_check_refuses_the_index(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        url: str) -> None:
    assert main(["config", "check", str(_config(tmp_path, url))]) == 2
    got = capsys.readouterr()
    assert "ok" not in got.out
    assert "sources[0].url: not a camera " in got.err and "0..9999" in got.err
    assert "Traceback" not in got.err


@pytest.mark.parametrize("url", ["²", "٣", "123456"])
def test_enrol_live_refuses_the_index_as_a_usage_error(capsys: pytest.CaptureFixture[str],
                                                       url: str) -> None:
    with pytest.raises(SystemExit) as info:
        main(["camera", "enrol", "--live", url, "--deck-id", "d", "--out", "unused"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "argument --live: not a camera " in err and "0..9999" in err
