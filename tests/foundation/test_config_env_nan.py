"""A number given through a ``TABLECTL_*`` variable is a string the schema parses: ``nan``,
``inf`` or ``1e999`` there got past the file's own check (``tablectl.config_text``, which sees
only the file) and was refused as "must be at most 3600, got 'nan'", a bound NaN does not
break. Now every config model refuses a NaN or an infinity as not a number."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablectl.config import load_config
from tablectl.domain.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "config" / "casino-holdem.toml"


@pytest.mark.parametrize("value", ["nan", "NaN", "-nan", "inf", "-infinity", "1e999", " nan "])
@pytest.mark.parametrize("variable", ["TABLECTL_ACCESS__MAX_COMMAND_AGE",
                                      "TABLECTL_ODDS__PRECISION"])
def test_a_nan_or_an_infinity_from_the_environment_is_not_a_number(variable: str,
                                                                    value: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(EXAMPLE, env={variable: value})
    key = variable.removeprefix("TABLECTL_").lower().replace("__", ".")
    [message] = [m for k, m in info.value.problems if k == key]
    assert message.startswith("must be a number, got "), message


def test_a_finite_number_from_the_environment_is_taken() -> None:
    config = load_config(EXAMPLE, env={"TABLECTL_ACCESS__MAX_COMMAND_AGE": "30"})
    assert config.access.max_command_age == 30
