"""The displays read across a room (issue 27): the table display, the broadcast overlay, the
dealer console and the floor page, measured as Debian's chromium draws them at 1280x800,
1920x1080 and 3840x2160, against the whole real stack (simulated shoe, the daemon, mosquitto,
``tablectl web``, the floor page on the same broker) after a hand played to its showdown.

* Display: seat names and stacks at least 3.5% of the viewport's height, board cards 18%,
  shown-down hole cards 9%, the winning five 7.5% (their rank 3.5%), every other text 2%;
  the seats and the board inside the screen.
* Overlay: players' names 2.8%, hole cards 9%, every text 2%; over black and over white.
* Console: every text at least 12 px and 1.1% of the height; floor page 14 px and 1.4%.
* Every text of every page at WCAG AA (4.5:1) over everything that may be behind it, and
  none under another box (the log's lines below its panel are cut off on purpose).
* A full table (ten seats of Omaha, from a stand-in daemon) fits the screen at every size.

The figures are printed (``-s``) and written to ``test-artifacts/web/legibility.json``.
The helper is checked to fail on a bad pair first (``test_the_contrast_helper_…``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any, Final

import pytest
from playwright.async_api import expect

from tablectl.floor.web import FloorPage
from tablectl.game import ActionIn, ActionKind, Done, Showdown, ShowIn, Street
from tablectl.publish.mqtt import MqttPublisher
from tablectl.publish.mqtt_settings import MqttSettings
from tests.conftest import Broker
from tests.web.conftest import TABLE, artifact, serving
from tests.web.legibility import (
    AA,
    BLACK,
    WHITE,
    TextItem,
    backdrops,
    boxes,
    contrast,
    measure,
    parse_colour,
    worst_contrast,
)
from tests.web.paho_link import SyncClient
from tests.web.test_console import login
from tests.web.test_display import state, status
from tests.web.test_whole_stack import (  # noqa: F401 - the whole_stack fixture
    DELAY,
    NAMES,
    Dealer,
    WholeStack,
    whole_stack,
)

SIZES: Final = ((1280, 800), (1920, 1080), (3840, 2160))


def test_the_contrast_helper_catches_a_bad_pair() -> None:
    """The overlay's old 'folded' (#f5c518 at opacity .45 on rgba(0,0,0,.6) over a light
    picture) fails; white on black passes; a gradient is judged at its worst stop."""
    old_folded = {"color": "rgb(245, 197, 24)", "opacity": 0.45,
                  "layers": [{"color": "rgba(0, 0, 0, 0)", "stops": []},
                             {"color": "rgba(0, 0, 0, 0.6)", "stops": []},
                             {"color": "rgba(0, 0, 0, 0)", "stops": []}]}
    assert worst_contrast(old_folded, [BLACK, WHITE]) < AA
    assert worst_contrast({**old_folded, "opacity": 1.0}, [BLACK]) > AA   # only over black
    assert worst_contrast({**old_folded, "color": "rgb(255, 255, 255)", "opacity": 1.0,
                           "layers": [{"color": "rgba(0, 0, 0, 0.82)", "stops": []}]},
                          [BLACK, WHITE]) > AA
    # white on a gradient from the old live pill's green to dark green: the light stop decides
    felt = [{"color": "rgba(0, 0, 0, 0)",
             "stops": ["rgb(30, 158, 74)", "rgb(11, 61, 42)"]}]
    assert len(backdrops(felt, [WHITE])) == 2
    white = {"color": "rgb(255, 255, 255)", "opacity": 1, "layers": felt}
    assert worst_contrast(white, [WHITE]) < AA
    assert worst_contrast({**white, "layers": [{**felt[0], "stops": felt[0]["stops"][1:]}]},
                          [WHITE]) > AA
    assert round(contrast(parse_colour("rgb(118, 118, 118)"), WHITE), 2) == 4.54
    with pytest.raises(ValueError, match="not a computed colour"):
        parse_colour("red")


@contextlib.asynccontextmanager
async def floor_page(broker: Broker) -> AsyncIterator[str]:
    """The floor page on ``broker``, as ``tablectl floor web`` serves it; yields its URL."""
    settings = MqttSettings(host=broker.host, port=broker.port, client_id="floor-legibility",
                            session_expiry=0)
    async with MqttPublisher(settings) as client, serving(
            FloorPage(client, throttle=0.05)) as url:
        yield url


async def play_to_showdown(stack: WholeStack) -> None:
    """One hand from start_hand to its settlement, every contender shown down; Ada folds to
    the flop bet (so the pages draw a folded seat too)."""
    dealer = Dealer(stack)
    await stack.send("start_hand")
    while not isinstance(exp := await dealer.deal(), Done):
        if isinstance(exp, Showdown):
            dealer.mirror.apply(ShowIn(exp.seat))
            await stack.send("action", {"seat": exp.seat, "kind": "show"})
            continue
        kind, amount = dealer.choose(exp)
        if exp.seat == 1 and kind is ActionKind.CALL \
                and dealer.mirror.view().street is Street.FLOP:
            kind, amount = ActionKind.FOLD, None
        dealer.mirror.apply(ActionIn(exp.seat, kind, amount))
        await stack.send("action", {"seat": exp.seat, "kind": kind.value, "amount": amount})


class Report:
    """Failures and figures of every page at every size."""

    def __init__(self) -> None:
        self.failures: list[str] = []
        self.figures: dict[str, dict[str, Any]] = {}

    def check(self, ok: bool, what: str) -> None:
        if not ok:
            self.failures.append(what)

    def texts(self, key: str, items: list[TextItem], height: int, *, min_px: float,
              min_share: float) -> None:
        """Every text at least ``min_px`` and ``min_share`` of the height, and at AA."""
        assert items, f"{key}: no text measured"
        floor = max(min_px, min_share * height)
        for t in items:
            self.check(t.font_px >= floor - 0.05,
                       f"{key}: {t.label} {t.text!r} {t.font_px:.1f}px < {floor:.1f}px")
            self.check(t.contrast >= AA, f"{key}: {t.label} {t.text!r} contrast "
                                         f"{t.contrast:.2f} < {AA}")
            self.check(not t.covered, f"{key}: {t.label} {t.text!r} is under another box")
        smallest = min(items, key=lambda t: t.font_px)
        lowest = min(items, key=lambda t: t.contrast)
        self.figures.setdefault(key, {}).update({
            "texts": len(items), "smallest_px": round(smallest.font_px, 1),
            "smallest": smallest.label, "lowest_contrast": round(lowest.contrast, 2),
            "lowest": lowest.label})

    def share(self, key: str, name: str, found: list[dict[str, float]], height: int,
              share: float, *, field: str = "height", count: int = 1) -> None:
        """At least ``count`` elements, each ``field`` at least ``share`` of the height."""
        self.check(len(found) >= count, f"{key}: {name}: {len(found)} found, {count} wanted")
        if found:
            least = min(f[field] for f in found) / height
            self.figures.setdefault(key, {})[name] = round(100 * least, 2)
            self.check(least >= share, f"{key}: {name} {100 * least:.2f}% of the height "
                                       f"< {100 * share:.1f}%")

    def inside(self, key: str, name: str, found: list[dict[str, float]], width: int,
               height: int) -> None:
        for f in found:
            self.check(f["bottom"] <= height + 0.5 and f["right"] <= width + 0.5,
                       f"{key}: {name} drawn outside the screen ({f})")


async def check_display(page: Any, report: Report, w: int, h: int) -> None:
    key = f"display {w}x{h}"
    await expect(page.locator("#results .result").first).to_be_visible()
    await expect(page.locator(".seat-cards .card:not(.back)").first).to_be_visible()
    await expect(page.locator('.seat.status-folded[data-seat="1"] .badge-folded')).to_be_visible()
    names, stacks = await boxes(page, ".seat-name"), await boxes(page, ".seat-stack")
    report.share(key, "seat name font %", names, h, 0.035, field="font", count=3)
    report.share(key, "stack font %", stacks, h, 0.035, field="font", count=3)
    board = await boxes(page, "#board .card")
    report.share(key, "board card %", board, h, 0.18, count=5)
    report.share(key, "shown hole card %", await boxes(page, ".seat-cards .card:not(.back)"),
                 h, 0.09, count=2)
    report.share(key, "winning five %", await boxes(page, ".result-cards .card"), h, 0.075,
                 count=5)
    report.share(key, "winning five rank font %", await boxes(page, ".result-cards .rank"),
                 h, 0.035, field="font", count=5)
    for name, found in (("seat name", names), ("stack", stacks), ("board", board)):
        report.inside(key, name, found, w, h)
    report.texts(key, await measure(page, [WHITE]), h, min_px=0, min_share=0.02)


async def check_overlay(page: Any, report: Report, w: int, h: int) -> None:
    key = f"overlay {w}x{h}"
    await expect(page.locator(".hole")).to_have_count(len(NAMES), timeout=DELAY * 1000 + 10000)
    report.share(key, "player name font %", await boxes(page, ".hole-name"), h, 0.028,
                 field="font", count=len(NAMES))
    report.share(key, "hole card %", await boxes(page, ".hole .card"), h, 0.09,
                 count=2 * len(NAMES))
    report.inside(key, "hole", await boxes(page, ".hole"), w, h)
    await expect(page.locator('.hole.status-folded[data-seat="1"] .hole-desc')).to_have_text(
        "folded")
    report.texts(key, await measure(page, [BLACK, WHITE]), h, min_px=0, min_share=0.02)


async def check_console(page: Any, report: Report, w: int, h: int) -> None:
    key = f"console {w}x{h}"
    await expect(page.locator("body[data-ready='1']")).to_have_count(1)
    await expect(page.locator("#results .result").first).to_be_visible()
    report.texts(key, await measure(page, [WHITE]), h, min_px=12, min_share=0.011)


async def check_floor(page: Any, report: Report, w: int, h: int) -> None:
    key = f"floor {w}x{h}"
    card = page.locator('article[data-table="t01"]')
    await expect(card.locator(".name")).to_contain_text("Table One")
    await expect(card.locator(".players")).to_contain_text("Ada")
    report.texts(key, await measure(page, [WHITE]), h, min_px=14, min_share=0.014)


@pytest.mark.slow
async def test_every_page_is_legible_at_every_size(whole_stack: WholeStack,  # noqa: F811
                                                    mosquitto: Broker, browser: Any) -> None:
    stack = whole_stack
    report = Report()
    async with floor_page(mosquitto) as floor_url:
        await play_to_showdown(stack)
        await asyncio.sleep(DELAY)              # the overlay shows the hole cards after it
        for w, h in SIZES:
            for check, user, path in ((check_display, None, "/"),
                                      (check_overlay, "camera", "/overlay"),
                                      (check_console, "dealer1", "/console"),
                                      (check_floor, None, floor_url)):
                # a context each: its own login
                context = await browser.new_context(viewport={"width": w, "height": h})
                try:
                    page = await context.new_page()
                    if user is not None:
                        await login(page, stack.url, user, path)
                    else:
                        await page.goto(path if path.startswith("http") else stack.url + path)
                    await check(page, report, w, h)
                    name = check.__name__.removeprefix("check_")
                    await page.screenshot(path=artifact(f"legible-{name}-{w}x{h}.png"))
                finally:
                    await context.close()
    text = json.dumps(report.figures, indent=1, sort_keys=True)
    artifact("legibility.json").write_text(text + "\n")
    print(text)
    assert not report.failures, "\n".join(report.failures[:60])


async def test_a_full_table_fits_the_screen(stack_factory: Any, browser: Any) -> None:
    """Ten seats of Omaha (four cards each), mid-hand with both pots, at every size: every
    seat inside the screen, names and stacks still 3.5% of the height, the board 18%."""
    stack = await stack_factory()
    daemon = SyncClient(stack.broker.port, "controller-t01")
    names = ["Ada", "Brook", "Cy", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jo"]
    seats = [{"seat": n, "name": names[n - 1], "stack": 15000 + 100 * n, "bet": 400 * (n % 2),
              "status": "folded" if n in (4, 9) else "active",
              "cards": [{"card": None, "up": False}] * 4, "to_act": n == 5}
             for n in range(1, 11)]
    report = Report()
    try:
        daemon.publish(f"poker/v1/tables/{TABLE}/status", json.dumps(status("online")).encode(),
                       retain=True)
        daemon.publish(f"poker/v1/tables/{TABLE}/state",
                       json.dumps(state(10, seats=seats)).encode(), retain=True)
        for w, h in SIZES:
            page = await browser.new_page(viewport={"width": w, "height": h})
            await page.goto(stack.url + "/")
            await expect(page.locator(".seat")).to_have_count(10)
            key = f"full table {w}x{h}"
            found = await boxes(page, ".seat")
            report.inside(key, "seat", found, w, h)
            report.share(key, "seat name font %", await boxes(page, ".seat-name"), h, 0.035,
                         field="font", count=10)
            report.share(key, "stack font %", await boxes(page, ".seat-stack"), h, 0.035,
                         field="font", count=10)
            report.share(key, "board card %", await boxes(page, "#board .card"), h, 0.18,
                         count=5)
            report.texts(key, await measure(page, [WHITE]), h, min_px=0, min_share=0.02)
            await page.screenshot(path=artifact(f"legible-full-table-{w}x{h}.png"))
            await page.close()
    finally:
        daemon.close()
    print(json.dumps(report.figures, sort_keys=True))
    assert not report.failures, "\n".join(report.failures[:60])
