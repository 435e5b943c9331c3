"""The camera as the daemon's card source: decided reads become controller inputs; a doubtful
read goes to the dealer, who confirms it over MQTT; frames that stop are a camera offline."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from hardware_sim.camera import SimCamera, write_image_sequence
from tablectl.app import run_daemon
from tablectl.clock import ManualClock, SystemClock
from tablectl.controller.inputs import CardRead, DeviceStatus, ReadStatus
from tablectl.daemon import TableDaemon
from tablectl.sources.camera import CameraSource
from tablectl.vision.decide import DeckGuard
from tablectl.vision.recognise import Recogniser
from tablectl.vision.source import CameraCardSource, MemoryFrames, VideoCaptureFrames
from tests.conftest import Broker
from tests.daemon.helpers import Console, Listener
from tests.daemon.test_end_to_end import write_config

from .conftest import EnrolledDeck, events_until_reads


async def _events(src: CameraSource, n: int) -> list[object]:
    out: list[object] = []
    async with src:
        gen = src.events()
        async with asyncio.timeout(60):
            while len(out) < n:
                out.append(await anext(gen))
        await gen.aclose()
    return out


def test_camera_reads_become_card_reads_and_a_stopped_stream_is_offline(
        shoe_deck: EnrolledDeck, tmp_path: Path) -> None:
    cam = SimCamera(41, shoe_deck.style, strength=0.6)
    deal = cam.shuffled_deck()[:5]
    frames, truth = cam.shoe_sequence(deal, frames_per_card=5, gap=3)
    url = write_image_sequence(frames, tmp_path / "seq")
    clock = ManualClock()

    def make() -> CameraCardSource:
        return CameraCardSource(VideoCaptureFrames(url, clock), Recogniser(shoe_deck.profile),
                                mode="shoe", guard=DeckGuard(warmup=2))

    events = asyncio.run(_events(CameraSource("cam", make, clock=clock), 7))
    assert isinstance(events[0], DeviceStatus) and events[0].online
    reads = [e for e in events if isinstance(e, CardRead)]
    assert [r.card for r in reads] == [seg.face for seg in truth]
    assert all(r.uid is None and r.location is None for r in reads)
    # the deck guard wants two cards of evidence before it lets reads through on their own:
    # the first card goes to the dealer
    assert [r.status for r in reads] == [ReadStatus.NEEDS_CONFIRMATION] + [
        ReadStatus.ACCEPTED] * 4
    assert len({r.read_id for r in reads}) == 5
    assert isinstance(events[-1], DeviceStatus) and not events[-1].online


async def test_doubtful_camera_read_waits_for_the_dealer(
        shoe_deck: EnrolledDeck, tmp_path: Path, mosquitto: Broker) -> None:
    config = write_config(tmp_path, mosquitto, "holdem", "fixed-limit",
                          {"small_blind": 100, "big_blind": 200, "small_bet": 200,
                           "big_bet": 400}, [3000, 3000])
    cam = SimCamera(43, shoe_deck.style, strength=0.5)
    deal = cam.shuffled_deck()[:4]
    frames, truth = cam.shoe_sequence(deal, frames_per_card=5, gap=3)
    clock = SystemClock()
    gate = asyncio.Event()

    class GatedFrames(MemoryFrames):
        async def frames(self):  # type: ignore[no-untyped-def,override]
            await gate.wait()                 # deal only once the hand has started
            async for frame in super().frames():
                yield frame

    def make() -> CameraCardSource:
        return CameraCardSource(GatedFrames(frames), Recogniser(shoe_deck.profile),
                                mode="shoe", guard=DeckGuard(warmup=2))

    source = CameraSource("cam", make, clock=clock)
    listener = Listener(mosquitto.host, mosquitto.port, "e2e")
    console = Console(mosquitto.host, mosquitto.port, "e2e", "dealer-e2e")
    ready: asyncio.Future[TableDaemon] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(run_daemon(config, clock=clock, sources=[source],
                                          ready=ready.set_result))
    try:
        daemon = await asyncio.wait_for(ready, 10)
        assert await asyncio.to_thread(listener.wait_for,
                                       lambda lst: lst.latest_state() is not None)
        assert (await asyncio.to_thread(console.send, "start_hand"))["status"] == "ok"
        gate.set()

        def doubtful(lst: Listener) -> bool:
            state = lst.latest_state() or {}
            errors = state.get("data", {}).get("errors", [])  # type: ignore[union-attr]
            return any(e.get("code") == "doubtful_read" for e in errors)

        assert await asyncio.to_thread(listener.wait_for, doubtful)
        pending = daemon.controller.secure_snapshot().get("pending_read")
        assert isinstance(pending, dict) and pending.get("card") == str(truth[0].face)
        reply = await asyncio.to_thread(console.send, "confirm_read",
                                        {"read": pending["read"]})
        assert reply["status"] == "ok", reply
        applied = asyncio.Event()
        daemon.on_outcome = lambda _inp, _out: applied.set()

        def known() -> int:
            view = daemon.controller.hand_view()
            assert view is not None
            return sum(c.card is not None for s in view.seats for c in s.cards)

        async with asyncio.timeout(20):
            while known() < 4:
                await applied.wait()
                applied.clear()
        dealt = [c.card for s in daemon.controller.hand_view().seats  # type: ignore[union-attr]
                 for c in s.cards]
        assert sorted(map(str, dealt)) == sorted(str(seg.face) for seg in truth)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        listener.close()
        console.close()


class _BrokenFrames(MemoryFrames):
    """Frames whose reading fails with an error no camera code expects (a fault, not a
    camera unplugged)."""

    async def frames(self):  # type: ignore[no-untyped-def, override]
        raise RuntimeError("a fault in the frame reader")
        yield  # pragma: no cover (makes this an async generator)


def test_a_camera_that_fails_is_offline_and_opened_again_the_table_goes_on(
        shoe_deck: EnrolledDeck) -> None:
    """Before, any error but FrameSourceError left ``events`` and ended the daemon's task
    group: the whole table stopped for one camera's fault."""
    cam = SimCamera(42, shoe_deck.style, strength=0.5)
    deal = cam.shuffled_deck()[:2]
    frames, truth = cam.shoe_sequence(deal, frames_per_card=5, gap=3)
    clock = ManualClock()
    made: list[int] = []

    def make() -> CameraCardSource:
        made.append(1)
        source = _BrokenFrames([]) if len(made) == 1 else MemoryFrames(frames)
        return CameraCardSource(source, Recogniser(shoe_deck.profile), mode="shoe",
                                guard=DeckGuard(warmup=0))

    events = asyncio.run(events_until_reads(CameraSource("cam", make, clock=clock), clock,
                                            len(deal)))
    statuses = [e.online for e in events if isinstance(e, DeviceStatus)]
    assert statuses[:3] == [True, False, True]
    assert [e.card for e in events if isinstance(e, CardRead)] == [s.face for s in truth]
    assert len(made) == 2
