"""The console's run it twice / three times buttons (issue 28): offered only when the table's
snapshot says ``run_it`` would be taken, and sending the count they say."""

from __future__ import annotations

from typing import Any

from playwright.async_api import expect

from tests.web.conftest import TABLE
from tests.web.fake_table import FakeTable
from tests.web.test_console import login


async def test_the_console_sends_the_run_count(stack_factory: Any, browser: Any) -> None:
    stack = await stack_factory()
    table = FakeTable(stack.broker.port)
    try:
        page = await browser.new_page(viewport={"width": 1280, "height": 800})
        await login(page, stack.url, "dealer1", "/console")
        await expect(page.locator("body[data-ready='1']")).to_have_count(1)
        await expect(page.locator("#cmd-run-twice")).to_be_disabled()   # not offered
        env = table.snapshot(secure=False)
        table.seq += 1
        env["seq"] = table.seq
        env["data"]["commands"] = {"available": ["run_it"], "undo": None}
        table.pub(f"poker/v1/tables/{TABLE}/state", env, retain=True)
        await expect(page.locator("#cmd-run-twice")).to_be_enabled()
        await page.click("#cmd-run-three")
        await expect(page.locator("#reply")).to_have_attribute("data-ok", "true")
        assert table.commands[-1] == ("run_it", {"count": 3})
        env["data"]["commands"] = {"available": [], "undo": {"kind": "run_it", "count": 3}}
        table.seq += 1
        env["seq"] = table.seq
        table.pub(f"poker/v1/tables/{TABLE}/state", env, retain=True)
        await expect(page.locator("#cmd-undo")).to_contain_text("Undo: run it 3 times")
        await page.close()
    finally:
        table.close()
