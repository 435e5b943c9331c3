"""Playing a scenario: build its device and dealer, deal the hands, check them.

* :func:`play_loopback` — the dry run: the device talks to an in-process host session
  (:class:`~hardware_sim.ports.LoopbackPorts`) on a manual clock, the console only records,
  and every hand is rebuilt from what the host received and checked against the dealer's
  engine (:mod:`hardware_sim.check`). Deterministic: the same seed gives the same bytes.
* :func:`play_served` — the device is served on a pty (stable symlink) or TCP to a real
  daemon, the console is the daemon's MQTT command API (or a recorder), the dealer keeps a
  human pace on the system clock.

``python -m hardware_sim play SCENARIO`` (registered in :mod:`hardware_sim.__main__`) uses
:func:`add_play_arguments` and :func:`run_play`.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from hardware_sim.check import CheckReport, check_hand, split_hands
from hardware_sim.console import Console, MqttConsole, RecordingConsole
from hardware_sim.dealer import DevicePorts, SimDealer
from hardware_sim.devices import AntennaRole, SimShoe, SimTable, standard_roles
from hardware_sim.errors import DealerError
from hardware_sim.faults import FaultPlan
from hardware_sim.ports import LoopbackPorts, ServedPorts
from hardware_sim.records import HandSummary
from hardware_sim.scenario import Scenario, ScenarioError, load_scenario
from hardware_sim.serve import unplug_on_sigterm
from tablectl.clock import Clock, ManualClock, SystemClock
from tablectl.config_urls import check_broker_url
from tablectl.domain.numbers import HANDS_MAX, SEED_MAX, number, whole

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class LinkStats:
    """What the link did over a whole loopback run (one device).

    Attributes:
        applied: byte faults the wire tap applied, by kind.
        host_drops: chunks the host's decoder threw away (CRC, COBS, length...).
        host_duplicates: reliable frames the host received twice and dropped.
        retransmitted: frames the device sent again.
    """

    applied: Mapping[str, int]
    host_drops: int
    host_duplicates: int
    retransmitted: int

    def line(self) -> str:
        """``link: ...`` for the CLI."""
        applied = ",".join(f"{k}={v}" for k, v in sorted(self.applied.items())) or "none"
        return (f"link: faults {applied}; host dropped {self.host_drops} chunks, "
                f"{self.host_duplicates} duplicates; device resent {self.retransmitted}")


@dataclass(frozen=True, slots=True)
class PlayResult:
    """What playing a scenario produced.

    Attributes:
        summaries: one per hand, from the dealer's engine.
        reports: the engine-only check of each hand (loopback only; empty when served).
        wire: device name -> every byte it put on the wire (after faults).
        links: device name -> link statistics (loopback only).
        missed: planned faults that never fired (their hand ended before their card).
        wanted: the hands asked for (more than were played: fewer than two seats had chips).
        rebuys: ``(after hand, seat, amount)`` of every rebuy.
    """

    summaries: tuple[HandSummary, ...]
    reports: tuple[CheckReport, ...]
    wire: Mapping[str, bytes]
    links: Mapping[str, LinkStats] = field(default_factory=dict)
    missed: tuple[FaultPlan, ...] = ()
    wanted: int = 0
    rebuys: tuple[tuple[int, int, int], ...] = ()

    @property
    def ok(self) -> bool:
        """True when every checked hand checks out and every planned fault fired."""
        return all(r.ok for r in self.reports) and not self.missed

    def lines(self, money: Callable[[int], str] = str) -> list[str]:
        """One line per hand (with its check, when there is one); amounts as ``money``
        writes chip units."""
        out = []
        for i, s in enumerate(self.summaries):
            check = f" | {self.reports[i].line()}" if i < len(self.reports) else ""
            out.append(s.line(money) + check)
        out += [f"{name} {stats.line()}" for name, stats in self.links.items()]
        out += [f"fault {p.kind.value} at hand {p.hand} card {p.at_card} did not fire (the "
                "hand ended before that card)" for p in self.missed]
        out += [f"seat {seat} rebought {money(amount)} after hand {after}"
                for after, seat, amount in self.rebuys]
        if len(self.summaries) < self.wanted:
            out.append(f"stopped after {len(self.summaries)} of {self.wanted} hands: fewer "
                       "than two seats have chips (--rebuy lets broke players buy in again)")
        return out


def roles_for(scenario: Scenario) -> list[AntennaRole]:
    """The table's antennas: one per seat up to the highest seat number, board 1..5, muck,
    burn (:func:`~hardware_sim.devices.standard_roles`)."""
    return standard_roles(max(s.seat for s in scenario.seats))


def build_device(scenario: Scenario, clock: Clock, seed: int | None = None, *,
                 random_boot: bool = False) -> SimShoe | SimTable:
    """The scenario's card device, seeded (its boot ids too unless ``random_boot``: see
    :class:`~hardware_sim.devices.SimDevice`)."""
    seed = scenario.seed if seed is None else seed
    if scenario.device == "shoe":
        return SimShoe(scenario.deck, clock=clock, seed=seed, random_boot=random_boot)
    return SimTable(roles_for(scenario), clock=clock, seed=seed, deck=scenario.deck,
                    random_boot=random_boot)


def make_dealer(scenario: Scenario, *, device: SimShoe | SimTable, console: Console,
                ports: DevicePorts, seed: int | None = None, rebuy: bool = False) -> SimDealer:
    """A :class:`SimDealer` for ``scenario`` (``seed`` overrides the scenario's; ``rebuy``:
    broke players buy in again)."""
    seed = scenario.seed if seed is None else seed
    return SimDealer(game=scenario.game, structure=scenario.structure, rules=scenario.rules,
                     stakes=scenario.stakes, seats=scenario.seats, button=scenario.button,
                     device=device, console=console, ports=ports,
                     strategy=scenario.strategy(seed), seed=seed, faults=scenario.faults,
                     cards=scenario.cards, foreign_deck=scenario.foreign_deck,
                     table_id=scenario.table, rebuy=rebuy)


async def play_loopback(scenario: Scenario, *, seed: int | None = None,
                        hands: int | None = None) -> PlayResult:
    """Dry run: play through an in-process host and check every hand (no sleeping).

    Raises:
        DealerError: the dealer could not play (scripted card or action that does not fit).
    """
    clock = ManualClock()
    device = build_device(scenario, clock, seed)
    ports = LoopbackPorts({scenario.device: device}, clock=clock,
                          seed=scenario.seed if seed is None else seed)
    ports.pump()                                          # the host's handshake
    console = RecordingConsole(on_command=ports.timeline.append)
    dealer = make_dealer(scenario, device=device, console=console, ports=ports, seed=seed)
    summaries = await dealer.play(scenario.hands if hands is None else hands)
    roles = device.roles if isinstance(device, SimTable) else None
    per_hand = split_hands(ports.timeline)
    reports = tuple(check_hand(s, items, deck=scenario.deck, roles=roles)
                    for s, items in zip(summaries, per_hand, strict=True))
    host, tap = ports.host(device), ports.tap(device)
    stats = LinkStats(dict(tap.counts), sum(host.stats.drops.values()), host.stats.duplicates,
                      device.session.stats.retransmitted)
    return PlayResult(tuple(summaries), reports, {scenario.device: bytes(tap.wire)},
                      {scenario.device: stats}, dealer.missed_faults)


async def play_served(scenario: Scenario, *, console: Console, seed: int | None = None,
                      hands: int | None = None, pty_dir: Path | None = None,
                      tcp_base: int | None = None, tcp_host: str = "127.0.0.1",
                      pace: float = 0.3, wait_host: float = 30.0, linger: float = 10.0,
                      clock: Clock | None = None, rebuy: bool = False,
                      on_ready: Callable[[Mapping[str, str]], None] | None = None
                      ) -> PlayResult:
    """Serve the scenario's device to a real host and deal through ``console``.

    Args:
        pty_dir: serve on a pty whose symlink is ``pty_dir/<device>`` (e.g. ``.../shoe``).
        tcp_base: else serve on TCP ``tcp_host:tcp_base``.
        pace: seconds between dealer steps. wait_host: seconds to wait for a host to connect
            before dealing (0: do not wait). linger: after the last hand, at most this many
            seconds for the host to acknowledge every event before the device goes away.
        rebuy: players who go broke buy in again (see :class:`SimDealer`).
        on_ready: told the device addresses once they are served.

    Raises:
        DealerError: no host connected within ``wait_host``, or the dealer could not play.
        ValueError: neither ``pty_dir`` nor ``tcp_base``.
    """
    clock = clock or SystemClock()
    # served to a real host, which may have seen this scenario's device before: a fresh boot
    device = build_device(scenario, clock, seed, random_boot=True)
    async with ServedPorts(clock=clock, pace=pace,
                           seed=scenario.seed if seed is None else seed) as ports:
        if pty_dir is not None:
            await asyncio.to_thread(pty_dir.mkdir, parents=True, exist_ok=True)
            ports.add_pty(scenario.device, device, pty_dir / scenario.device)
        elif tcp_base is not None:
            await ports.add_tcp(scenario.device, device, tcp_host, tcp_base)
        else:
            raise ValueError("serve on a pty (pty_dir) or TCP (tcp_base)")
        if on_ready is not None:
            on_ready(dict(ports.addresses))
        waited = 0.0
        while wait_host > 0 and not device.connected:
            if waited >= wait_host:
                raise DealerError(f"no host connected to the {scenario.device} within "
                                  f"{wait_host} s")
            await clock.sleep(0.1)
            waited += 0.1
        dealer = make_dealer(scenario, device=device, console=console, ports=ports, seed=seed,
                             rebuy=rebuy)
        summaries = await dealer.play(scenario.hands if hands is None else hands)
        waited = 0.0
        while device.session.queued and waited < linger:    # let the host take the rest
            await clock.sleep(0.05)
            waited += 0.05
        return PlayResult(tuple(summaries), (), {scenario.device: bytes(ports.tap(device).wire)},
                          missed=dealer.missed_faults,
                          wanted=scenario.hands if hands is None else hands,
                          rebuys=tuple(dealer.rebuys))


# ---- command line ----------------------------------------------------------------------------


def _broker(text: str) -> str:
    """``--broker``: checked as the table config's ``mqtt.url`` is, before anything runs."""
    try:
        return check_broker_url(text, schemes=("mqtt",), port_required=False)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_play_arguments(p: argparse.ArgumentParser) -> None:
    """The ``play`` subcommand's arguments."""
    p.add_argument("scenario", type=Path, help="scenario TOML (config/scenarios/*.toml)")
    p.add_argument("--seed", type=whole(0, SEED_MAX), help="override the scenario's seed")
    p.add_argument("--hands", type=whole(1, HANDS_MAX), help="override the number of hands")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--pty-dir", type=Path, metavar="DIR",
                       help="serve the device on a pty behind DIR/<shoe|table>")
    where.add_argument("--tcp-base", type=whole(0, 65535), metavar="PORT",
                       help="serve the device on TCP 127.0.0.1:PORT")
    p.add_argument("--broker", metavar="URL", type=_broker,
                   help="mqtt://host:port of the daemon's broker")
    p.add_argument("--table", help="table id for commands (default: the scenario's)")
    p.add_argument("--user", default="dealer", help="broker user commands are sent under")
    p.add_argument("--password", help="that user's password")
    p.add_argument("--pace", type=number(0, 60), default=0.3, help="seconds between dealer steps")
    p.add_argument("--wait", type=number(0, 3600, above=True), default=30.0,
                   help="seconds to wait for the daemon to open the device")
    p.add_argument("--rebuy", action="store_true",
                   help="a player who goes broke buys in again between hands (adjust_stack; "
                        "the --user needs the floor role)")
    p.add_argument("--dry-run", action="store_true",
                   help="play against the in-process host and engine-only check")


