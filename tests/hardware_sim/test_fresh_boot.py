"""A second run of a served scenario is a new boot of its device, not the first run's device
reconnecting: the host (the same daemon, still up) delivers its reads.

Before, boot ids came from the scenario's seed: the second run's shoe had the first one's boot
id, the host took it for a reconnect and dropped its reads (seq 1, 2... were behind what it
had delivered) as repeats, so a hand stayed in "preflop dealing" after ``start_hand``."""

from __future__ import annotations

from pathlib import Path

from firmware_bridge.messages import TagSeen
from firmware_bridge.session import Session
from firmware_bridge.session_config import LinkEnd
from firmware_bridge.session_events import Received
from hardware_sim.devices import SimShoe
from hardware_sim.play import build_device
from hardware_sim.scenario import load_scenario
from tablectl.clock import ManualClock

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "config" / "scenarios" / "clean-holdem-nl.toml"


def exchange(host: Session, device: SimShoe, clock: ManualClock, rounds: int = 6) -> list[object]:
    """Move bytes both ways a few times; what the host received."""
    got: list[object] = []
    for _ in range(rounds):
        device.receive_data(host.data_to_send())
        device.poll()
        got += [e.message for e in host.receive_data(device.data_to_send(), clock.monotonic())
                if isinstance(e, Received)]
        clock.advance(0.05)
    return got


def reads_of_a_run(host: Session, clock: ManualClock) -> list[object]:
    device = build_device(load_scenario(SCENARIO), clock, random_boot=True)
    assert isinstance(device, SimShoe)
    host.connect(clock.monotonic())
    exchange(host, device, clock)
    for _ in range(3):
        device.draw()
    return [m for m in exchange(host, device, clock) if isinstance(m, TagSeen)]


def test_a_second_run_of_a_served_scenario_is_a_new_boot_whose_reads_arrive() -> None:
    clock = ManualClock()
    host = Session(LinkEnd.HOST, now=0.0)
    first = reads_of_a_run(host, clock)
    second = reads_of_a_run(host, clock)          # the same host, still up
    assert len(first) == 3
    assert len(second) == 3
    scenario = load_scenario(SCENARIO)
    a, b = (build_device(scenario, clock, random_boot=True) for _ in range(2))
    assert a.boot_id != b.boot_id
    # the dry run stays deterministic: the same seed, the same boot id
    assert build_device(scenario, clock).boot_id == build_device(scenario, clock).boot_id
