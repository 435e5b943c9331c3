"""``tablectl demo --variant horse``: the live demo (daemon, simulated dealer, display over
MQTT) deals the H.O.R.S.E. rotation: each hand the game the daemon's rotation names, the
simulated dealer following it from the start_hand reply."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import Broker

ROUND = (["Limit Hold'em"] * 3 + ["Limit Omaha Hi-Lo 8 or Better"] * 3 + ["Razz"] * 2
         + ["Limit Seven Card Stud"] * 2 + ["Limit Seven Card Stud Hi-Lo 8 or Better"] * 2)


@pytest.mark.timeout(300)
def test_the_live_demo_plays_a_horse_round(mosquitto: Broker) -> None:
    # the demo table has three seats: an orbit is three hands; two hands a stud game
    out = subprocess.run([sys.executable, "-m", "tablectl", "demo", "--variant", "horse",
                          "--hands", "15", "--seed", "7", "--broker", mosquitto.url,
                          "--table", "horse", "--pace", "0", "--plain"],
                         capture_output=True, text=True, timeout=280, check=False,
                         env={**os.environ, "COLUMNS": "120"})
    assert out.returncode == 0, out.stderr[-1500:]
    hands = [line for line in out.stdout.splitlines() if line.startswith("hand ")]
    games = [line.split("(", 1)[1].split(")", 1)[0] for line in hands]
    assert games == ROUND + ["Limit Hold'em"] * 3
    assert "15 hands of horse played" in out.stdout
    assert "Traceback" not in out.stderr


def test_a_hundred_hands_of_horse_follow_the_rotation() -> None:
    """Issue 28's 100-hand H.O.R.S.E. demo, on the engine alone (the live demo above plays a
    round through the daemon): six seats, so an orbit of the button is six hands of hold'em
    and of Omaha hi-lo; two hands of each stud game (docs/rules.md, "Rotations (mixed games)")."""
    out = subprocess.run([sys.executable, "-m", "tablectl", "demo", "--variant", "horse",
                          "--hands", "100", "--seed", "11", "--engine-only", "--plain"],
                         capture_output=True, text=True, timeout=280, check=False)
    assert out.returncode == 0, out.stderr[-1500:]
    hands = [line for line in out.stdout.splitlines() if line.startswith("hand ")]
    assert [int(line.split()[1]) for line in hands] == list(range(1, 101))
    one_round = (["holdem"] * 6 + ["omaha-hi-lo"] * 6 + ["razz"] * 2 + ["stud"] * 2
                 + ["stud-hi-lo"] * 2)
    games = [line.split("(", 1)[1].split(")", 1)[0] for line in hands]
    assert games == (one_round * 6)[:100]
    assert all(" wins " in line for line in hands), [h for h in hands if " wins " not in h]
    assert "100 hands of horse" in out.stdout
    assert "Traceback" not in out.stderr
