"""The console built for a dealer's hands, against the whole real stack on a broker without
passwords: a simulated RFID shoe, the real daemon, ``run_web`` with no credentials at all
(its commands go out as the named user ``console-t01`` of ``[web] command_user``'s default)
and Debian's chromium.

* Whole hands are played using only the controls the console enables (taps, keyboard
  shortcuts, quick sizes, the numeric pad); before every step, every control shown disabled
  is sent straight to the daemon under the console's broker user and must be refused.
* A dealer login sees no floor control; a floor login seats, adjusts (in money) and unseats.
* "Recall last hands" shows the lines of ``tablectl recall``, not JSON.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import expect

from hardware_sim.devices import SimShoe
from hardware_sim.serve import PipeDevice
from tablectl.app import run_daemon, run_web
from tablectl.clock import SystemClock
from tablectl.config import load_config
from tablectl.daemon import TableDaemon
from tablectl.game import ActionIn, ActionKind, Done, Showdown, ShowIn
from tablectl.sources.rfid import RfidShoeSource
from tablectl.web.auth import hash_password
from tests.conftest import Broker, free_port
from tests.daemon.helpers import Console
from tests.web.conftest import artifact
from tests.web.test_whole_stack import (
    NAMES,
    STACKS,
    TABLE,
    Dealer,
    WholeStack,
    _web_up,
    dollars,
)

ROOT = Path(__file__).resolve().parents[2]
COMMAND_USER = "console-t01"    # [web] command_user's default for table t01
PASSWORDS = {"dealer1": "felt-and-chips", "floor1": "pit-boss-7"}

CONFIG = """
deck = "{root}/config/decks/demo-red.csv"
button = 1
[table]
id = "{table}"
name = "Table One"
[game]
variant = "holdem"
structure = "no-limit"
[game.stakes]
small_blind = 100
big_blind = 200
{seats}
[[sources]]
kind = "rfid-shoe"
name = "shoe"
url = "/dev/serial/by-id/sim-shoe"
[access.roles]
{command_user} = "{role}"
[mqtt]
url = "mqtt://127.0.0.1:{port}"
[journal]
path = "{tmp}/journal.sqlite"
[web]
users = "users.toml"
{web_extra}
"""


def users_toml() -> str:
    return "".join(f'[[users]]\nname = "{name}"\nrole = "{name[:-1]}"\n'
                   f'password = "{hash_password(pw, n=2**10)}"\n\n'
                   for name, pw in PASSWORDS.items())


async def start_stack(tmp_path: Path, broker: Broker, role: str, *,
                      user: str = COMMAND_USER, web_extra: str = "",
                      sends_as: str = COMMAND_USER) -> AsyncIterator[WholeStack]:
    """The whole stack with ``[access.roles] {user} = {role}``; ``sends_as``: the broker
    user the console is expected to command as (the direct console uses it)."""
    seats = "\n".join(f'[[seats]]\nnumber = {n}\nname = "{NAMES[n]}"\nstack = {s}\n'
                      for n, s in STACKS.items())
    (tmp_path / "users.toml").write_text(users_toml())
    path = tmp_path / "table.toml"
    path.write_text(CONFIG.format(root=ROOT, table=TABLE, seats=seats, port=broker.port,
                                  tmp=tmp_path, command_user=user, role=role,
                                  web_extra=web_extra))
    config = load_config(path)
    clock = SystemClock()
    deck = config.load_deck()
    shoe = SimShoe(deck, clock=clock, seed=11)
    pipe = PipeDevice(shoe, clock=clock)
    source = RfidShoeSource("shoe", "sim", clock=clock, opener=pipe.open)
    ready: asyncio.Future[TableDaemon] = asyncio.get_running_loop().create_future()
    daemon_task = asyncio.create_task(run_daemon(config, clock=clock, sources=[source],
                                                 ready=ready.set_result))
    port = free_port()
    web_task = asyncio.create_task(run_web(config, host="127.0.0.1", port=port))
    # what the console sends, sent straight to the daemon under the same broker user
    direct = Console(broker.host, broker.port, TABLE, sends_as)
    url = f"http://127.0.0.1:{port}"
    try:
        daemon = await asyncio.wait_for(ready, 10)
        await asyncio.wait_for(_web_up(url, web_task), 15)
        yield WholeStack(config, deck, daemon, shoe, url, direct)
    finally:
        direct.close()
        for task in (web_task, daemon_task):
            task.cancel()
        for task in (web_task, daemon_task):
            with pytest.raises(asyncio.CancelledError):
                await task
        await pipe.aclose()


@pytest.fixture
async def dealer_stack(tmp_path: Path, mosquitto: Broker) -> AsyncIterator[WholeStack]:
    async for stack in start_stack(tmp_path, mosquitto, "dealer"):
        yield stack


@pytest.fixture
async def floor_stack(tmp_path: Path, mosquitto: Broker) -> AsyncIterator[WholeStack]:
    async for stack in start_stack(tmp_path, mosquitto, "floor"):
        yield stack


async def open_console(browser: Any, url: str, user: str) -> Any:
    page = await browser.new_page(viewport={"width": 1280, "height": 800}, has_touch=True)
    await page.goto(url + "/console")
    await page.fill("#user", user)
    await page.fill("#password", PASSWORDS[user])
    await page.click("#login-submit")
    await page.wait_for_url(url + "/console")
    await expect(page.locator("body[data-ready='1']")).to_have_count(1)
    await expect(page.locator("#live")).to_have_text("live")
    return page


SYNCED = ("hand", "phase", "street", "to_act", "commands", "board", "results")


async def synced(page: Any, daemon: TableDaemon) -> None:
    """Wait until the page shows the daemon's current snapshot (the daemon waits for the
    next input: its state does not move meanwhile)."""
    want = json.loads(json.dumps({k: daemon.public_snapshot().get(k) for k in SYNCED}))
    async with asyncio.timeout(10):
        while True:
            shown = await page.evaluate("() => view && view.snapshot")
            if shown is not None and {k: shown.get(k) for k in SYNCED} == want:
                return
            await asyncio.sleep(0.02)


async def disabled_are_refused(page: Any, stack: WholeStack) -> int:
    """Send every command control shown disabled straight to the daemon: each is refused."""
    rows = await page.eval_on_selector_all(
        "[data-cmd]", "els => els.filter(e => e.offsetParent !== null && e.disabled)"
                      ".map(e => [e.id, e.dataset.cmd, e.dataset.args])")
    for node_id, name, args in rows:
        reply = await asyncio.to_thread(stack.console.send, name, json.loads(args))
        assert reply["status"] == "error", (node_id, name, args, reply)
    return len(rows)


async def test_whole_hands_with_only_enabled_controls(dealer_stack: WholeStack,
                                                      browser: Any) -> None:
    stack = dealer_stack
    page = await open_console(browser, stack.url, "dealer1")
    # a dealer login: no floor control at all
    for hidden in ("#floor-panel", "#cmd-kill-hand", "#cmd-seat-player", "#cmd-adjust-stack"):
        await expect(page.locator(hidden)).to_be_hidden()
    refused = 0

    async def tap(selector: str, before: Callable[[], Awaitable[None]] | None = None,
                  key: str | None = None) -> None:
        """One enabled control, by touch or by its shortcut; the daemon takes it."""
        await expect(page.locator(selector)).to_be_enabled()
        await page.evaluate("document.getElementById('reply').removeAttribute('data-ok')")
        if before is not None:
            await before()
        if key is None:
            await page.tap(selector)
        else:
            await page.keyboard.press(key)
        await expect(page.locator("#reply")).to_have_attribute("data-ok", "true")

    async def step() -> None:
        nonlocal refused
        await synced(page, stack.daemon)
        refused += await disabled_are_refused(page, stack)
        await synced(page, stack.daemon)   # the refusals changed nothing

    for hand in (1, 2):
        await step()
        await expect(page.locator("#cmd-next-hand")).to_be_disabled()
        dealer = Dealer(stack)
        await tap("#cmd-start-hand", key="s" if hand == 2 else None)
        n = 0
        while not isinstance(exp := await dealer.deal(), Done):
            await step()
            mirror = dealer.mirror
            if isinstance(exp, Showdown):
                mirror.apply(ShowIn(exp.seat))
                await tap("#act-show", key="c")
                continue
            n += 1
            legal = exp.legal
            wager = legal.bet_kind if legal.bet_kind in legal.kinds else None
            if hand == 1 and n == 1:
                # call, then take it back: the undo button says what it undoes
                assert ActionKind.CALL in legal.kinds
                await tap("#act-check-call", key="c")
                await step()
                await expect(page.locator("#cmd-undo .label")).to_have_text(
                    f"Undo: {NAMES[exp.seat]} call {dollars(legal.call_amount)}")
                await tap("#cmd-undo", key="u")
                await step()
                await expect(page.locator("#cmd-undo")).to_be_disabled()
            if wager is not None and n % 3 == 1 and exp.seat != 3:
                # a pot-sized bet or raise from the quick sizes, confirmed with Enter
                await page.tap("#size-pot")
                args = json.loads(await page.get_attribute("#act-bet-raise", "data-args"))
                assert legal.min_to is not None and legal.max_to is not None
                assert legal.min_to <= args["amount"] <= legal.max_to
                assert args["amount"] % 100 == 0   # whole dollars typed, cents sent
                label = await page.text_content("#act-bet-raise .label")
                assert label is not None and label.endswith(f"${args['amount'] // 100:,}")
                mirror.apply(ActionIn(exp.seat, wager, args["amount"]))
                await tap("#act-bet-raise", key="Enter")
            elif wager is not None and n % 3 == 2 and exp.seat != 3:
                # the minimum typed on the numeric pad, in dollars
                assert legal.min_to is not None
                digits = str(legal.min_to // 100)

                async def type_min(digits: str = digits) -> None:
                    await page.tap("#pad [data-pad='clear']")
                    for d in digits:
                        await page.tap(f"#pad [data-pad='{d}']")

                mirror.apply(ActionIn(exp.seat, wager, legal.min_to))
                await tap("#act-bet-raise", type_min)
            else:
                kind = ActionKind.CALL if ActionKind.CALL in legal.kinds else ActionKind.CHECK
                mirror.apply(ActionIn(exp.seat, kind, None))
                await tap("#act-check-call", key="c" if n % 2 else None)
        await step()
        final = dict(dealer.mirror.final_stacks)
        assert {s.seat: s.stack for s in stack.daemon.controller.checkpoint().seats
                if s.seat in final} == final
        await expect(page.locator("#cmd-start-hand")).to_be_disabled()
        await page.screenshot(path=artifact(f"console-play-hand{hand}.png"))
        await tap("#cmd-next-hand", key="n")
    assert refused >= 40, refused

    # Touch targets: every control shown is at least 48 px tall.
    heights = await page.eval_on_selector_all(
        "button, input, select", "els => els.filter(e => e.offsetParent !== null)"
                                 ".map(e => [e.id || e.textContent, e.offsetHeight])")
    assert heights and all(h >= 48 for _, h in heights), heights

    # Recall: the CLI's readable lines, not JSON.
    await page.fill("#recall-hands", "2")
    await tap("#cmd-recall")
    text = await page.text_content("#recall-out")
    assert text is not None and text.startswith("hand t01-000002 (#2"), text
    assert f"{COMMAND_USER} action:" in text and "-> winner:" in text
    assert " -> ok" in text and " -> refused wrong_phase: " in text   # the direct sends
    assert "{" not in text and '"' not in text
    await page.screenshot(path=artifact("console-recall.png"))


async def test_floor_login_seats_adjusts_in_money_and_unseats(floor_stack: WholeStack,
                                                              browser: Any) -> None:
    stack = floor_stack
    page = await open_console(browser, stack.url, "floor1")
    await expect(page.locator("#floor-panel")).to_be_visible()

    async def tap(selector: str) -> None:
        await page.evaluate("document.getElementById('reply').removeAttribute('data-ok')")
        await page.tap(selector)
        await expect(page.locator("#reply")).to_have_attribute("data-ok", "true")

    await page.fill("#p-seat", "5")
    await page.fill("#p-name", "Eve")
    await page.fill("#p-stack", "150")
    await tap("#cmd-seat-player")
    await page.fill("#adj-amount", "-12.50")
    await page.fill("#adj-reason", "chip race")
    await tap("#cmd-adjust-stack")
    await expect(page.locator('#seat-rows tr[data-seat="5"] .seat-stack')).to_have_text(
        "$137.50")
    seats = {s.seat: s.stack for s in stack.daemon.controller.checkpoint().seats}
    assert seats[5] == 13750
    await page.screenshot(path=artifact("console-floor.png"))
    await page.tap("#cmd-unseat-player")           # armed: nothing sent yet
    await expect(page.locator("#cmd-unseat-player .label")).to_have_text("Tap again: unseat")
    await tap("#cmd-unseat-player")
    await expect(page.locator('#seat-rows tr[data-seat="5"]')).to_have_count(0)
    # mid-hand the seat controls are not offered (the daemon takes them between hands)
    await tap("#cmd-start-hand")
    await expect(page.locator("#cmd-adjust-stack")).to_be_disabled()
    await expect(page.locator("#cmd-kill-hand")).to_be_enabled()

    # The console's broker user is floor here, yet a dealer login gets no floor control, and
    # the web server refuses the command itself.
    dealer = await open_console(browser, stack.url, "dealer1")
    await expect(dealer.locator("#floor-panel")).to_be_hidden()
    await expect(dealer.locator("#cmd-kill-hand")).to_be_hidden()
    reply = await dealer.evaluate("""async () => {
        const r = await fetch('/api/cmd/kill_hand', {method: 'POST',
            headers: {'Content-Type': 'application/json', 'X-CSRF-Token': session.csrf},
            body: JSON.stringify({args: {}})});
        return [r.status, await r.json()];
    }""")
    assert reply[0] == 403 and reply[1]["error"]["code"] == "forbidden", reply
    assert stack.daemon.controller.hand_id is not None     # the hand goes on
