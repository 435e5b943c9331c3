"""The default log level of each command: the daemons (``run``, ``web``) keep their INFO lines,
the commands a person runs to look at something (``watch``, ``doctor``, ``equity``, ``demo``)
do not show the MQTT client's routine "connected" line (tablectl/cli/logs.py)."""

from __future__ import annotations

import pytest

from tablectl.cli import build_parser, main
from tablectl.cli.logs import log_level_of
from tests.conftest import Broker


@pytest.mark.parametrize(("argv", "level"), [
    (["run", "--config", "t.toml"], "info"),
    (["web", "--config", "t.toml"], "info"),
    (["watch", "--table", "t1"], "warning"),
    (["watch", "--table", "t1", "--check"], "warning"),
    (["doctor", "--config", "t.toml"], "warning"),
    (["equity", "--variant", "holdem", "AsAh", "KsKh"], "warning"),
    (["demo"], "error"),
    (["--log-level", "debug", "watch", "--table", "t1"], "debug"),
    (["--log-level", "warning", "run", "--config", "t.toml"], "warning"),
])
def test_each_command_has_its_default_log_level(argv: list[str], level: str) -> None:
    assert log_level_of(build_parser().parse_args(argv)) == level


def test_watch_does_not_show_the_mqtt_connected_line(mosquitto: Broker,
                                                     capfd: pytest.CaptureFixture[str]) -> None:
    argv = ["watch", "--broker", mosquitto.url, "--table", "quiet", "--plain", "--timeout", "0.2"]
    assert main(argv) == 0
    assert "mqtt: connected" not in capfd.readouterr().err
    # the line is there for whoever asks for it
    assert main(["--log-level", "info", *argv]) == 0
    assert "mqtt: connected" in capfd.readouterr().err
