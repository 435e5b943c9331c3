"""The console's bomb pot and double board buttons (issue 28): shown only where the table's
snapshot says the house deals them (``commands.formats``), enabled when ``start_hand`` would
be taken, and sending the format they name; a bomb pot's ante typed in money."""

from __future__ import annotations

from typing import Any

from playwright.async_api import expect

from tests.reliability.harness import poll_until
from tests.web.conftest import TABLE
from tests.web.fake_table import FakeTable
from tests.web.test_console import login


async def test_the_console_starts_bomb_pots_and_double_boards(stack_factory: Any,
                                                               browser: Any) -> None:
    stack = await stack_factory()
    table = FakeTable(stack.broker.port)
    table.handle = lambda name, args: None     # type: ignore[method-assign]  # record only

    def publish(commands: dict[str, Any]) -> None:
        env = table.snapshot(secure=False)
        table.seq += 1
        env["seq"] = table.seq
        env["data"]["phase"] = "idle"
        env["data"]["commands"] = commands
        table.pub(f"poker/v1/tables/{TABLE}/state", env, retain=True)

    async def click_and_send(button: Any) -> None:
        """Click, and wait until the table has the command the click sent."""
        before = len(table.commands)
        await button.click()
        await poll_until(lambda: len(table.commands) > before, 10)

    try:
        page = await browser.new_page(viewport={"width": 1280, "height": 800})
        await login(page, stack.url, "dealer1", "/console")
        await expect(page.locator("body[data-ready='1']")).to_have_count(1)
        publish({"available": ["start_hand"], "undo": None})
        await expect(page.locator("#cmd-start-hand")).to_be_enabled()
        await expect(page.locator("#formats")).to_be_hidden()       # the house deals neither

        publish({"available": ["start_hand"], "undo": None,
                 "formats": {"max_bomb_pot": 500, "double_board": True}})
        bomb, double = page.locator("#cmd-start-bomb"), page.locator("#cmd-start-double")
        await expect(bomb).to_be_enabled()
        await expect(bomb).to_contain_text("Bomb pot $5")
        await click_and_send(bomb)
        await expect(page.locator("#reply")).to_have_attribute("data-ok", "true")
        assert table.commands[-1] == ("start_hand", {"bomb": 500})

        await page.fill("#bomb-amount", "2")                        # money: 200 chip units
        await expect(bomb).to_contain_text("Bomb pot $2")
        await click_and_send(bomb)          # (the reply shown is still the last one's: ok)
        assert table.commands[-1] == ("start_hand", {"bomb": 200})
        await page.fill("#bomb-amount", "9")                        # over the house's most
        await expect(bomb).to_be_disabled()
        await page.fill("#bomb-amount", "")

        await click_and_send(double)
        assert table.commands[-1] == ("start_hand", {"double_board": True})

        # bomb pots only: no double board button; mid-hand (start_hand not taken) nothing
        publish({"available": ["start_hand"], "undo": None,
                 "formats": {"max_bomb_pot": 300, "double_board": False}})
        await expect(double).to_be_hidden()
        await expect(bomb).to_contain_text("Bomb pot $3")
        publish({"available": ["action"], "undo": None,
                 "formats": {"max_bomb_pot": 300, "double_board": False}})
        await expect(bomb).to_be_disabled()
        await page.close()
    finally:
        table.close()
