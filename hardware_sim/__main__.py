"""``python -m hardware_sim``: run simulated devices for demos, manual tests and CI.

``serve shoe|table|keypad (--pty PATH | --tcp HOST:PORT) [--deck FILE] [--seed N]
[--fault SPEC] [--auto SECONDS]`` serves one device until Ctrl-C: on a pty behind the
symlink PATH (open it like ``/dev/serial/by-id/...``), or on TCP (``socket://HOST:PORT``).
``--auto`` makes the device act on its own every SECONDS (the shoe draws, the table lays and
lifts cards, the keypad presses keys) so a monitor has something to show.

Subcommands register through ``_COMMANDS`` (one ``_add_<name>(subparsers)`` each); the
scenario player (``play SCENARIO``, with SimDealer) is added there by the scenario work.

Exit codes: 0 stopped by Ctrl-C, 2 bad usage or configuration.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeAlias

from firmware_bridge.clock import SystemClock
from hardware_sim.devices import SimDevice, SimKeypad, SimShoe, SimTable, standard_roles
from hardware_sim.faults import ByteFaults
from hardware_sim.serve import PtyDevice, serve_tcp, unplug_on_sigterm
from tablectl.domain.deck import Deck
from tablectl.domain.errors import ConfigError
from tablectl.domain.numbers import SEED_MAX, number, whole
from tablectl.domain.strictjson import brief
from tablectl.game.start import MAX_SEATS

_Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def _host_port(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {brief(text)}")
    return host or "127.0.0.1", int(port)


def _add_serve(sub: _Subparsers) -> None:
    p = sub.add_parser("serve", help="serve one simulated device on a pty or TCP")
    p.add_argument("device", choices=["shoe", "table", "keypad"])
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--pty", type=Path, metavar="PATH",
                       help="symlink to create, standing in for /dev/serial/by-id/...")
    where.add_argument("--tcp", type=_host_port, metavar="HOST:PORT",
                       help="listen for socket://HOST:PORT")
    p.add_argument("--deck", type=Path, help="deck CSV (config/decks/*.csv); needed for a shoe")
    p.add_argument("--seed", type=whole(0, SEED_MAX), default=0,
                   help="seeds the shuffle and boot ids")
    p.add_argument("--seats", type=whole(1, MAX_SEATS), default=9,
                   help="table: seat antennas (default 9)")
    p.add_argument("--fault", default="", metavar="SPEC",
                   help="byte faults, e.g. garbage=0.01,flip=0.001,drop=0.05,dup=0.01,delay=0.1")
    p.add_argument("--auto", type=number(0, 3600, above=True), metavar="SECONDS",
                   help="act on its own every SECONDS (draw, lay/lift cards, press keys)")
    p.set_defaults(handler=_serve)


def _add_play(sub: _Subparsers) -> None:
    from hardware_sim.play import add_play_arguments

    p = sub.add_parser("play", help="play a scenario's hands with SimDealer "
                       "(config/scenarios/*.toml)")
    add_play_arguments(p)
    p.set_defaults(handler=_play)


def _play(args: argparse.Namespace) -> int:
    from hardware_sim.play import run_play

    return run_play(args, lambda line: print(line, flush=True))


_COMMANDS: list[Callable[[_Subparsers], None]] = [_add_serve, _add_play]


def _make_device(args: argparse.Namespace, clock: SystemClock) -> SimDevice:
    deck = Deck.load(args.deck) if args.deck else None
    if args.device == "shoe":
        if deck is None:
            raise ConfigError([("--deck", "a shoe needs a deck file")])
        return SimShoe(deck, clock=clock, seed=args.seed, random_boot=True)
    if args.device == "table":
        return SimTable(standard_roles(args.seats), clock=clock, seed=args.seed, deck=deck,
                        random_boot=True)
    return SimKeypad(clock=clock, seed=args.seed)


def _act(device: SimDevice, step: int) -> str:
    """One automatic action; returns what happened, for the terminal."""
    if isinstance(device, SimShoe):
        if not device.remaining:
            device.new_shoe()
        read = device.draw()
        card = device.deck.card_for(read.uid_hex)
        return f"drew {card} (index {read.index})"
    if isinstance(device, SimTable):
        antenna = device.rng.randrange(device.antenna_count)
        uid = device.rng.getrandbits(56).to_bytes(7, "big")
        if device.deck is not None:
            uid = bytes.fromhex(device.rng.choice(list(device.deck.cards_by_uid)))
        present = [(a, u) for a, tags in enumerate(device.present) for u in tags]
        if present and step % 2:
            a, u = device.rng.choice(present)
            device.remove(a, u)
            return f"lifted {u.hex().upper()} from {device.roles[a]}"
        device.place(antenna, uid)
        return f"laid {uid.hex().upper()} on {device.roles[antenna]}"
    assert isinstance(device, SimKeypad)
    key = device.rng.randrange(device.keys)
    device.press(key)
    device.release(key)
    return f"pressed key {key}"


async def _serve_async(args: argparse.Namespace) -> int:
    unplug_on_sigterm()     # a service manager's or a test's stop unplugs, as SIGINT does
    clock = SystemClock()
    device = _make_device(args, clock)
    faults = ByteFaults.parse(args.fault, seed=args.seed) if args.fault else None
    async with contextlib.AsyncExitStack() as stack:
        if args.pty:
            port = await stack.enter_async_context(
                PtyDevice(device, args.pty, clock=clock, faults=faults))
            print(f"{args.device} on {args.pty} -> {port.slave_name} "
                  f"(boot id {device.boot_id:#010x})", flush=True)
        else:
            host, tcp_port = args.tcp
            server = await serve_tcp(device, host, tcp_port, clock=clock, faults=faults)
            stack.push_async_callback(server.wait_closed)
            stack.callback(server.close)
            bound = server.sockets[0].getsockname()
            print(f"{args.device} on socket://{bound[0]}:{bound[1]} "
                  f"(boot id {device.boot_id:#010x})", flush=True)
        step = 0
        while True:
            if args.auto:
                await clock.sleep(args.auto)
                print(_act(device, step), flush=True)
                step += 1
            else:
                await clock.sleep(3600)


def _serve(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(_serve_async(args))
    except (KeyboardInterrupt, asyncio.CancelledError):     # SIGINT, SIGTERM: unplugged
        return 0
    except (ConfigError, ValueError) as exc:
        print(f"hardware_sim: {exc}", file=sys.stderr)
        return 2


def build_parser() -> argparse.ArgumentParser:
    """The argument parser."""
    parser = argparse.ArgumentParser(prog="python -m hardware_sim",
                                     description="simulated table devices")
    sub = parser.add_subparsers(dest="command", required=True)
    for add in _COMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the tool; returns the exit code."""
    args = build_parser().parse_args(argv)
    code: int = args.handler(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