async def run_play_async(args: argparse.Namespace, out: Callable[[str], None]) -> int:
    """Run ``play`` from parsed arguments; returns the exit code (0 ok, 1 a check failed,
    2 bad scenario or usage)."""
    if args.hands is not None and args.hands < 1:
        out("hardware_sim play: --hands must be at least 1")
        return 2
    try:
        scenario = load_scenario(args.scenario)
    except ScenarioError as exc:
        out(f"hardware_sim play: {exc}")
        return 2
    served = args.pty_dir is not None or args.tcp_base is not None
    if served and not args.dry_run:
        unplug_on_sigterm()     # a stop unplugs the served devices, as SIGINT does
    if args.dry_run or not served:
        if args.broker and not args.dry_run:
            out("hardware_sim play: --broker needs --pty-dir or --tcp-base")
            return 2
        result = await play_loopback(scenario, seed=args.seed, hands=args.hands)
    else:
        console: Console
        if args.broker:
            mqtt = MqttConsole.connect(args.broker, table=args.table or scenario.table,
                                       user=args.user, password=args.password)
            async with mqtt:
                result = await _served(args, scenario, mqtt, out)
        else:
            console = RecordingConsole()
            result = await _served(args, scenario, console, out)
    from tablectl.terminal.view import money

    # the table's money, as the live demo and every display print it (1.50, not 150)
    stakes = {"units_per_currency": scenario.units_per_currency}
    for line in result.lines(lambda amount: money(amount, stakes)):
        out(line)
    return 0 if result.ok else 1


async def _served(args: argparse.Namespace, scenario: Scenario, console: Console,
                  out: Callable[[str], None]) -> PlayResult:
    def ready(addresses: Mapping[str, str]) -> None:
        for name, address in addresses.items():
            out(f"{name} on {address}")

    return await play_served(scenario, console=console, seed=args.seed, hands=args.hands,
                             pty_dir=args.pty_dir, tcp_base=args.tcp_base, pace=args.pace,
                             wait_host=args.wait, rebuy=args.rebuy, on_ready=ready)


def run_play(args: argparse.Namespace, out: Callable[[str], None]) -> int:
    """Synchronous :func:`run_play_async` (what the CLI calls)."""
    try:
        return asyncio.run(run_play_async(args, out))
    except (KeyboardInterrupt, asyncio.CancelledError):     # SIGINT, SIGTERM
        return 0
    except (DealerError, TimeoutError, OSError) as exc:
        out(f"hardware_sim play: {exc}")
        return 1
