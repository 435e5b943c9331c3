"""Every console control sends the command and arguments it says, on a touch screen; the
two-tap controls send nothing on the first tap; a dealer login gets no floor control. (Against
a stand-in daemon whose snapshot has no ``commands``: the console then judges by the phase.
``test_console_play.py`` plays the real daemon.)"""

from __future__ import annotations

from typing import Any

from playwright.async_api import expect

from tests.web.conftest import artifact
from tests.web.fake_table import FakeTable
from tests.web.test_console import login


async def test_console_controls_send_their_commands(stack_factory: Any, browser: Any) -> None:
    stack = await stack_factory()
    table = FakeTable(stack.broker.port)
    try:
        context = await browser.new_context(viewport={"width": 1280, "height": 800},
                                            has_touch=True)
        page = await context.new_page()
        await login(page, stack.url, "dealer1", "/console")
        await expect(page.locator("body[data-ready='1']")).to_have_count(1)
        await expect(page.locator("#to-act")).to_have_text("No one to act")
        await expect(page.locator("#wager")).to_be_hidden()  # no bet to size
        for floor_only in ("#floor-panel", "#cmd-kill-hand"):
            await expect(page.locator(floor_only)).to_be_hidden()
        sent = table.commands

        async def tap(selector: str) -> None:
            before = len(sent)
            await page.evaluate("document.getElementById('reply').removeAttribute('data-ok')")
            await page.tap(selector)
            await expect(page.locator("#reply")).to_have_attribute("data-ok", "true")
            assert len(sent) == before + 1  # the daemon replied after recording it

        await tap("#cmd-start-hand")
        assert sent[-1] == ("start_hand", {})
        table.doubtful_read("r17", "Shoe read Qh with low confidence: confirm?")
        await expect(page.locator(".banner-wait")).to_have_text("Waiting for the dealer")
        await expect(page.locator("#reads .read-msg")).to_have_text(
            "read r17 needs confirmation: Shoe read Qh with low confidence: confirm?")
        await page.screenshot(path=artifact("console-doubtful-read.png"))
        await tap("#reads .btn-go")
        assert sent[-1] == ("confirm_read", {"read": "r17"})
        await tap("#reads .btn-danger")
        assert sent[-1] == ("reject_read", {"read": "r17"})

        await page.fill("#manual-card", "Qh")
        await page.select_option("#manual-target", "board")
        await tap("#cmd-manual-card")
        assert sent[-1] == ("manual_card", {"card": "Qh", "board": True})
        await page.select_option("#manual-target", "3")
        await tap("#cmd-manual-card")
        assert sent[-1] == ("manual_card", {"card": "Qh", "seat": 3})

        count = len(sent)
        await page.tap("#cmd-misdeal")    # the first tap only arms it
        await expect(page.locator("#cmd-misdeal")).to_have_text("Tap again: MISDEAL")
        assert len(sent) == count
        await tap("#cmd-misdeal")
        assert sent[-1] == ("misdeal", {})

        await page.fill("#recall-hands", "3")
        await tap("#cmd-recall")
        assert sent[-1] == ("recall", {"hands": 3})
        # the stand-in's recall is not the daemon's shape: said in one line, no JSON, no crash
        await expect(page.locator("#recall-out")).to_have_text(
            "(a hand of the reply was not understood)")

        # Touch targets: every control is at least 48 px tall on the 10-inch screen.
        heights = await page.eval_on_selector_all(
            "button, input, select",
            "els => els.filter(e => e.offsetParent).map(e => e.offsetHeight)")
        assert heights and min(heights) >= 48, heights
        await context.close()
    finally:
        table.close()
