"""Issue 27, item 1: on a broker without passwords the console commands as a named broker
user, the same at every start (``[web] command_user``, default ``console-{table}``), and
``tablectl config check`` warns when that user has no role at the table. On a real broker
with the real daemon: a console whose user has a role plays; one whose user has none says so
on the page, offers nothing, and the table refuses what it is sent."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import expect

from tablectl.cli import main
from tablectl.config import load_config, web_command_user
from tablectl.config_check import console_user_findings
from tablectl.domain.errors import ConfigError
from tests.conftest import Broker
from tests.web.test_console_play import open_console, start_stack
from tests.web.test_whole_stack import WholeStack

BASE = """
deck = "{root}/config/decks/demo-red.csv"
[table]
id = "t9"
name = "Nine"
[game]
variant = "holdem"
structure = "no-limit"
[game.stakes]
small_blind = 100
big_blind = 200
[[seats]]
number = 1
stack = 1000
[[seats]]
number = 2
stack = 1000
[[sources]]
kind = "manual"
name = "hand"
[access.roles]
{roles}
[journal]
path = "{tmp}/j.sqlite"
[web]
{web}
"""
ROOT = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, roles: str, web: str = "") -> Path:
    path = tmp_path / "t9.toml"
    path.write_text(BASE.format(root=ROOT, roles=roles, web=web, tmp=tmp_path))
    return path


def test_config_check_warns_when_the_console_user_has_no_role(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, 'floor-t9 = "floor"')
    assert main(["config", "check", str(path)]) == 0            # a warning, not a failure
    captured = capsys.readouterr()
    out = captured.out + captured.err
    assert "warning: access.roles: the dealer console sends commands as 'console-t9', " \
           "which has no role here" in out
    assert 'add console-t9 = "dealer"' in out
    path = write(tmp_path, 'floor-t9 = "floor"\nconsole-t9 = "dealer"')
    assert main(["config", "check", str(path)]) == 0
    captured = capsys.readouterr()
    assert "console-t9" not in captured.out + captured.err
    # a name of one's own
    path = write(tmp_path, 'floor-t9 = "floor"\npit = "dealer"', 'command_user = "pit"')
    config = load_config(path)
    assert web_command_user(config) == web_command_user(config) == "pit"
    assert console_user_findings(config) == []


def test_command_user_must_be_the_console_credentials_user(tmp_path: Path) -> None:
    (tmp_path / "console.toml").write_text('username = "webdealer-t9"\npassword = "x"\n')
    path = write(tmp_path, 'webdealer-t9 = "dealer"',
                 'console_credentials = "console.toml"\ncommand_user = "pit"')
    config = load_config(path)
    with pytest.raises(ConfigError, match=r"'pit' is not the username of "
                                          r"web\.console_credentials"):
        web_command_user(config)
    [finding] = console_user_findings(config)
    assert finding.level == "error" and finding.key == "web.command_user"
    path = write(tmp_path, 'webdealer-t9 = "dealer"', 'console_credentials = "console.toml"')
    assert web_command_user(load_config(path)) == "webdealer-t9"


@pytest.fixture
async def no_role_stack(tmp_path: Path, mosquitto: Broker) -> AsyncIterator[WholeStack]:
    async for stack in start_stack(tmp_path, mosquitto, "dealer", user="someone-else"):
        yield stack


async def test_a_console_user_without_a_role_is_told(no_role_stack: WholeStack,
                                                     browser: Any) -> None:
    stack = no_role_stack
    page = await open_console(browser, stack.url, "dealer1")
    banner = page.locator("#no-role")
    await expect(banner).to_be_visible()
    await expect(banner).to_contain_text("\u201cconsole-t01\u201d, which has no role")
    enabled = await page.eval_on_selector_all(
        "[data-cmd]", "els => els.filter(e => e.offsetParent !== null && !e.disabled)"
                      ".map(e => e.id)")
    assert enabled == []
    reply = await page.evaluate("""async () => {
        const r = await fetch('/api/cmd/start_hand', {method: 'POST',
            headers: {'Content-Type': 'application/json', 'X-CSRF-Token': session.csrf},
            body: JSON.stringify({args: {}})});
        return await r.json();
    }""")
    assert reply["ok"] is False and reply["error"]["code"] == "not_authorised", reply
    assert "console-t01" in reply["error"]["reason"]


@pytest.fixture
async def own_name_stack(tmp_path: Path, mosquitto: Broker) -> AsyncIterator[WholeStack]:
    async for stack in start_stack(tmp_path, mosquitto, "dealer", user="pit-console",
                                   web_extra='command_user = "pit-console"',
                                   sends_as="pit-console"):
        yield stack


async def test_a_named_command_user_with_a_role_commands(own_name_stack: WholeStack,
                                                         browser: Any) -> None:
    stack = own_name_stack
    page = await open_console(browser, stack.url, "dealer1")
    await expect(page.locator("#no-role")).to_be_hidden()
    await page.tap("#cmd-start-hand")
    await expect(page.locator("#reply")).to_have_attribute("data-ok", "true")
    await expect(page.locator("#hand-no")).to_have_text("Hand #1")
    assert stack.daemon.controller.hand_id == "t01-000001"
