"""A number refused on a command line: the usage line both CLIs (``tablectl``,
``hardware_sim``) must print for it, shared by their tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest


def echoed(value: str) -> str:
    """How a refusal shows ``value``: at most 40 characters, as typed when it is printable
    ASCII, else escaped as ``ascii()`` writes it."""
    cut = value[:40] + ("..." if len(value) > 40 else "")
    return cut if cut.isascii() and cut.isprintable() else ascii(cut)


def assert_number_refused(main: Callable[[Sequence[str]], object], argv: list[str],
                          option: str, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``main(argv + [option, value])`` ends in argparse's usage error (exit 2) naming the
    option and the value as :func:`echoed` shows it, in one short line."""
    with pytest.raises(SystemExit) as ended:
        main([*argv, option, value])
    assert ended.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert f"argument {option}: {echoed(value)}: not a " in err, err
    assert len(err) < 200
