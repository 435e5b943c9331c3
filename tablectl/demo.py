"""``tablectl demo``: a simulated table played by a simulated dealer against the real daemon.

A private mosquitto (unless a broker is given), the table daemon of :mod:`tablectl.app` on a
pty shoe, the simulated dealer as a separate process (``python -m hardware_sim play``), and a
display following the table over MQTT.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import sys
import tempfile
import tomllib
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from tablectl.app import broker_settings, run_daemon
from tablectl.config import TableConfig, parse_config
from tablectl.domain.errors import ConfigError
from tablectl.terminal.follow import FollowUpdate, TableFollower, follow_table

DEMO_VARIANTS: Final[Mapping[str, str]] = {
    "holdem:fixed-limit": "clean-holdem-fl", "holdem:no-limit": "clean-holdem-nl",
    "holdem:pot-limit": "clean-holdem-pl", "holdem:one-blind": "clean-holdem-one-blind",
    "omaha:fixed-limit": "clean-omaha-fl", "omaha:pot-limit": "clean-omaha-pl",
    "omaha-hi-lo:fixed-limit": "clean-omaha-hi-lo-fl",
    "omaha-hi-lo:pot-limit": "clean-omaha-hi-lo-pl",
    "holdem-hi-lo:fixed-limit": "clean-holdem-hi-lo-fl", "stud:fixed-limit": "clean-stud-fl",
    "stud-hi-lo:fixed-limit": "clean-stud-hi-lo-fl", "razz:fixed-limit": "clean-razz-fl",
    "horse": "rotation-horse",
}
"""``--variant`` names of the demo and the scenario (config/scenarios) each one plays."""

DEMO_ROTATIONS: Final[Mapping[str, Mapping[str, object]]] = {
    "horse": {"rotation": "horse", "stud_hands": 2, "stakes": {"ante": 25, "bring_in": 50}},
}
"""Demo variants that deal a rotation: the table config's ``[game]`` keys beside the
scenario's (its stakes added to the scenario's; two hands a stud game, so a short demo sees
every game). The simulated dealer deals each hand's game from the daemon's reply."""

DEMO_ALIASES: Final[Mapping[str, str]] = {
    "FT": "holdem:fixed-limit", "NT": "holdem:no-limit", "PT": "holdem:pot-limit",
    "FO": "omaha:fixed-limit", "PO": "omaha:pot-limit", "FO/8": "omaha-hi-lo:fixed-limit",
    "PO/8": "omaha-hi-lo:pot-limit", "FT/8": "holdem-hi-lo:fixed-limit",
    "F7S": "stud:fixed-limit", "F7S/8": "stud-hi-lo:fixed-limit", "FR": "razz:fixed-limit",
    "holdem": "holdem:no-limit", "omaha": "omaha:pot-limit",
    "omaha-hi-lo": "omaha-hi-lo:fixed-limit", "holdem-hi-lo": "holdem-hi-lo:fixed-limit",
    "stud": "stud:fixed-limit", "stud-hi-lo": "stud-hi-lo:fixed-limit", "razz": "razz:fixed-limit",
}

REPO_ROOT: Final = Path(__file__).resolve().parents[1]
DEMO_DEALER: Final = "dealer-demo"


def demo_scenario(variant: str) -> Path:
    """The scenario file the demo plays for ``variant`` (a name of :data:`DEMO_VARIANTS`, a
    PHH code such as ``FO/8``, or a bare game name).

    Raises:
        ConfigError: an unknown variant, or the scenario files are not there (the demo runs
            from a checkout).
    """
    key = DEMO_ALIASES.get(variant, variant)
    name = DEMO_VARIANTS.get(key)
    if name is None:
        choices = ", ".join([*DEMO_VARIANTS, *DEMO_ALIASES])
        raise ConfigError([("--variant", f"unknown variant {variant!r}; one of {choices}")])
    path = REPO_ROOT / "config" / "scenarios" / f"{name}.toml"
    if not path.exists():
        raise ConfigError([("", f"the demo's scenario {path} is missing (run from a checkout)")])
    return path


def demo_config(scenario: Path, *, table: str, broker: str, workdir: Path,
                odds: bool = False, rotation: Mapping[str, object] | None = None
                ) -> TableConfig:
    """A table config for the demo: the scenario's game, seats and deck, a shoe (or antenna
    table) on a pty in ``workdir``, the journal in ``workdir``; ``odds`` turns live odds on
    (``[odds] enabled``: published on the secure feed, for the broadcast overlay);
    ``rotation``: the scenario's game replaced by a rotation (:data:`DEMO_ROTATIONS`)."""
    data = tomllib.loads(scenario.read_text(encoding="utf-8"))
    game = dict(data["game"])
    device = data.get("device", "shoe")
    deck = (scenario.parent / str(data["deck"])).resolve()
    source: dict[str, object] = {"kind": "rfid-shoe", "name": "shoe",
                                 "url": str(workdir / "pty" / "shoe")}
    if device == "table":
        # the simulated table is wired one antenna per seat up to the highest seat, then
        # board 1-5, muck and burn: its calibration map says so
        top = max(int(seat["number"]) for seat in data["seats"])
        roles = [f"seat {n}" for n in range(1, top + 1)]
        roles += [f"board {n}" for n in range(1, 6)] + ["muck", "burn"]
        antennas = workdir / "antennas.toml"
        antennas.write_text("[antennas]\n" + "".join(
            f'{i} = "{role}"\n' for i, role in enumerate(roles)), encoding="utf-8")
        source = {"kind": "rfid-table", "name": "table", "url": str(workdir / "pty" / "table"),
                  "antenna_map": str(antennas)}
    blue = REPO_ROOT / "config" / "decks" / "demo-blue.csv"
    raw: dict[str, object] = {
        "table": {"id": table, "name": f"demo {scenario.stem}"[:32]},
        "game": {"variant": game["variant"], "structure": game["structure"],
                 "preset": game.get("preset", "casino"), "stakes": dict(game["stakes"])}
        if rotation is None else
        {**rotation, "preset": game.get("preset", "casino"),
         "stakes": {**game["stakes"], **dict(rotation.get("stakes", {}))}},  # type: ignore[call-overload]
        "seats": data["seats"], "sources": [source], "deck": str(deck),
        "other_decks": [str(blue)] if blue.exists() and blue != deck else [],
        "button": int(game.get("button", 1)),
        # a `tablectl floor run` (default user floor-01, docs/floor.md) on the demo's broker
        # gets its replays: refused, it would record none of the demo's hands
        "access": {"roles": {DEMO_DEALER: "floor", "floor-01": "display",
                             # `tablectl web` on the demo's broker, [web] command_user default
                             f"console-{table}": "floor"}},
        "mqtt": {"url": broker}, "journal": {"path": str(workdir / "journal.sqlite")},
        "odds": {"enabled": odds},
    }
    return parse_config(raw, source=str(scenario))


