"""Screenshots of the web pages for docs/web.md, made from a demo table mid-hand.

Method: a private mosquitto; the real table daemon (``tablectl.app.run_daemon``) on a
simulated RFID shoe over the firmware wire protocol; ``tablectl web`` (``run_web``) with the
overlay on the secure feed; the floor page (``tablectl floor web``'s server) on the same
broker; Debian's chromium through Playwright. Six named players at a $1/$2 no-limit hold'em
table: a scripted hand (one fold preflop, a raise, calls, a bet and a fold on the flop) is
dealt to the turn and the pages are drawn there; then it is checked down to the showdown and
the display is drawn again.

Writes ``docs/img/display.png``, ``display-showdown.png``, ``overlay.png`` (drawn over a
dark and a light half standing in for the video picture), ``console.png`` and ``floor.png``.
The display and the overlay are laid out at 1920x1080 and saved at 1280x720 (device scale
2/3), the console and the floor page at 1280x800; each is passed through ``pngquant`` when it
is installed (on PATH, or beside the venv's Python: ``.venv/bin/pip install pngquant-cli``,
not a dependency of the project). Each page's smallest text and lowest contrast
(tests/web/legibility.py) are reported with it.

The last line printed is one JSON object: every file with its size in bytes and pixels, the
figures per page, and the seconds it took.

Usage: ``.venv/bin/python bench/screenshots.py [--out docs/img]``
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hardware_sim.devices import SimShoe  # noqa: E402
from hardware_sim.serve import PipeDevice  # noqa: E402
from tablectl.app import run_daemon, run_web  # noqa: E402
from tablectl.clock import SystemClock  # noqa: E402
from tablectl.config import load_config  # noqa: E402
from tablectl.daemon import TableDaemon  # noqa: E402
from tablectl.floor.web import FloorPage  # noqa: E402
from tablectl.game import Act, ActionIn, ActionKind, Done, Showdown, ShowIn, Street  # noqa: E402
from tablectl.publish.mqtt import MqttPublisher  # noqa: E402
from tablectl.publish.mqtt_settings import MqttSettings  # noqa: E402
from tablectl.sources.rfid import RfidShoeSource  # noqa: E402
from tests.conftest import free_port, private_broker  # noqa: E402
from tests.daemon.helpers import Console  # noqa: E402
from tests.web.conftest import CHROMIUM, CHROMIUM_ARGS, PASSWORDS, users_toml  # noqa: E402
from tests.web.legibility import BLACK, WHITE, measure  # noqa: E402
from tests.web.test_whole_stack import Dealer, WholeStack, _web_up  # noqa: E402

TABLE = "t03"
PLAYERS = {1: ("Ada", 20000), 2: ("Brook", 15000), 3: ("Cy", 8000), 4: ("Dee", 30000),
           5: ("Eli", 12000), 6: ("Fay", 25000)}
DEALER_USER = "dealer-screenshots"
CONFIG = """
deck = "{root}/config/decks/demo-red.csv"
button = 1
[table]
id = "{table}"
name = "Main room 3"
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
{dealer} = "dealer"
console-{table} = "dealer"
[mqtt]
url = "mqtt://127.0.0.1:{port}"
[journal]
path = "{tmp}/journal.sqlite"
[odds]
enabled = true
[web]
users = "users.toml"
broadcast_delay = 0.3
secure_url = "mqtt://127.0.0.1:{port}"
"""
VIDEO = "linear-gradient(90deg, #3d4a57 0 50%, #c9ced3 50% 100%)"
"""What the overlay is drawn over for the docs (the page itself is transparent): a dark and a
light half, flat, so the file stays small."""


def choose(dealer: Dealer, exp: Act, raised: set[Street]) -> tuple[ActionKind, int | None]:
    """The script: preflop Fay folds and Dee raises to $6; on the flop the first player
    bets the minimum and Eli folds to it; everyone else calls or checks."""
    street = dealer.mirror.view().street
    kinds = exp.legal.kinds
    if street is Street.PREFLOP and exp.seat == 6:
        return ActionKind.FOLD, None
    if street is Street.PREFLOP and exp.seat == 4 and street not in raised \
            and ActionKind.RAISE in kinds:
        raised.add(street)
        return ActionKind.RAISE, max(600, exp.legal.min_to or 0)
    if street is Street.FLOP and ActionKind.BET in kinds and street not in raised:
        raised.add(street)
        return ActionKind.BET, exp.legal.min_to
    if street is Street.FLOP and exp.seat == 5 and ActionKind.CALL in kinds:
        return ActionKind.FOLD, None
    if ActionKind.CALL in kinds:
        return ActionKind.CALL, None
    return ActionKind.CHECK, None


@contextlib.asynccontextmanager
async def table(tmp: Path, port: int) -> AsyncIterator[WholeStack]:
    """The daemon on a simulated shoe and ``tablectl web``, as the whole-stack tests run them."""
    seats = "\n".join(f'[[seats]]\nnumber = {n}\nname = "{name}"\nstack = {stack}\n'
                      for n, (name, stack) in PLAYERS.items())
    (tmp / "users.toml").write_text(users_toml())
    path = tmp / "table.toml"
    path.write_text(CONFIG.format(root=ROOT, table=TABLE, seats=seats, port=port, tmp=tmp,
                                  dealer=DEALER_USER))
    config = load_config(path)
    clock = SystemClock()
    deck = config.load_deck()
    shoe = SimShoe(deck, clock=clock, seed=5)
    pipe = PipeDevice(shoe, clock=clock)
    source = RfidShoeSource("shoe", "sim", clock=clock, opener=pipe.open)
    ready: asyncio.Future[TableDaemon] = asyncio.get_running_loop().create_future()
    daemon_task = asyncio.create_task(run_daemon(config, clock=clock, sources=[source],
                                                 ready=ready.set_result))
    web_port = free_port()
    web_task = asyncio.create_task(run_web(config, host="127.0.0.1", port=web_port))
    console = Console("127.0.0.1", port, TABLE, DEALER_USER)
    url = f"http://127.0.0.1:{web_port}"
    try:
        daemon = await asyncio.wait_for(ready, 10)
        await asyncio.wait_for(_web_up(url, web_task), 15)
        yield WholeStack(config, deck, daemon, shoe, url, console)
    finally:
        console.close()
        for task in (web_task, daemon_task):
            task.cancel()
        for task in (web_task, daemon_task):
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await pipe.aclose()


@contextlib.asynccontextmanager
async def floor(port: int) -> AsyncIterator[str]:
    """The floor page on the broker; yields its URL."""
    settings = MqttSettings(host="127.0.0.1", port=port, client_id="floor-screenshots",
                            session_expiry=0)
    async with MqttPublisher(settings) as client:
        server = FloorPage(client, throttle=0.05)
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        task = asyncio.create_task(server.run(sock=sock))
        try:
            yield f"http://127.0.0.1:{sock.getsockname()[1]}/"
        finally:
            server.stop()
            await asyncio.wait_for(task, 10)
            sock.close()


async def play(stack: WholeStack, dealer: Dealer, raised: set[Street], *,
               until: Street | None) -> None:
    """Deal and decide until the board reaches ``until`` (None: the end of the hand)."""
    while not isinstance(exp := await dealer.deal(), Done):
        if until is not None and dealer.mirror.view().street is until:
            return
        if isinstance(exp, Showdown):
            dealer.mirror.apply(ShowIn(exp.seat))
            await stack.send("action", {"seat": exp.seat, "kind": "show"})
            continue
        kind, amount = choose(dealer, exp, raised)
        dealer.mirror.apply(ActionIn(exp.seat, kind, amount))
        await stack.send("action", {"seat": exp.seat, "kind": kind.value, "amount": amount})


def png_size(path: Path) -> tuple[int, int]:
    """Width and height from a PNG's IHDR."""
    head = path.read_bytes()[16:24]
    width, height = struct.unpack(">II", head)
    return width, height


