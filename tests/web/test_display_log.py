"""The display's action log comes from the snapshot: a display opened mid-hand shows the hand's
whole log from "Hand #1 started" and the blinds on (issue 27 item 5), against the whole real
stack; and the money format is the table's, decided by its stakes, in Chromium."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from playwright.async_api import expect

from tablectl.game import Act, ActionIn, Street
from tests.web.conftest import TABLE, artifact
from tests.web.fake_table import GAME, STAKES
from tests.web.paho_link import SyncClient
from tests.web.test_display import state, status
from tests.web.test_whole_stack import (  # noqa: F401 - the whole_stack fixture
    Dealer,
    WholeStack,
    whole_stack,
)

COMMON_JS = Path(__file__).resolve().parents[2] / "tablectl" / "web" / "static" / "common.js"


async def test_a_display_opened_mid_hand_shows_the_whole_log(whole_stack: WholeStack,  # noqa: F811
                                                            browser: Any) -> None:
    stack = whole_stack
    dealer = Dealer(stack)
    await stack.send("start_hand")
    while True:       # play to the turn: blinds, a preflop round, the flop and its bets
        exp = await dealer.deal()
        assert isinstance(exp, Act)
        if dealer.mirror.view().street is Street.TURN:
            break
        kind, amount = dealer.choose(exp)
        dealer.mirror.apply(ActionIn(exp.seat, kind, amount))
        await stack.send("action", {"seat": exp.seat, "kind": kind.value, "amount": amount})
    log = stack.daemon.controller.public_snapshot()["log"]
    assert isinstance(log, list) and len(log) >= 8

    page = await browser.new_page(viewport={"width": 1920, "height": 1080})
    await page.goto(stack.url + "/")
    items = page.locator("#log li")
    await expect(items).to_have_count(len(log))
    lines = [str(t) for t in reversed(await items.all_inner_texts())]   # oldest first
    assert lines[0] == "Hand #1 started"
    assert lines[1].endswith("posts the small blind $1"), lines
    assert lines[2].endswith("posts the big blind $2"), lines
    assert "Flop: " in "\n".join(lines) and lines[-1].startswith("Turn: "), lines
    assert [await i.get_attribute("data-n") for i in await items.all()] == \
        [str(e["n"]) for e in reversed(log)]  # type: ignore[index]
    await page.screenshot(path=artifact("display-mid-hand-log.png"))
    # ... the same as a display that followed the hand from its start would have: the next
    # action arrives as one more line on top
    kind, amount = dealer.choose(exp)
    await stack.send("action", {"seat": exp.seat, "kind": kind.value, "amount": amount})
    await expect(items).to_have_count(len(log) + 1)
    assert lines == [str(t) for t in reversed(await items.all_inner_texts())][:-1]
    await page.close()


async def test_the_money_format_is_the_tables_and_never_changes_with_the_amounts(
        browser: Any) -> None:
    """Cents are shown as the stakes decide: "$1/$2" whatever the hand's amounts (the issue
    saw "$1/$2" one hand and "$1.00/$2.00" the next), an amount that is not whole keeps its
    cents (never rounded); a table whose stakes have cents shows them everywhere."""
    page = await browser.new_page()
    await page.set_content("<!DOCTYPE html><html><body></body></html>")
    await page.add_script_tag(path=str(COMMON_JS))

    async def shown(stakes: dict[str, int | str], pots: list[int], log: list[dict[str, Any]],
                    amounts: list[int]) -> list[str]:
        view = {"snapshot": {"stakes": stakes, "pots": [{"amount": a} for a in pots],
                             "seats": []}, "log": log}
        out: list[str] = await page.evaluate(
            "([view, amounts]) => { setMoneyFormat(view); return [stakesText(view.snapshot),"
            " ...amounts.map((a) => money(a, view.snapshot.stakes))]; }", [view, amounts])
        return out

    whole = {"small_blind": 100, "big_blind": 200, "currency": "USD", "units_per_currency": 100}
    assert await shown(whole, [1800], [], [20100, 1800]) == ["$1/$2", "$201", "$18"]
    # the next hand has an odd pot and an amount with cents in its log: still $1/$2
    odd = [{"type": "action", "amount": 150, "to": 350, "stack": 33682}]
    assert await shown(whole, [1850], odd, [20100, 33682, 1850]) == \
        ["$1/$2", "$201", "$336.82", "$18.50"]
    cents = {**whole, "small_blind": 50, "big_blind": 100}
    assert await shown(cents, [1800], [], [20000, 33682]) == \
        ["$0.50/$1.00", "$200.00", "$336.82"]
    euros = {**whole, "currency": "EUR", "units_per_currency": 1}
    assert await shown(euros, [], [], [1234567]) == ["\u20ac100/\u20ac200", "\u20ac1,234,567"]
    await page.close()


async def test_a_long_hand_shows_its_start_and_end_and_says_what_is_left_out(
        stack_factory: Any, browser: Any) -> None:
    """A snapshot whose log left entries out (first 24, last 96): newest first, then a line
    that says how many are not shown, then the hand's first entries."""
    stack = await stack_factory()
    daemon = SyncClient(stack.broker.port, "controller-t01")
    head = [{"type": "hand_started", "hand": {"id": "t01-000042", "number": 42}, "button": 3,
             "seats": [{"seat": 3, "name": "Brook", "stack": 20000}], "n": 1,
             "game": GAME, "stakes": STAKES}]
    head += [{"type": "action", "seat": 3, "kind": "check", "amount": 0, "to": 0,
              "all_in": False, "stack": 20000, "n": n} for n in range(2, 25)]
    tail = [{"type": "action", "seat": 5, "kind": "check", "amount": 0, "to": 0,
             "all_in": False, "stack": 17400, "n": n} for n in range(30, 126)]
    try:
        daemon.publish(f"poker/v1/tables/{TABLE}/status", json.dumps(status("online")).encode(),
                       retain=True)
        daemon.publish(f"poker/v1/tables/{TABLE}/state", json.dumps(
            state(10, log=head + tail, log_omitted=5)).encode(), retain=True)
        page = await browser.new_page(viewport={"width": 1920, "height": 1080})
        await page.goto(stack.url + "/")
        items = page.locator("#log li")
        await expect(items).to_have_count(24 + 96 + 1)
        texts = await items.all_inner_texts()
        assert texts[0] == "Cy checks" and texts[96] == "\u2026 5 earlier entries not shown \u2026"
        assert texts[-1] == "Hand #42 started" and texts[97] == "Brook checks"
        assert await items.nth(0).get_attribute("data-n") == "125"
        await page.close()
    finally:
        daemon.close()