@dataclass(frozen=True, slots=True)
class DemoOptions:
    """What ``tablectl demo`` plays.

    Attributes:
        variant: see :func:`demo_scenario`.
        hands: how many hands; None plays until interrupted.
        seed: the simulator's seed (shuffles and decisions).
        broker: an existing broker's URL, or None to start a private mosquitto.
        table: the table id (topics ``poker/v1/tables/{table}/...``).
        pace: seconds between the simulated dealer's steps.
        odds: live odds on (``secure/v1/tables/{table}/odds``, docs/odds.md).
    """

    variant: str = "holdem:no-limit"
    hands: int | None = None
    seed: int = 1
    broker: str | None = None
    table: str = "demo"
    pace: float = 0.4
    odds: bool = False


class PrivateBroker:
    """A mosquitto child process on a free loopback port, anonymous, for the demo."""

    def __init__(self, binary: str, workdir: Path) -> None:
        self.binary = binary
        self.workdir = workdir
        self.port = 0
        self._proc: asyncio.subprocess.Process | None = None

    @staticmethod
    def find() -> str | None:
        """The mosquitto binary, if installed."""
        for cand in (os.environ.get("MOSQUITTO"), shutil.which("mosquitto"),
                     "/usr/sbin/mosquitto"):
            if cand and os.access(cand, os.X_OK):
                return cand
        return None

    async def __aenter__(self) -> PrivateBroker:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = int(sock.getsockname()[1])
        conf = self.workdir / "mosquitto.conf"
        conf.write_text(f"listener {self.port} 127.0.0.1\nallow_anonymous true\n"
                        "persistence false\nset_tcp_nodelay true\nlog_dest none\n")
        self._proc = await asyncio.create_subprocess_exec(
            self.binary, "-c", str(conf), stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL)
        async with asyncio.timeout(10):
            while True:
                try:
                    _r, w = await asyncio.open_connection("127.0.0.1", self.port)
                    w.close()
                    return self
                except OSError:
                    if self._proc.returncode is not None:
                        raise ConfigError([("", "mosquitto did not start")]) from None
                    await asyncio.sleep(0.05)

    async def __aexit__(self, *exc: object) -> None:
        if self._proc is not None and self._proc.returncode is None:
            self._proc.terminate()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(5):
                    await self._proc.wait()

    @property
    def url(self) -> str:
        """Its ``mqtt://`` URL."""
        return f"mqtt://127.0.0.1:{self.port}"