def shrink(path: Path) -> bool:
    """Quantise with pngquant when it is installed, on PATH or beside this Python (the
    ``pngquant-cli`` wheel puts it there); True when it was."""
    beside = Path(sys.executable).with_name("pngquant")
    tool = shutil.which("pngquant") or (str(beside) if os.access(beside, os.X_OK) else None)
    if tool is None:
        return False
    subprocess.run([tool, "--force", "--skip-if-larger", "--quality", "70-95", "--output",
                    str(path), str(path)], check=False)
    return True


async def shoot(browser: Any, name: str, url: str, out: Path, figures: dict[str, Any], *,
                size: tuple[int, int], scale: float = 1.0, user: str | None = None,
                ready: str, canvas: list[Any] | None = None, backdrop: str = "") -> None:
    """Open ``url`` (logging in as ``user``), wait for ``ready``, measure, save."""
    from playwright.async_api import expect

    context = await browser.new_context(viewport={"width": size[0], "height": size[1]},
                                        device_scale_factor=scale)
    try:
        page = await context.new_page()
        if user is not None:
            await page.goto(url)
            await page.fill("#user", user)
            await page.fill("#password", PASSWORDS[user])
            await page.click("#login-submit")
            await page.wait_for_url(url)
        else:
            await page.goto(url)
        await expect(page.locator(ready).first).to_be_visible(timeout=15000)
        await asyncio.sleep(0.3)                   # the last SSE view drawn
        items = await measure(page, canvas or [WHITE])
        if backdrop:      # after measuring (over black and white): a picture behind it
            await page.evaluate("""(bg) => {
              const d = document.createElement("div");
              Object.assign(d.style, {position: "fixed", inset: "0", zIndex: "-1",
                                      background: bg});
              document.body.prepend(d);
            }""", backdrop)
        figures[name] = {"texts": len(items),
                         "smallest_px": round(min(t.font_px for t in items), 1),
                         "smallest_of_height_pct": round(
                             100 * min(t.font_px for t in items) / size[1], 2),
                         "lowest_contrast": round(min(t.contrast for t in items), 2)}
        path = out / f"{name}.png"
        await page.screenshot(path=str(path))
        figures[name]["pngquant"] = shrink(path)
    finally:
        await context.close()


