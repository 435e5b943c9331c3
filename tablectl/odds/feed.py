"""Publishing live odds: secure snapshots in, figures out on ``secure/v1/tables/{t}/odds``.

The daemon calls :meth:`OddsFeed.update` with every secure snapshot it publishes (after every
card read and every fold). The feed reads the position (:func:`request_from_snapshot`); a new
one goes to the worker under the next token, an unchanged one is ignored. The worker's result
for the latest token is published by :meth:`OddsFeed.run`, a task of its own, with the
envelope of the snapshot it was computed from (``journal``, ``epoch``, ``seq``, ``hand``,
``ts``) and
``type: "odds"``; when there is nothing to value (between hands, a card not read, one player
left) a body with ``players: []`` says so once, so that no screen keeps old figures.
Secret (it is derived from hole cards), QoS 1, never retained, never under ``poker/``.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Final

from tablectl.odds.position import OddsRequest, request_from_snapshot
from tablectl.odds.worker import OddsWorker, ResultCallback
from tablectl.publish import topics
from tablectl.publish.base import MessageProps, Publisher
from tablectl.publish.envelope import SnapshotEnvelope
from tablectl.publish.errors import PublishError

__all__ = ["OddsFeed", "odds_payload"]

_LOGGER = logging.getLogger(__name__)
_JSON: Final = MessageProps(content_type="application/json")


def odds_payload(env: SnapshotEnvelope, body: dict[str, object]) -> bytes:
    """The odds message: the snapshot's envelope fields, ``type: "odds"``, ``data: body``."""
    stamp = env.ts.isoformat().replace("+00:00", "Z")
    return json.dumps({"v": 1, "table": env.table, "journal": env.journal, "epoch": env.epoch,
                       "seq": env.seq, "type": "odds", "ts": stamp, "hand": env.hand,
                       "data": body}, separators=(",", ":"), allow_nan=False).encode()


class OddsFeed:
    """The odds of one table.

    Args:
        table: the table id.
        publisher: returns the publisher to use (the daemon's, which it may replace).
        make_worker: builds the worker from the feed's result callback.
        precision: Monte Carlo 95% half-width (a fraction).
    """

    def __init__(self, table: str, publisher: Callable[[], Publisher],
                 make_worker: Callable[[ResultCallback], OddsWorker], *,
                 precision: float = 0.005) -> None:
        self.topic = topics.secure_odds(table)
        self._publisher = publisher
        self._precision = precision
        self.worker = make_worker(self._on_result)
        self._token = 0
        self._last: OddsRequest | None = None
        self._envelopes: dict[int, SnapshotEnvelope] = {}
        self._cleared = True
        self._ready: tuple[SnapshotEnvelope, dict[str, object]] | None = None
        self._wake = asyncio.Event()
        self.published = 0

    def update(self, env: SnapshotEnvelope) -> None:
        """A secure snapshot was published: value its position if it is a new one."""
        request = request_from_snapshot(env.data, precision=self._precision)
        if request == self._last:
            return
        self._last = request
        if request is None:
            if not self._cleared:
                self._cleared = True
                self._token += 1        # whatever is in flight is stale now
                self.worker.withdraw(self._token)
                self._envelopes.clear()
                self._deliver(env, {"hand": env.data.get("hand"), "players": []})
            return
        self._cleared = False
        self._token += 1
        self._envelopes = {self._token: env}
        self.worker.submit(self._token, request)

    def _on_result(self, token: int, body: dict[str, object]) -> None:
        env = self._envelopes.pop(token, None)
        if env is not None and token == self._token:
            self._deliver(env, body)

    def _deliver(self, env: SnapshotEnvelope, body: dict[str, object]) -> None:
        self._ready = (env, body)
        self._wake.set()

    async def run(self, connected: Callable[[], bool]) -> None:
        """Publish the latest figures whenever there are new ones (forever)."""
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                ready, self._ready = self._ready, None
                if ready is None or not connected():
                    continue
                try:
                    await self._publisher().publish(self.topic, odds_payload(*ready),
                                                    retain=False, qos=1, secret=True,
                                                    props=_JSON)
                    self.published += 1
                except PublishError as exc:
                    _LOGGER.warning("odds not published: %s", exc)
        finally:
            self.worker.close()