async def run_demo(options: DemoOptions, *,
                   on_update: Callable[[TableFollower, FollowUpdate], None],
                   on_note: Callable[[str], None]) -> int:
    """Run the demo: a broker (private mosquitto unless ``options.broker``), the table daemon
    on a pty shoe, the simulated dealer (``python -m hardware_sim play``, a separate process,
    so production code never imports the simulator), and a display following the table over
    MQTT. Returns the number of hands played.

    Raises:
        ConfigError: bad options, or no broker could be started.
    """
    scenario = demo_scenario(options.variant)
    with tempfile.TemporaryDirectory(prefix="tablectl-demo-") as tmp:
        workdir = Path(tmp)
        async with contextlib.AsyncExitStack() as stack:
            broker_url = options.broker
            if broker_url is None:
                binary = PrivateBroker.find()
                if binary is None:
                    raise ConfigError([("", "mosquitto is not installed: install it "
                                            "(sudo apt-get install mosquitto) or pass "
                                            "--broker URL")])
                broker = await stack.enter_async_context(PrivateBroker(binary, workdir))
                broker_url = broker.url
                on_note(f"private mosquitto on {broker_url}")
            config = demo_config(scenario, table=options.table, broker=broker_url,
                                 workdir=workdir, odds=options.odds,
                                 rotation=DEMO_ROTATIONS.get(options.variant))
            daemon_task = asyncio.create_task(run_daemon(config), name="demo daemon")
            cmd = [sys.executable, "-m", "hardware_sim", "play", str(scenario), "--rebuy",
                   "--pty-dir", str(workdir / "pty"), "--broker", broker_url,
                   "--table", options.table, "--user", DEMO_DEALER,
                   "--seed", str(options.seed), "--pace", str(options.pace),
                   "--hands", str(options.hands or 1_000_000)]
            sim_log = (workdir / "simulator.log").open("wb")
            stack.callback(sim_log.close)
            sim = await asyncio.create_subprocess_exec(*cmd, stdout=sim_log,
                                                       stderr=asyncio.subprocess.STDOUT)
            on_note(f"simulated dealer playing {scenario.stem} (seed {options.seed})")
            settings = broker_settings(broker_url, credentials=None, role="watch")
            loop = asyncio.get_running_loop()
            played = 0

            async def update(follower: TableFollower, upd: FollowUpdate) -> bool:
                nonlocal played
                # once the simulated dealer is done its shoe is gone: the display would end
                # on "reader offline", which is only the demo packing up
                if sim.returncode is None or upd.hand_ended is not None:
                    on_update(follower, upd)
                played = follower.hands_ended
                return options.hands is None or played < options.hands

            watcher = asyncio.create_task(follow_table(settings, options.table,
                                                       on_update=update,
                                                       monotonic=loop.time))
            sim_done = asyncio.create_task(sim.wait())
            try:
                done, _ = await asyncio.wait({watcher, sim_done, daemon_task},
                                             return_when=asyncio.FIRST_COMPLETED)
                if done == {sim_done} and sim.returncode == 0:
                    # the dealer played its hands: let the display see the last events
                    done, _ = await asyncio.wait({watcher, daemon_task}, timeout=15,
                                                 return_when=asyncio.FIRST_COMPLETED)
                    done |= {sim_done}
                if options.hands is None or played < options.hands:
                    on_note(_demo_stopped(done, daemon_task, watcher=watcher,
                                          sim_exit=sim.returncode,
                                          sim_log=workdir / "simulator.log", played=played))
            finally:
                for task in (watcher, daemon_task):
                    task.cancel()
                if sim.returncode is None:
                    sim.terminate()
                for waited in (watcher, daemon_task, sim_done):
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await waited
            return played


def _demo_stopped(done: Collection[object], daemon: asyncio.Task[None], *,
                  watcher: asyncio.Task[None], sim_exit: int | None, sim_log: Path,
                  played: int) -> str:
    """One line: why the demo stopped before the hands it was asked for."""
    for task, what in ((daemon, "the table daemon"), (watcher, "the display")):
        if task in done and not task.cancelled() and task.exception() is not None:
            return f"{what} stopped after {played} hands: {task.exception()}"
    lines = [line.strip() for line in sim_log.read_text(errors="replace").splitlines()
             if line.strip()]
    last = lines[-1] if lines else "no output"
    if sim_exit is None:
        return f"the display saw no new hand for 15 s after {played} hands"
    return f"the simulated dealer stopped (exit {sim_exit}) after {played} hands: {last}"