async def main_async(out: Path) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    started = time.monotonic()
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="screenshots-") as tmp_name:
        tmp = Path(tmp_name)
        (tmp / "broker").mkdir()
        broker = private_broker(tmp / "broker")
        try:
            async with floor(broker.port) as floor_url, table(tmp, broker.port) as stack, \
                    async_playwright() as pw:
                browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                dealer = Dealer(stack)
                raised: set[Street] = set()
                await stack.send("start_hand")
                await play(stack, dealer, raised, until=Street.TURN)
                await asyncio.sleep(1.0)       # the overlay's delay and the odds
                wide = {"size": (1920, 1080), "scale": 2 / 3}
                await shoot(browser, "display", stack.url + "/", out, figures,
                            ready=".seat.to-act", **wide)  # type: ignore[arg-type]
                await shoot(browser, "overlay", stack.url + "/overlay", out, figures,
                            user="camera", ready=".hole .odds-win", canvas=[BLACK, WHITE],
                            backdrop=VIDEO, **wide)  # type: ignore[arg-type]
                await shoot(browser, "console", stack.url + "/console", out, figures,
                            size=(1280, 800), user="dealer1", ready="body[data-ready='1']")
                await shoot(browser, "floor", floor_url, out, figures, size=(1280, 800),
                            ready='article[data-table="t03"]')
                await play(stack, dealer, raised, until=None)
                await shoot(browser, "display-showdown", stack.url + "/", out, figures,
                            ready="#results .result-cards", **wide)  # type: ignore[arg-type]
                await browser.close()
        finally:
            broker.stop()
    for name, fig in figures.items():
        path = out / f"{name}.png"
        fig["file"] = str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
        fig["bytes"] = path.stat().st_size
        fig["pixels"] = "x".join(map(str, png_size(path)))
    return {"bench": "screenshots", "seconds": round(time.monotonic() - started, 1),
            "pages": figures}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img",
                        help="where the PNG files go (default docs/img)")
    args = parser.parse_args()
    if not (shutil.which(CHROMIUM) or os.access(CHROMIUM, os.X_OK)):
        raise SystemExit("chromium is not installed (apt-get install chromium)")
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    result = asyncio.run(main_async(out))
    for name, fig in result["pages"].items():
        print(f"{name:17} {fig['pixels']:>9}  {fig['bytes']:>7} bytes  smallest text "
              f"{fig['smallest_px']} px ({fig['smallest_of_height_pct']}% of the height), "
              f"lowest contrast {fig['lowest_contrast']}:1")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
