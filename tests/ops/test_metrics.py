"""``/metrics`` of the real daemon (``tablectl run``), fed by the simulated dealer on a pty
shoe and a real mosquitto, scraped and parsed with prometheus_client's own text parser: every
metric is there, and each moves when what it counts happens."""

from __future__ import annotations

import socket
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.conftest import Broker, free_port
from tests.ops.helpers import ROOT, start, stop, table_config, wait_until

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]

FAMILIES = {
    "tablectl_reads", "tablectl_errors", "tablectl_commands", "tablectl_hands",
    "tablectl_read_to_publish_seconds", "tablectl_journal_commit_seconds",
    "tablectl_mqtt_connected", "tablectl_mqtt_queue_depth", "tablectl_mqtt_inflight",
    "tablectl_reader_up", "tablectl_frames_dropped",
}


def scrape(port: int) -> tuple[set[str], Samples]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as resp:
        text = resp.read().decode()
    names, samples = set(), {}
    for family in text_string_to_metric_families(text):
        names.add(family.name)
        for s in family.samples:
            samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return names, samples


def value(samples: Samples, metric: str, **labels: str) -> float:
    return samples.get((metric, tuple(sorted(labels.items()))), 0.0)


def scraped_until(port: int, pred: Callable[[Samples], bool], timeout: float = 30) -> Samples:
    got: list[Samples] = []

    def ok() -> bool:
        try:
            got[:] = [scrape(port)[1]]
        except OSError:
            return False
        return pred(got[0])

    assert wait_until(ok, timeout), got[-1] if got else "no scrape answered"
    return got[0]


@pytest.mark.slow
def test_every_metric_is_there_and_moves(tmp_path: Path, mosquitto_factory: Callable[..., Broker]
                                         ) -> None:
    broker = mosquitto_factory()
    port = free_port()
    scenario = ROOT / "config" / "scenarios" / "fault-garbage.toml"
    cfg = table_config(tmp_path, broker.url, scenario, metrics=f"port = {port}")
    daemon = start([sys.executable, "-m", "tablectl", "run", "--config", str(cfg)], tmp_path,
                   "daemon")
    try:
        first = scraped_until(port, lambda s: value(s, "tablectl_mqtt_connected") == 1)
        names, _ = scrape(port)
        assert names >= FAMILIES, FAMILIES - names
        assert value(first, "tablectl_reader_up", source="shoe") == 0      # nothing plugged
        assert value(first, "tablectl_hands_total", game="holdem") == 0

        # two hands through the pty shoe; the garbage before the 5th card is dropped
        sim = start([sys.executable, "-m", "hardware_sim", "play", str(scenario),
                     "--pty-dir", str(tmp_path / "pty"), "--broker", broker.url,
                     "--table", "m1", "--user", "dealer-m", "--hands", "2", "--pace", "0.01"],
                    tmp_path, "sim")
        scraped_until(port, lambda s: value(s, "tablectl_reader_up", source="shoe") == 1)
        assert sim.wait(90) == 0, (tmp_path / "sim.log").read_text()[-2000:]
        after = scraped_until(port, lambda s: value(s, "tablectl_hands_total", game="holdem")
                              == 2 and value(s, "tablectl_mqtt_queue_depth") == 0)
        assert value(after, "tablectl_reads_total", source="shoe", result="accepted") >= 18
        assert value(after, "tablectl_commands_total", name="start_hand", result="ok") == 2
        assert sum(v for (n, labels), v in after.items()
                   if n == "tablectl_frames_dropped_total" and ("source", "shoe") in labels) > 0
        reads = value(after, "tablectl_reads_total", source="shoe", result="accepted")
        assert value(after, "tablectl_read_to_publish_seconds_count") == reads
        assert value(after, "tablectl_journal_commit_seconds_count") > reads
        scraped_until(port, lambda s: value(s, "tablectl_reader_up", source="shoe") == 0)

        # the broker goes away: the link shows it, and what happens meanwhile waits in the
        # outbox; a shoe of the wrong deck is plugged in
        broker.stop()
        scraped_until(port, lambda s: value(s, "tablectl_mqtt_connected") == 0)
        shoe = start([sys.executable, "-m", "hardware_sim", "serve", "shoe", "--pty",
                      str(tmp_path / "pty" / "shoe"), "--deck",
                      str(ROOT / "config" / "decks" / "demo-blue.csv"), "--auto", "0.3"],
                     tmp_path, "shoe")
        try:
            down = scraped_until(port, lambda s: value(s, "tablectl_mqtt_queue_depth") > 0 and
                                 value(s, "tablectl_reads_total", source="shoe",
                                       result="error") > 0)
        finally:
            stop(shoe)
        # the cards of the room's other deck: a second_deck table error
        assert value(down, "tablectl_errors_total", code="second_deck") > 0
        assert value(down, "tablectl_reads_total", source="shoe", result="error") > 0
        broker.start()
        scraped_until(port, lambda s: value(s, "tablectl_mqtt_connected") == 1
                      and value(s, "tablectl_mqtt_queue_depth") == 0)
    finally:
        stop(daemon)


def test_the_metrics_port_answers_only_metrics(tmp_path: Path, mosquitto: Broker) -> None:
    port = free_port()
    scenario = ROOT / "config" / "scenarios" / "clean-holdem-nl.toml"
    cfg = table_config(tmp_path, mosquitto.url, scenario, metrics=f"port = {port}")
    daemon = start([sys.executable, "-m", "tablectl", "run", "--config", str(cfg)], tmp_path,
                   "daemon")
    try:
        scraped_until(port, lambda s: value(s, "tablectl_mqtt_connected") == 1)
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/other", timeout=5)
        assert err.value.code == 404
        err.value.close()
    finally:
        stop(daemon)



def test_the_web_server_metrics(tmp_path: Path, mosquitto: Broker) -> None:
    port, web = free_port(), free_port()
    scenario = ROOT / "config" / "scenarios" / "clean-holdem-nl.toml"
    cfg = table_config(tmp_path, mosquitto.url, scenario,
                       metrics=f"web_port = {port}\n[web]\nport = {web}")
    server = start([sys.executable, "-m", "tablectl", "web", "--config", str(cfg)], tmp_path,
                   "web")
    try:
        scraped_until(port, lambda s: value(s, "tablectl_web_broker_connected", link="public")
                      == 1 and value(s, "tablectl_web_streams", stream="public") == 0)
        with urllib.request.urlopen(f"http://127.0.0.1:{web}/events/public", timeout=10) as sse:
            assert sse.readline().startswith(b"retry:")
            scraped_until(port, lambda s: value(s, "tablectl_web_streams", stream="public") == 1)
        mosquitto.stop()
        scraped_until(port, lambda s: value(s, "tablectl_web_broker_connected", link="public")
                      == 0)
    finally:
        stop(server)


def test_a_metrics_port_in_use_is_a_clear_config_error(tmp_path: Path, mosquitto: Broker
                                                       ) -> None:
    scenario = ROOT / "config" / "scenarios" / "clean-holdem-nl.toml"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        cfg = table_config(tmp_path, mosquitto.url, scenario, metrics=f"port = {port}")
        out = subprocess.run([sys.executable, "-m", "tablectl", "run", "--config", str(cfg)],
                             capture_output=True, text=True, timeout=60, check=False)
    assert out.returncode == 2, out.stderr[-1000:]
    assert f"metrics.port: cannot serve metrics on 127.0.0.1:{port}" in out.stderr
    assert "Traceback" not in out.stderr
